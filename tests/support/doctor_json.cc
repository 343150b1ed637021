#include "tests/support/doctor_json.h"

#include <catch2/catch.hpp>

namespace rgpu::test {

nlohmann::json check_of(const nlohmann::json& doc, const std::string& id) {
  for (const auto& c : doc["checks"]) {
    if (c["id"] == id) return c;
  }
  FAIL("no check " << id << " in " << doc.dump(2));
  return {};
}

}  // namespace rgpu::test
