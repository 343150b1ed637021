# Cross-compiling for aarch64 with Debian's cross toolchain (crossbuild-essential-arm64); the arm64
# static archives come unpacked from Debian's arm64 packages (RGPU_STATIC_LIBRARY_DIR, given by
# scripts/release.sh), not installed. Programs the build runs (the packaged units' renderer, the
# man page, the completion script) run under qemu-user with Debian's arm64 C library.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -L /usr/aarch64-linux-gnu)
# Only the arm64 libraries are linked; headers and CMake package files that are the same for
# every architecture are still found under /usr.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
