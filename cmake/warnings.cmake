# Every target of ours links rgpu_warnings: warnings on, and treated as errors.
add_library(rgpu_warnings INTERFACE)
target_compile_options(rgpu_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wformat=2 -Werror)

if(RGPU_SANITIZE)
  target_compile_options(rgpu_warnings INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_link_options(rgpu_warnings INTERFACE -fsanitize=address,undefined)
endif()
