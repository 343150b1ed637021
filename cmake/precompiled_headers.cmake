# The heavy third-party headers (nlohmann/json, CLI11, Catch2), parsed once per target instead of
# once per file: most of a cold build's time on a small machine. Every file still includes what it
# uses, so a build with -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON (a packager's choice) compiles too.
# ccache keeps caching: GCC is told to preprocess through the header (-fpch-preprocess), clang to
# leave timestamps out of it, and the README's test command sets the sloppiness ccache needs
# (pch_defines, time_macros).
function(rgpu_precompile target)
  target_precompile_headers(${target} PRIVATE ${ARGN})
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANG_AND_ID:CXX,GNU>:-fpch-preprocess>)
  # clang writes its headers' modification times into the precompiled header, new in every
  # clone: without this, ccache finds nothing of a clone at the same path. (A clone elsewhere
  # still misses under clang: its precompiled header records absolute paths.)
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANG_AND_ID:CXX,Clang>:SHELL:-Xclang -fno-pch-timestamp>")
endfunction()
