#pragma once
// Reading doctor's -o json in tests.

#include <nlohmann/json.hpp>
#include <string>

namespace rgpu::test {

/// The check `id` of doctor's JSON document; fails the test when it has none.
nlohmann::json check_of(const nlohmann::json& doc, const std::string& id);

}  // namespace rgpu::test
