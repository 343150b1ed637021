#include "setup/run.h"

#include <algorithm>

namespace rgpu::setup {
namespace {

// A step is blocked when one it needs failed or was itself blocked.
const char* blocker(const SetupStep& step, const std::vector<std::string>& broken) {
  for (const char* need : step.needs) {
    if (std::find(broken.begin(), broken.end(), need) != broken.end()) return need;
  }
  return nullptr;
}

const char* title_of(const std::string& id) {
  for (const auto& s : setup_steps()) {
    if (s.id == id) return s.title;
  }
  return id.c_str();
}

std::string failure_message(const SetupStep& step, const Error& error) {
  std::string message = "setup step \"" + std::string(step.title) + "\" failed: " + error.message;
  if (!*step.way_out) return message;
  if (!message.ends_with("\n")) message += '\n';
  message += "  way out: ";
  message += step.way_out;
  return message;
}

}  // namespace

bool SetupRun::changed() const {
  return std::any_of(steps.begin(), steps.end(), [](const StepReport& s) { return any_change(s.changes); });
}

std::vector<std::string> SetupRun::failed() const {
  std::vector<std::string> ids;
  for (const auto& s : steps) {
    if (s.status == StepReport::Status::failed) ids.emplace_back(s.step->id);
  }
  return ids;
}

std::string SetupRun::failure_summary() const {
  const auto ids = failed();
  if (ids.empty()) return "";
  std::string names;
  for (const auto& id : ids) names += (names.empty() ? "\"" : ", \"") + std::string(title_of(id)) + "\"";
  const bool blocked = std::any_of(steps.begin(), steps.end(),
                                   [](const StepReport& s) { return s.status == StepReport::Status::blocked; });
  return "setup finished every step it could, but " + names + " failed" +
         (blocked ? " (and what needs it did not run)" : "") + "; run setup again once it is fixed.";
}

SetupRun run_setup(const RootFs& fs, FileSink& sink, CommandRunner& query, CommandRunner& act,
                   const SetupOptions& options, SetupObserver* observer) {
  ChangeLog log(sink, act, [observer](const Argv& argv) {
    if (observer) observer->command_starts(argv);
  });
  SetupContext ctx{fs, query, log, options};
  const auto& steps = setup_steps();
  SetupRun run;
  std::vector<std::string> broken;  // ids: failed or blocked
  for (size_t i = 0; i < steps.size(); ++i) {
    const auto& step = steps[i];
    if (observer) observer->step_begins(i, steps.size(), step);
    log.clear();
    StepReport report;
    report.step = &step;
    if (const char* need = blocker(step, broken)) {
      report.status = StepReport::Status::blocked;
      report.outcome = std::string("not run: step \"") + title_of(need) + "\" failed";
      broken.emplace_back(step.id);
    } else {
      const auto start = std::chrono::steady_clock::now();
      auto outcome = step.run(ctx);
      report.took = std::chrono::steady_clock::now() - start;
      report.changes = log.changes();
      report.outcome = outcome ? *outcome : "failed";
      if (!outcome) {
        report.status = StepReport::Status::failed;
        report.error = failure_message(step, outcome.error());
        report.ran = log.started();
        broken.emplace_back(step.id);
      }
    }
    if (observer) observer->step_ends(report);
    run.steps.push_back(std::move(report));
  }
  run.warnings = ctx.report.warnings;
  run.moved_grants = ctx.moved_grants;
  return run;
}

}  // namespace rgpu::setup
