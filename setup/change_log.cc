#include "setup/change_log.h"

#include <algorithm>

namespace rgpu::setup {

ChangeLog::ChangeLog(FileSink& sink, CommandRunner& act, std::function<void(const Argv&)> on_start)
    : inner_sink_(sink),
      on_start_(std::move(on_start)),
      sink_(sink, changes_),
      act_(*this, act, true),
      scratch_(*this, act, false) {}

bool any_change(const Changes& changes) {
  return std::any_of(changes.begin(), changes.end(), [](const Change& c) { return c.kind != Change::Kind::unchanged; });
}

void ChangeLog::clear() {
  changes_.clear();
  started_.clear();
}

Result<Change> ChangeLog::LoggedSink::logged(Result<Change> change) {
  if (change) {
    std::lock_guard<std::mutex> hold(mutex_);
    log_.push_back(*change);
  }
  return change;
}

Result<Change> ChangeLog::LoggedSink::write(std::string_view machine_path, std::string_view content, mode_t mode) {
  return logged(inner_.write(machine_path, content, mode));
}

Result<Change> ChangeLog::LoggedSink::remove(std::string_view machine_path) {
  return logged(inner_.remove(machine_path));
}

Result<Change> ChangeLog::LoggedSink::link(std::string_view machine_path, std::string_view target) {
  return logged(inner_.link(machine_path, target));
}

Result<CommandResult> ChangeLog::LoggedRunner::do_run(const Argv& argv, std::chrono::seconds timeout,
                                                      const std::map<std::string, std::string>& env) {
  log_.started_.push_back(command_line(argv));
  if (log_.on_start_) log_.on_start_(argv);
  auto result = inner_.run(argv, timeout, env);
  if (appends_ && result && result->exit_code == 0)
    log_.changes_.push_back({Change::Kind::run, command_line(argv), ""});
  return result;
}

}  // namespace rgpu::setup
