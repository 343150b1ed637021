#pragma once
// `doctor`: the playbook for GPUs in containers, run on this machine, layer by layer, on the facts
// gathered once (facts/). Each layer has a folder of its own: host_driver/ (1), device_nodes/ (2),
// runtime/ (3), specs/ (4), policy/ (5), container/ (6).

#include <vector>

#include "doctor/check.h"
#include "doctor/facts.h"

namespace rgpu::doctor {

std::vector<Check> host_driver_checks(const Facts& facts);
/// Each GPU's PCIe link and NUMA node: a link narrower than its maximum warns.
std::vector<Check> placement_checks(const Facts& facts);
std::vector<Check> device_node_checks(const Facts& facts);
/// Layer 2: the /dev/char link of each node the specs map (device_nodes/char_links.cc).
Check char_link_check(const Facts& facts);
/// Whether the host's cgroup mode or a repository daemon's cgroup driver changed since setup (cgroup_change.cc).
Check cgroup_change_check(const Facts& facts);
std::vector<Check> runtime_checks(const Facts& facts);
std::vector<Check> spec_checks(const Facts& facts);
/// Every grant's name defined, grantable and reaching the card it was granted on; every reservation
/// held by one repository alone (layer 5's first checks).
std::vector<Check> grant_checks(const Facts& facts);
/// The kernel's confinement, persistenced, rootless daemons, user namespaces and BuildKit (layer 5).
std::vector<Check> policy_checks(const Facts& facts);
/// The NVIDIA spec's MIG names against the MIG devices present: fails on names of slices that
/// are gone and slices without a name, naming the grants that point at stale names.
Check mig_spec_check(const Facts& facts);
/// Whether each running dockerd maps container root to an unprivileged host user (userns-remap,
/// rootless): the one defence left against a bind source swapped for a link after the gate's check.
Check user_namespaces(const Facts& facts);

/// The host policy the gate applies and why; renet's repository daemons each behind its own
/// plugin; what a host-network container reaches outside the repositories' loopback ranges.
std::vector<Check> host_policy_checks(const Facts& facts);

/// Each repository daemon reads only its own CDI view; no container holds a revoked name.
std::vector<Check> repo_daemon_checks(const Facts& facts);

/// Processes of a repository on hardware it holds no grant for, containers no repository owns,
/// grants no process used for a day (facts.usage; skipped without it).
std::vector<Check> usage_checks(const Facts& facts);

/// The last canary result of each repository's names, from their records (layer 6).
std::vector<Check> canary_checks(const Facts& facts);

/// The daemons' Docker and runc versions against the known escapes (doctor/known_escapes.cc), layer 5.
std::vector<Check> escape_checks(const Facts& facts);

/// Every check of layers 1 to 6 that needs no container (layer 6 from the canaries' records), in
/// order: the one place the layers are put together.
std::vector<Check> run_doctor(const Facts& facts);

/// True when no check failed (warnings allowed).
bool healthy(const std::vector<Check>& checks);

}  // namespace rgpu::doctor
