#include "docker/builder_entitlements.h"

#include <string_view>

#include "core/ascii_case.h"

namespace rgpu::docker {
namespace {

const nlohmann::json* member(const nlohmann::json& object, std::string_view name) {
  if (!object.is_object()) return nullptr;
  for (const auto& [key, value] : object.items()) {
    if (ascii_iequal(key, name)) return &value;
  }
  return nullptr;
}

void read_flag(const nlohmann::json* entitlements, std::string_view name, bool& value) {
  const auto* v = entitlements ? member(*entitlements, name) : nullptr;
  if (v && v->is_boolean()) value = v->get<bool>();
}

}  // namespace

BuilderEntitlements builder_entitlements(const nlohmann::json& config) {
  BuilderEntitlements out;
  const auto* builder = member(config, "builder");
  const auto* entitlements = builder ? member(*builder, "entitlements") : nullptr;
  read_flag(entitlements, "network-host", out.network_host);
  read_flag(entitlements, "security-insecure", out.security_insecure);
  read_flag(entitlements, "device", out.device);
  return out;
}

}  // namespace rgpu::docker
