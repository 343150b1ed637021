#pragma once
// What setup does when the operator says nothing: the repository daemons' unit, the path the
// units run the tool at, the NVIDIA hooks kept out of the spec.

#include <string>
#include <vector>

#include "core/root_fs.h"

namespace rgpu::setup {

/// The systemd unit template of the repositories' Docker daemons (renet's), for --repo-daemon-unit.
inline constexpr const char* kDefaultRepoDaemonUnit = "rediacc-docker@.service";

/// Where the package installs the tool.
inline constexpr const char* kPackagedToolPath = "/usr/bin/rediacc-gpu";

/// The path the units run the tool at: `given`, else this binary; under --root this binary is
/// not that machine's, so the package's path.
std::string unit_tool_path(const RootFs& fs, const std::string& given);

/// The NVIDIA hooks to leave out of the spec: `given` without repeats ("none" clears them), else
/// what an earlier setup recorded.
std::vector<std::string> disabled_hooks(const RootFs& fs, const std::vector<std::string>& given);

}  // namespace rgpu::setup
