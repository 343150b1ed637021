#pragma once
// One setup: every step in order, a step whose needed step failed is blocked rather than run,
// and each step's outcome and change log is kept for the caller to print. Prints nothing.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/command_runner.h"
#include "core/file_sink.h"
#include "core/root_fs.h"
#include "setup/steps.h"

namespace rgpu::setup {

struct StepReport {
  enum class Status { ok, failed, blocked };
  const SetupStep* step = nullptr;
  Status status = Status::ok;
  /// ok: the step's line ("2 GPUs, platform native"); blocked: which step it waited on; failed: "failed".
  std::string outcome;
  std::optional<std::string> error;  ///< failed: the error, with the step's way out
  Changes changes;                   ///< what it changed or, in a dry run, would change
  std::vector<std::string> ran;      ///< every command it started, failed ones included
  std::chrono::steady_clock::duration took{};
};

struct SetupRun {
  std::vector<StepReport> steps;
  std::vector<std::string> warnings;
  std::vector<grants::GrantMove> moved_grants;  ///< grants whose names the new specs point at other hardware
  /// True when some step's change list holds more than `unchanged`.
  bool changed() const;
  /// The ids of the steps that failed (not those blocked).
  std::vector<std::string> failed() const;
  /// Empty when every step ran; else one sentence naming the failed steps and what to do.
  std::string failure_summary() const;
};

/// Told as the run goes, so progress can be shown while a step (a slow apt) runs.
class SetupObserver {
 public:
  virtual ~SetupObserver() = default;
  virtual void step_begins(size_t index, size_t count, const SetupStep& step) = 0;
  virtual void command_starts(const Argv& argv) = 0;
  virtual void step_ends(const StepReport& report) = 0;
};

/// Runs every step against the machine under `fs`. Changes go to `sink` and `act`: the machine's,
/// or a dry run's, which this code cannot tell apart; `query` runs read-only commands for real.
SetupRun run_setup(const RootFs& fs, FileSink& sink, CommandRunner& query, CommandRunner& act,
                   const SetupOptions& options, SetupObserver* observer = nullptr);

}  // namespace rgpu::setup
