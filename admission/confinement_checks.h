#pragma once
// The confinement a container keeps: the host's namespaces (by policy), raw sockets on the shared
// network, log drivers that ship from the daemon, the cgroup namespace and OOM score, and the
// runtimes and annotations that inject devices.
// Parts of the body's checks (body_checks.h), for admission's own files.

#include <optional>
#include <string>

#include "admission/body_checks.h"
#include "admission/host_config_fields.h"
#include "core/host_policy.h"
#include "docker/go_json.h"

namespace rgpu::admission {

Refusal check_strings(const std::optional<docker::GoValue>& list, const std::string& what);

/// Modes that share one of the host's namespaces. "container:NAME" stays allowed: every name a
/// repository's daemon knows is one of its own containers. The host's network and user namespace
/// follow the machine's policy (Rediacc runs every service on the host's network, isolated by eBPF
/// in the kernel; its checkpointed containers opt out of user-namespace remapping).
Refusal check_namespaces(const Fields& hc, const PolicyRules& policy);

/// On the host's network namespace, which every repository's services share, CAP_NET_RAW (Docker
/// gives it by default) opens packet and raw sockets that read every repository's loopback traffic;
/// Rediacc's eBPF hooks confine bind and connect, not those. A container there drops it. dockerd
/// has no flag for its containers' default capabilities, and a filter under the daemon would stop
/// CRIU, which may not trace a checkpointed container from under one (docs/decisions.md). Allowed
/// where the verifier in front of runc makes the daemon's containers (GateWorld::runtime_verified):
/// it takes the capability at runc.
Refusal check_shared_network_raw(const Fields& hc, CheckContext& context);

/// A log driver runs in the daemon: one that ships a container's output over the network does so
/// from the daemon's network namespace, the host's on a Rediacc machine, to any address the request
/// names (another repository's loopback service, the host's). Those that write on this machine
/// stay allowed: the daemon's default, json-file, local, journald, none, and syslog to the host's
/// own /dev/log.
Refusal check_log_driver(const std::optional<docker::GoValue>& config);

/// The host's cgroup namespace shows the whole cgroup tree (every repository's containers and what
/// they use); where the daemon's default is a private one (cgroup v2, dockerd 20.10 and later) asking
/// for it is a choice. On cgroup v1 the host's is the default, and every stored container carries it.
/// A score below the daemon's default (0) shields one repository's container from the OOM killer at
/// the others' expense.
Refusal check_cgroup_and_oom(const Fields& hc, GateWorld& world);

Refusal check_runtime_and_annotations(const Fields& hc, CheckContext& context);

}  // namespace rgpu::admission
