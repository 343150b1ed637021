#pragma once
// The NVIDIA Container Toolkit, installed only to generate the NVIDIA CDI spec: the one package
// nvidia-container-toolkit-base (nvidia-ctk, nvidia-cdi-hook, the refresh units; nothing that
// configures a container runtime), pinned.

#include <array>
#include <optional>
#include <string>

#include "core/change.h"
#include "core/command_runner.h"
#include "core/file_sink.h"
#include "core/result.h"
#include "core/root_fs.h"
#include "installers/package_manager.h"

namespace rgpu::installers {

inline constexpr const char* kToolkitPackage = "nvidia-container-toolkit-base";
/// The newest stable release when this tool was built.
inline constexpr const char* kDefaultToolkitVersion = "1.20.0";
/// The refresh units and their environment-file settings start at 1.18.0.
inline constexpr const char* kMinimumToolkitVersion = "1.18.0";

/// A version "X.Y.Z" at or above kMinimumToolkitVersion; an error naming it otherwise.
Result<void> check_toolkit_version(const std::string& version);

/// -1, 0, 1 as `a` is below, equal to or above `b`, on the upstream "X.Y.Z" part of a package
/// version ("1.21.0-1", "1.18.0~rc.1-1": a "~" pre-release sorts below its release), as
/// compare_versions orders them; absent when either is not such a version.
std::optional<int> compare_toolkit_versions(const std::string& a, const std::string& b);

/// The installed version of the package in the machine's own package database ("1.20.0-1"),
/// absent when it is not installed: setup and doctor both decide "installed" here. Queries run
/// for real even in a dry run: they change nothing.
std::optional<std::string> installed_toolkit(const RootFs& fs, const PackageManager& pm, CommandRunner& query);

/// What the operator asked for: `version` as a floor (the default: a version at or above it is
/// kept, so a routine upgrade is never undone), or exactly (--nvidia-toolkit-version).
struct ToolkitWanted {
  std::string version;
  bool exact = false;
};

enum class ToolkitPlan { keep, install, upgrade, downgrade };

/// What to do, given what is installed: pure, so every case is tested on its own.
ToolkitPlan plan_toolkit(const std::optional<std::string>& installed, const ToolkitWanted& wanted);

struct ToolkitOutcome {
  ToolkitPlan plan = ToolkitPlan::keep;
  std::optional<std::string> installed_before;
  bool performed = false;  ///< the install commands really ran (false in a dry run, and for keep)
};

/// Installs kToolkitPackage as `wanted` says unless what is installed already satisfies it:
/// repository file, signing key when missing, install. Files go through `sink` and commands
/// through `act` (real or dry run; a caller that records them sees each as it happens, so a
/// failed step still lists what it ran); a command that fails stops it with its output in the error.
Result<ToolkitOutcome> ensure_toolkit(const RootFs& fs, const PackageManager& pm, FileSink& sink, CommandRunner& query,
                                      CommandRunner& act, const ToolkitWanted& wanted);

/// The NVIDIA driver's control nodes that it makes only at first use, not at boot.
inline constexpr std::array<const char*, 3> kNvidiaControlNodes = {"/dev/nvidia-uvm", "/dev/nvidia-uvm-tools",
                                                                   "/dev/nvidia-modeset"};
/// The command that makes the driver's control nodes (/dev/nvidia-uvm, -uvm-tools, -modeset),
/// which it makes only at first use; and the driver's own helper where the toolkit is not there.
inline constexpr const char* kMakeControlNodes =
    "nvidia-ctk system create-device-nodes --control-devices --load-kernel-modules";
inline constexpr const char* kMakeControlNodesWithoutToolkit = "nvidia-modprobe -u -c=0 && nvidia-modprobe -m";

/// Runs one command through `runner`, turning a non-zero exit into an error that shows the output.
Result<CommandResult> run_step(CommandRunner& runner, const Argv& argv, std::chrono::seconds timeout);

}  // namespace rgpu::installers
