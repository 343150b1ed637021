#include <catch2/catch.hpp>

#include "core/structured_text.h"

TEST_CASE("yaml: plain scalars become numbers and booleans, quoted ones stay strings") {
  auto j = rgpu::parse_yaml("a: 1\nb: \"1\"\nc: true\nd: name\ne: [x, 2]\n", "/etc/cdi/t.yaml");
  REQUIRE(j);
  REQUIRE((*j)["a"] == 1);
  REQUIRE((*j)["b"] == "1");
  REQUIRE((*j)["c"] == true);
  REQUIRE((*j)["d"] == "name");
  REQUIRE((*j)["e"][1] == 2);
}

TEST_CASE("yaml and json: a document that does not parse is an error naming the file") {
  auto y = rgpu::parse_yaml("a: [unclosed\n", "/etc/cdi/bad.yaml");
  REQUIRE_FALSE(y);
  REQUIRE_THAT(y.error().message, Catch::Contains("/etc/cdi/bad.yaml"));
  auto j = rgpu::parse_json("{not json", "/etc/rediacc/gpu/inventory.json");
  REQUIRE_FALSE(j);
  REQUIRE_THAT(j.error().message, Catch::Contains("/etc/rediacc/gpu/inventory.json is not valid JSON"));
}
