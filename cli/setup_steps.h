#pragma once
// The steps of `setup`, in order: probe, NVIDIA toolkit, NVIDIA spec, our specs, the
// repositories' CDI views, units, inventory. Each returns a one-line outcome and appends what it changed (or, in a dry
// run, would change) to the context.

#include <string>
#include <vector>

#include "core/change.h"
#include "core/command_runner.h"
#include "core/file_sink.h"
#include "core/result.h"
#include "core/root_fs.h"
#include "probe/probe.h"

namespace rgpu::cli {

enum class ToolkitMode { automatic, always, never };

struct SetupOptions {
  ToolkitMode mode = ToolkitMode::automatic;
  std::string toolkit_version;
  bool toolkit_exact = false;  ///< the operator named the version: exactly it, even below what is installed
  std::string repo_daemon_unit;
  std::string tool_path;  ///< this binary, as the units will run it
  bool dry_run = false;
  std::vector<std::string> nvidia_disabled_hooks = {};  ///< passed to nvidia-ctk cdi generate --disable-hook
};

/// The hooks an earlier setup recorded as disabled (in units::kNvidiaRefreshEnv), or none.
std::vector<std::string> recorded_disabled_hooks(const RootFs& fs);

struct SetupContext {
  const RootFs& fs;
  FileSink& sink;
  CommandRunner& query;  ///< read-only commands: run for real even in a dry run
  CommandRunner& act;    ///< commands that change the machine
  SetupOptions options;
  probe::ProbeReport report{};
  bool nvidia_wanted = false;  ///< the toolkit is installed (or kept) by this setup
  Changes changes{};           ///< what the current step changed
};

struct SetupStep {
  const char* id;     ///< stable, for scripts: "nvidia-toolkit"
  const char* title;  ///< for people: "NVIDIA Container Toolkit"
  /// Steps whose failure leaves this one nothing to work on (the others still run).
  std::vector<const char*> needs;
  /// The ways out when this step fails, beside the error itself; empty when the error says it.
  const char* way_out;
  Result<std::string> (*run)(SetupContext& ctx);
};

/// The steps, in the order they must run.
const std::vector<SetupStep>& setup_steps();

}  // namespace rgpu::cli
