#pragma once
// Validation against the official CDI JSON schema, as Debian's container-device-interface
// package ships it, with valijson.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rgpu::test {

/// Where Debian installs the CDI schema (schema.json and defs.json).
inline constexpr const char* kCdiSchemaDir =
    "/usr/share/gocode/src/github.com/container-orchestrated-devices/container-device-interface/schema";

/// Every violation of the CDI schema in `spec`, empty when it validates.
std::vector<std::string> cdi_schema_errors(const nlohmann::json& spec);

/// Every violation of our inventory schema (docs/inventory.schema.json) in `inventory`.
std::vector<std::string> inventory_schema_errors(const nlohmann::json& inventory);

}  // namespace rgpu::test
