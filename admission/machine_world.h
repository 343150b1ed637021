#pragma once
// A world that knows the machine's paths and nothing else: binds and mounts resolved on the
// machine (HostPathJudge), no daemon, no specs. doctor judges a stored container's next start in
// it (adding that container), tests the host paths of a fixture machine.

#include "admission/host_paths.h"
#include "admission/null_world.h"

namespace rgpu::admission {

class MachineWorld : public NullWorld {
 public:
  explicit MachineWorld(const HostPathJudge& paths) : paths_(paths) {}

  Refusal judge_host_path(const HostBind& bind, const BindScope& scope) override;
  std::string cdi_form(std::string_view device_path) override;
  bool is_tun_device(std::string_view path) override;

 private:
  const HostPathJudge& paths_;
};

}  // namespace rgpu::admission
