#pragma once
// The gate's rules on what a container gets (container_model.h), as the verifier in front of runc
// judges the config dockerd, BuildKit or a restore hands runc: devices and device cgroup rules only
// those the repository's granted CDI names produce, hooks only those names' (reviewed at their
// grant) and the daemon's own, capabilities, namespaces, security options and annotations as the
// gate allows them. Pure: what the machine says (the granted names' edits, the daemon, AppArmor) is
// handed in. Where a bind may come from is judged by the caller, who opens it.

#include <string>
#include <vector>

#include "admission/container_model.h"
#include "admission/refusal.h"
#include "cdi/spec_index.h"
#include "core/host_policy.h"
#include "probe/hardware_identity.h"

namespace rgpu::admission {

/// What the repository's container may get beyond Docker's defaults, and the facts judging needs.
struct ContainerAllowance {
  PolicyRules policy = {};
  /// The nodes the repository's granted names map, with their numbers, as its view resolves them.
  std::vector<probe::NodeRef> granted_nodes = {};
  /// The hooks and mounts those names carry.
  std::vector<cdi::CdiHook> granted_hooks = {};
  std::vector<cdi::CdiMount> granted_mounts = {};
  /// The daemon's own prestart hook (dockerd before 28 runs "/proc/PID/exe libnetwork-setkey" to
  /// set up a container's network): its path ("/proc/812/exe") and exec root; empty: none allowed.
  std::string daemon_hook_path = {};
  std::string daemon_exec_root = {};
  bool apparmor_enabled = false;
  /// The daemon gives a container a cgroup namespace of its own when it asks for none (cgroup v2).
  bool private_cgroupns_default = true;
};

/// A refusal naming what the container would get that the gate would not give it and what to do;
/// nothing when it gets only what the repository may have. Bind mounts are judged here only by
/// their propagation: where each may come from is the caller's to judge.
Refusal judge_container(const ContainerModel& model, const ContainerAllowance& allowance);

/// True when the container shares the host's network namespace (the daemon's own): none of its
/// own in the list, or one joined that is the host's.
bool on_host_network(const ContainerModel& model);

}  // namespace rgpu::admission
