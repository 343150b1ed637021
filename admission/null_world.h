#pragma once
// The world that knows nothing: host paths judged by their text alone, no daemon, no specs. The
// benchmarks and the libFuzzer target decide in it (the decision's own cost, nothing of the
// machine's), naming it as every caller names its world; a world that knows a few facts derives
// from it.

#include "admission/gate_world.h"

namespace rgpu::admission {

class NullWorld : public GateWorld {
 public:
  /// check_host_bind_text.
  Refusal judge_host_path(const HostBind& bind, const BindScope& scope) override;
  /// cdi_form_for with no names of the machine's.
  std::string cdi_form(std::string_view device_path) override;
  /// True: on text alone, a path that cleans to /dev/net/tun is taken for the TUN device.
  bool is_tun_device(std::string_view path) override;
  Known<Result<std::string>> stored_container(std::string_view name) override;
  Known<Result<std::string>> volume_mount(std::string_view name) override;
  Known<std::string> default_cgroupns_mode() override;
  /// Nothing to review.
  std::vector<std::string> review_items(const std::string& name) override;
  Known<std::vector<std::string>> defined_names() override;
  Known<Result<std::optional<probe::Reach>>> reach(const std::string& name) override;
  Known<Refusal> build_refusal(const PolicyRules& policy) override;
  Known<bool> runtime_verified() override;
};

/// One NullWorld shared by every caller (it keeps no state).
GateWorld& null_world();

}  // namespace rgpu::admission
