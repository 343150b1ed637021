#pragma once
// What setup does when the operator says nothing: the repository daemons' unit, the path the
// units run the tool at, the NVIDIA hooks kept out of the spec.

#include <string>
#include <vector>

#include "core/host_policy.h"
#include "core/root_fs.h"

namespace rgpu::setup {

/// The systemd unit template of the repositories' Docker daemons where no Rediacc layout is found.
inline constexpr const char* kDefaultRepoDaemonUnit = "rediacc-docker@.service";
/// renet's repository daemons, rediacc-docker-{id}.service: one prefix drop-in reaches them all.
inline constexpr const char* kRediaccRepoDaemonUnit = "rediacc-docker-.service";

/// --repo-daemon-unit: `given`, else renet's units' prefix where the machine is laid out as
/// Rediacc lays it out, else the template.
std::string repo_daemon_unit(const RootFs& fs, const std::string& given);

/// --host-policy: `given` ("strict" or "rediacc"), else (empty or "auto") rediacc where the
/// machine is laid out as Rediacc lays it out, else strict; with the reason, for the record. Its
/// bind roots: those `roots` names (--bind-root, each "PATH" or "PATH:ro"; "default" alone goes
/// back to the policy's own), else those an operator named in an earlier setup, else the policy's
/// defaults. An error naming a root that cannot be one, or a record that cannot be read (which is
/// then left as it is).
Result<RecordedPolicy> host_policy(const RootFs& fs, const std::string& given, const std::vector<std::string>& roots);

/// Where the package installs the tool.
inline constexpr const char* kPackagedToolPath = "/usr/bin/rediacc-gpu";

/// The path the units run the tool at: `given`, else this binary; under --root this binary is
/// not that machine's, so the package's path.
std::string unit_tool_path(const RootFs& fs, const std::string& given);

/// The NVIDIA hooks to leave out of the spec: `given` without repeats ("none" clears them), else
/// what an earlier setup recorded.
std::vector<std::string> disabled_hooks(const RootFs& fs, const std::vector<std::string>& given);

}  // namespace rgpu::setup
