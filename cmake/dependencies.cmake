# Debian 12 packages only (see scripts/setup.sh for the apt-get list).
#
# RGPU_SELF_CONTAINED (the release, scripts/release.sh): one executable that needs nothing at run
# time but glibc's own libraries, so the same file runs on every distribution Rediacc's servers
# use. Debian's static archives stand in for libdrm, yaml-cpp and Boost.Filesystem; simdjson,
# which Debian ships only as a shared library, is compiled from its Debian source package
# (RGPU_SIMDJSON_SOURCE, the unpacked tree); libstdc++ and libgcc are linked in.
option(RGPU_SELF_CONTAINED "Link every library but glibc's statically (the release executables)" OFF)
set(RGPU_SIMDJSON_SOURCE "" CACHE PATH "simdjson's unpacked Debian source tree (RGPU_SELF_CONTAINED only)")
set(RGPU_STATIC_LIBRARY_DIR "" CACHE PATH
    "Where the static archives are, when not installed (a cross build's, unpacked from Debian's packages)")

find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(tl-expected REQUIRED)

# rgpu_static_archive(TARGET ARCHIVE [INCLUDE_DIR]): an imported TARGET for Debian's static ARCHIVE
# of the build's architecture, named as the shared library's package config names it, so the
# folders' CMakeLists.txt link the same names in both builds.
function(rgpu_static_archive target archive)
  if(RGPU_STATIC_LIBRARY_DIR)
    find_library(rgpu_archive_${archive} NAMES ${archive} PATHS ${RGPU_STATIC_LIBRARY_DIR} NO_DEFAULT_PATH NO_CACHE)
  else()
    find_library(rgpu_archive_${archive} NAMES ${archive} NO_CACHE)
  endif()
  if(NOT rgpu_archive_${archive})
    message(FATAL_ERROR "${archive} is not installed for ${CMAKE_LIBRARY_ARCHITECTURE}: "
                        "install the build dependencies with bash scripts/setup.sh release")
  endif()
  add_library(${target} STATIC IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES IMPORTED_LOCATION ${rgpu_archive_${archive}})
  if(ARGC GREATER 2)
    set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${ARGV2})
  endif()
endfunction()

if(RGPU_SELF_CONTAINED)
  if(NOT EXISTS "${RGPU_SIMDJSON_SOURCE}/singleheader/simdjson.cpp")
    message(FATAL_ERROR "RGPU_SIMDJSON_SOURCE (\"${RGPU_SIMDJSON_SOURCE}\") is not simdjson's unpacked source: "
                        "scripts/release.sh fetches it with apt-get source simdjson")
  endif()
  rgpu_static_archive(PkgConfig::LIBDRM libdrm.a /usr/include/libdrm)
  rgpu_static_archive(yaml-cpp libyaml-cpp.a)
  rgpu_static_archive(Boost::filesystem libboost_filesystem.a)
  # What Boost's own static variant defines (auto-linking off, an MSVC feature), as below.
  set_target_properties(Boost::filesystem PROPERTIES INTERFACE_COMPILE_DEFINITIONS BOOST_ALL_NO_LIB)
  # Its single-file amalgamation, built as its own CMake build would (runtime CPU dispatch).
  add_library(rgpu_simdjson STATIC ${RGPU_SIMDJSON_SOURCE}/singleheader/simdjson.cpp)
  # Where libsimdjson-dev installed this very header (the same Debian source), the compiler finds
  # it there as in the ordinary build, and each file's command line is the ordinary build's: CI
  # compiles the product once for the release and the tests (ccache). Elsewhere, the source's.
  # Debian's package is built with threads, which its CMake target says to its users.
  target_compile_definitions(rgpu_simdjson PUBLIC SIMDJSON_THREADS_ENABLED=1)
  file(SHA256 ${RGPU_SIMDJSON_SOURCE}/singleheader/simdjson.h rgpu_source_sum)
  set(rgpu_installed_sum "")
  foreach(dir IN LISTS CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)  # as the compiler looks
    if(EXISTS ${dir}/simdjson.h)
      file(SHA256 ${dir}/simdjson.h rgpu_installed_sum)
      break()
    endif()
  endforeach()
  if(NOT rgpu_installed_sum STREQUAL rgpu_source_sum)
    target_include_directories(rgpu_simdjson SYSTEM PUBLIC ${RGPU_SIMDJSON_SOURCE}/singleheader)
  endif()
  add_library(simdjson::simdjson ALIAS rgpu_simdjson)
  # glibc stays shared (NVML is dlopen'ed, and a static glibc cannot load it); the C++ runtime
  # is linked in; the file is stripped here so the packages carry the very file that was tested.
  add_link_options(-static-libstdc++ -static-libgcc -Wl,--as-needed -s)
else()
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(LIBDRM REQUIRED IMPORTED_TARGET libdrm)
  find_package(simdjson 3 REQUIRED)  # the admission decision reads bodies with its DOM
  find_package(yaml-cpp REQUIRED)
  find_package(Boost 1.74 REQUIRED COMPONENTS filesystem)  # Boost.Process links Boost.Filesystem
  # BOOST_FILESYSTEM_DYN_LINK only marks declarations dllimport, which ELF has not: the code is
  # the same without it, and the release's static build (above) then compiles the same command
  # lines, so CI compiles the product once for both.
  set_target_properties(Boost::filesystem PROPERTIES INTERFACE_COMPILE_DEFINITIONS BOOST_ALL_NO_LIB)
endif()
if(RGPU_BUILD_TESTS)
  if(RGPU_SELF_CONTAINED)
    message(FATAL_ERROR "RGPU_SELF_CONTAINED builds the release executable only: configure it with -DRGPU_BUILD_TESTS=OFF")
  endif()
  find_package(Catch2 2 REQUIRED)
  pkg_check_modules(LIBPCI REQUIRED IMPORTED_TARGET libpci)  # the judge of the probe's pci.ids names
endif()
