# Every target of ours links rgpu_warnings: warnings on, and treated as errors.
add_library(rgpu_warnings INTERFACE)
target_compile_options(rgpu_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wformat=2 -Werror)

if(RGPU_SANITIZE)
  # GCC 12 reports false maybe-uninitialized warnings inside libstdc++'s <regex> (used by Catch2)
  # once ASan instruments it; GCC's manual warns that sanitizers make that warning unreliable.
  target_compile_options(rgpu_warnings INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
    -Wno-maybe-uninitialized)
  target_link_options(rgpu_warnings INTERFACE -fsanitize=address,undefined)
endif()
