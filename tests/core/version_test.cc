// One reading and one order of release versions, whichever program or package wrote them: what
// doctor judges Docker, runc and CUDA by, and what setup plans the NVIDIA toolkit by.

#include <catch2/catch.hpp>

#include "core/version.h"

using namespace rgpu;

TEST_CASE("versions: upstream numbers are read through a package's epoch, a v and its own revision") {
  CHECK(read_version("5:28.1.1-1~debian.12~bookworm").numbers == std::vector<long>{28, 1, 1});
  CHECK_FALSE(read_version("5:28.1.1-1~debian.12~bookworm").pre);
  CHECK(read_version("20.10.24+dfsg1-1").numbers == std::vector<long>{20, 10, 24});
  CHECK(read_version("v1.2.8").numbers == std::vector<long>{1, 2, 8});
  CHECK(read_version("1.2.").numbers == std::vector<long>{1, 2});
  CHECK(read_version("latest").numbers.empty());
  const auto rc = read_version("1.18.0~rc.1-1");
  CHECK(rc.pre);
  CHECK(rc.pre_number == 1);
  CHECK(read_version("1.4.0-rc3").pre_number == 3);
}

TEST_CASE("versions: numbers first, a pre-release before its release, a distribution's suffix ignored") {
  CHECK(compare_versions("1.1.5+ds1", "1.1.12") < 0);
  CHECK(compare_versions("1.4.0-rc.2", "1.4.0-rc.3") < 0);
  CHECK(compare_versions("1.4.0", "1.4.0-rc.3") > 0);
  CHECK(compare_versions("v1.2.8", "1.2.8") == 0);
  CHECK(compare_versions("12.4", "12.4.0") == 0);
  CHECK(compare_versions("12.10", "12.9") > 0);
  CHECK(compare_versions("1.20.0~rc.1-1", "1.20.0") < 0);
  CHECK(compare_versions("1.20.0-1", "1.20.0") == 0);
  CHECK(compare_versions("5:28.2.2-1~debian.12~bookworm", "28.2.2") == 0);
  CHECK(compare_versions("28.5.2+dfsg4", "29.0.0") < 0);
}

TEST_CASE("versions: a dotted version is numbers and dots alone") {
  REQUIRE(dotted_version("550.54.15"));
  CHECK(dotted_version("550.54.15")->numbers == std::vector<long>{550, 54, 15});
  CHECK(dotted_version("12")->numbers == std::vector<long>{12});
  for (const char* bad : {"", "12.", ".4", "12..4", "v12", "12.4-1", "1234567890.1"}) {
    INFO(bad);
    CHECK_FALSE(dotted_version(bad));
  }
  CHECK(compare(*dotted_version("550.54.15"), *dotted_version("550.54.9")) > 0);
}
