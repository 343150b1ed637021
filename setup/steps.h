#pragma once
// The steps of `setup`, in order: probe, NVIDIA toolkit, NVIDIA spec, our specs, the
// repositories' CDI views, units, inventory. Each returns a one-line outcome; what it changed (or,
// in a dry run, would change) is in the context's change log.

#include <string>
#include <vector>

#include "cdi-gen/generate.h"
#include "core/command_runner.h"
#include "core/host_policy.h"
#include "core/result.h"
#include "core/root_fs.h"
#include "core/state_paths.h"
#include "grants/hardware.h"
#include "probe/probe.h"
#include "setup/change_log.h"
#include "setup/toolkit_choice.h"

namespace rgpu::setup {

struct SetupOptions {
  ToolkitMode mode = ToolkitMode::automatic;
  std::string toolkit_version;
  bool toolkit_exact = false;  ///< the operator named the version: exactly it, even below what is installed
  std::string repo_daemon_unit;
  std::string tool_path;                                ///< this binary, as the units will run it
  std::vector<std::string> nvidia_disabled_hooks = {};  ///< passed to nvidia-ctk cdi generate --disable-hook
  /// The host policy to record (setup::host_policy); absent: none is written (library callers).
  std::optional<RecordedPolicy> host_policy = std::nullopt;
  /// Canonical PCI addresses of missing GPUs the operator removed on purpose: left out of the
  /// inventory (--forget-gpu). The probe step fails on one that is not missing.
  std::vector<std::string> forget_gpus = {};
  /// A plan: the caller hands a sink and a runner that change nothing, and each step's outcome
  /// says what the real run would do ("would write"), counted as the real run would count it.
  bool dry_run = false;
};

/// The hooks an earlier setup recorded as disabled (in state::kNvidiaRefreshEnv), or none.
std::vector<std::string> recorded_disabled_hooks(const RootFs& fs);

struct SetupContext {
  const RootFs& fs;
  CommandRunner& query;  ///< read-only commands: run for real even in a dry run
  ChangeLog& log;        ///< where every change goes, and is recorded
  SetupOptions options;
  probe::ProbeReport report{};
  ToolkitChoice toolkit = ToolkitChoice::not_needed;  ///< decided by the probe step
  std::vector<grants::GrantMove> moved_grants = {};   ///< found by the views step, once the specs are written
  cdi::GeneratedSpecs ours = {};                      ///< our specs as the specs step wrote (or planned) them
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

}  // namespace rgpu::setup
