#include <catch2/catch.hpp>

#include "cli/render.h"

TEST_CASE("render: memory in human units, unknown said as such") {
  CHECK(rgpu::cli::human_bytes(85520809984ULL) == "79.6 GiB");
  CHECK(rgpu::cli::human_bytes(512ULL * 1024 * 1024) == "512.0 MiB");
  CHECK(rgpu::cli::human_bytes(100) == "100 B");
  CHECK(rgpu::cli::human_bytes(std::nullopt) == "unknown");
}

TEST_CASE("render: table columns line up, no trailing spaces") {
  auto t = rgpu::cli::render_table({"A", "LONGER"}, {{"xyz", "1"}});
  CHECK(t == "A    LONGER\nxyz  1\n");
}
