#include "admission/machine_world.h"

namespace rgpu::admission {

Refusal MachineWorld::judge_host_path(const HostBind& bind, const BindScope& scope) {
  return paths_.check(bind, scope);
}

std::string MachineWorld::cdi_form(std::string_view device_path) { return paths_.cdi_form(device_path); }

bool MachineWorld::is_tun_device(std::string_view path) { return paths_.is_tun_device(path); }

}  // namespace rgpu::admission
