# Debian 12 packages only (see scripts/setup.sh for the apt-get list).
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBDRM REQUIRED IMPORTED_TARGET libdrm)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(simdjson 3 REQUIRED)  # the admission decision reads bodies with its DOM
find_package(yaml-cpp REQUIRED)
find_package(CLI11 REQUIRED)
find_package(tl-expected REQUIRED)
find_package(Boost 1.74 REQUIRED COMPONENTS filesystem)  # Boost.Process links Boost.Filesystem
if(RGPU_BUILD_TESTS)
  find_package(Catch2 2 REQUIRED)
  pkg_check_modules(LIBPCI REQUIRED IMPORTED_TARGET libpci)  # the judge of the probe's pci.ids names
endif()
