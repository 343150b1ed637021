#pragma once
// The gate's world as a unit test sets it: a daemon storing one container under every name, the
// review items every name carries, the names the specs define, the build verdict. What a test
// leaves unset the world does not know, as NullWorld: host paths are judged by their text alone.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "admission/null_world.h"
#include "gate/daemon_containers.h"

namespace rgpu::test {

class FakeWorld final : public admission::NullWorld {
 public:
  /// The inspect text every container name gets; unset (and no `daemon`): no containers known.
  std::optional<std::string> stored;
  /// A real daemon asked instead, through the plugin's own client.
  const gate::DaemonContainers* daemon = nullptr;
  /// Every name a stored container was asked for, in order.
  std::vector<std::string> asked;
  /// What every name carries now that its grant must have reviewed.
  std::vector<std::string> carried;
  /// The names this machine's specs define, sorted; unset: not known.
  std::optional<std::vector<std::string>> names;
  /// The cgroup namespace the daemon gives a container by default; unset: not known.
  std::optional<std::string> cgroupns_default;
  /// What each named volume mounts ("" a plain one); a name missing here is not known.
  std::map<std::string, std::string> volumes;
  /// Unset: whether builds are safe is not known; else why not, nothing when they are.
  std::optional<admission::Refusal> build_verdict;
  /// How many times the build verdict was asked for.
  int builds_asked = 0;
  /// Whether the daemon's containers are made through the verifier; unset: not known.
  std::optional<bool> verified_runtime;

  admission::Known<Result<std::string>> stored_container(std::string_view name) override;
  admission::Known<Result<std::string>> volume_mount(std::string_view name) override;
  admission::Known<std::string> default_cgroupns_mode() override { return cgroupns_default; }
  std::vector<std::string> review_items(const std::string& name) override;
  admission::Known<std::vector<std::string>> defined_names() override;
  admission::Known<admission::Refusal> build_refusal(const PolicyRules& policy) override;
  admission::Known<bool> runtime_verified() override { return verified_runtime; }
};

}  // namespace rgpu::test
