#pragma once
// A world that knows the machine's paths and nothing else: binds and mounts resolved on the
// machine (HostPathJudge), no daemon, no specs. The tests judge a fixture machine's host paths in
// it; nothing that decides for a user does (doctor judges in the plugin's own world).

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
