# Every target of ours links rgpu_warnings: warnings on everywhere; errors only where we choose
# (CI and the README's test command), so a packager's newer compiler cannot break the build.
option(RGPU_WERROR "Treat compiler warnings as errors" OFF)
add_library(rgpu_warnings INTERFACE)
target_compile_options(rgpu_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wformat=2)
if(RGPU_WERROR)
  target_compile_options(rgpu_warnings INTERFACE -Werror)
endif()

if(RGPU_SANITIZE)
  # GCC 12 reports false maybe-uninitialized warnings inside libstdc++'s <regex> (used by Catch2)
  # once ASan instruments it; GCC's manual warns that sanitizers make that warning unreliable.
  target_compile_options(rgpu_warnings INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
    $<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized>)
  target_link_options(rgpu_warnings INTERFACE -fsanitize=address,undefined)
endif()
