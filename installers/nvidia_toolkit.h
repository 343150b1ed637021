#pragma once
// The NVIDIA Container Toolkit, installed only to generate the NVIDIA CDI spec: the one package
// nvidia-container-toolkit-base (nvidia-ctk, nvidia-cdi-hook, the refresh units; nothing that
// configures a container runtime), pinned.

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

/// The installed version of the package ("1.20.0-1"), absent when it is not installed.
/// Queries run for real even in a dry run: they change nothing.
std::optional<std::string> installed_toolkit(const PackageManager& pm, CommandRunner& query);

struct ToolkitOutcome {
  Changes changes;
  bool installed_now = false;  ///< false when the pinned version was already there
};

/// Installs kToolkitPackage at `version` unless exactly that is installed: repository file,
/// signing key when missing, install. Commands go through `act` (real or dry run); a command
/// that fails stops it with its output in the error.
Result<ToolkitOutcome> ensure_toolkit(const RootFs& fs, const PackageManager& pm, FileSink& sink, CommandRunner& query,
                                      CommandRunner& act, const std::string& version);

/// Runs one command through `runner`, turning a non-zero exit into an error that shows the output.
Result<Change> run_step(CommandRunner& runner, const Argv& argv, std::chrono::seconds timeout);

}  // namespace rgpu::installers
