#include "admission/null_world.h"

#include "admission/host_paths.h"

namespace rgpu::admission {

Refusal NullWorld::judge_host_path(const HostBind& bind, const BindScope& scope) {
  return check_host_bind_text(bind, scope);
}

std::string NullWorld::cdi_form(std::string_view device_path) { return cdi_form_for(device_path, fixed_paths_only()); }

bool NullWorld::is_tun_device(std::string_view) { return true; }

Known<Result<std::string>> NullWorld::stored_container(std::string_view) { return std::nullopt; }

Known<Result<std::string>> NullWorld::volume_mount(std::string_view) { return std::nullopt; }

Known<std::string> NullWorld::default_cgroupns_mode() { return std::nullopt; }

std::vector<std::string> NullWorld::review_items(const std::string&) { return {}; }

Known<std::vector<std::string>> NullWorld::defined_names() { return std::nullopt; }

Known<Result<std::optional<probe::Reach>>> NullWorld::reach(const std::string&) { return std::nullopt; }

Known<Refusal> NullWorld::build_refusal(const PolicyRules&) { return std::nullopt; }

Known<bool> NullWorld::runtime_verified() { return std::nullopt; }

GateWorld& null_world() {
  static NullWorld world;
  return world;
}

}  // namespace rgpu::admission
