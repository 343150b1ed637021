#include <catch2/catch.hpp>

#include "core/time_text.h"

using namespace std::chrono_literals;

TEST_CASE("time: RFC 3339 UTC round-trips to the second") {
  auto t = rgpu::parse_rfc3339_utc("2026-11-29T15:20:00Z");
  REQUIRE(t);
  REQUIRE(rgpu::format_rfc3339_utc(*t) == "2026-11-29T15:20:00Z");
  REQUIRE_FALSE(rgpu::parse_rfc3339_utc("2026-11-29 15:20:00"));
  REQUIRE_FALSE(rgpu::parse_rfc3339_utc("2026-11-29T15:20:00+01:00"));
}

TEST_CASE("time: ages read like a person says them") {
  REQUIRE(rgpu::format_age(2s) == "just now");
  REQUIRE(rgpu::format_age(42s) == "42s ago");
  REQUIRE(rgpu::format_age(180s) == "3m ago");
  REQUIRE(rgpu::format_age(5h) == "5h ago");
  REQUIRE(rgpu::format_age(49h) == "2d ago");
  REQUIRE(rgpu::format_age(-10s) == "in the future");
}
