#pragma once
// What one setup step changed (or, in a dry run, would change), whichever library made the
// change: every write and removal through sink() and every command through act() is appended as
// it happens, so no step or library hands its changes back by hand. Dry run or not is the sink's
// and the runner's business; the log records what they answer.

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "core/change.h"
#include "core/command_runner.h"
#include "core/file_sink.h"

namespace rgpu::setup {

/// True when an entry is not `unchanged`.
bool any_change(const Changes& changes);

class ChangeLog {
 public:
  /// Every command is shown to `on_start` as it starts (progress lines; may be empty).
  ChangeLog(FileSink& sink, CommandRunner& act, std::function<void(const Argv&)> on_start = {});
  ChangeLog(const ChangeLog&) = delete;
  ChangeLog& operator=(const ChangeLog&) = delete;

  /// Writes and removals, each appended when it succeeds (`unchanged` ones too).
  FileSink& sink() { return sink_; }
  /// Commands that change the machine, each appended as a `run` when it exits 0.
  CommandRunner& act() { return act_; }
  /// Commands whose only effect is a scratch file of ours: started and shown, never appended.
  CommandRunner& scratch() { return scratch_; }
  /// A change the runner could only announce (a dry run's "as nvidia-ctk generates it").
  void plan(Change change) { changes_.push_back(std::move(change)); }
  /// For a library that writes from several threads and returns its changes in its own order
  /// (the views): the sink that logs nothing, and add() for the list it returns.
  FileSink& batch_sink() { return inner_sink_; }
  void add(const Changes& changes) { changes_.insert(changes_.end(), changes.begin(), changes.end()); }

  const Changes& changes() const { return changes_; }
  bool changed() const { return any_change(changes_); }
  /// Every command started through act() or scratch(), failed ones included, as typed.
  const std::vector<std::string>& started() const { return started_; }
  /// Empties the log for the next step.
  void clear();

 private:
  class LoggedSink final : public FileSink {
   public:
    LoggedSink(FileSink& inner, Changes& log) : inner_(inner), log_(log) {}
    Result<Change> write(std::string_view machine_path, std::string_view content, mode_t mode) override;
    Result<Change> remove(std::string_view machine_path) override;
    Result<Change> link(std::string_view machine_path, std::string_view target) override;

   private:
    Result<Change> logged(Result<Change> change);
    FileSink& inner_;
    Changes& log_;
    std::mutex mutex_;  // a library may write from several threads: the log stays whole
  };

  class LoggedRunner final : public CommandRunner {
   public:
    LoggedRunner(ChangeLog& log, CommandRunner& inner, bool appends) : log_(log), inner_(inner), appends_(appends) {}

   protected:
    Result<CommandResult> do_run(const Argv& argv, std::chrono::seconds timeout,
                                 const std::map<std::string, std::string>& env) override;

   private:
    ChangeLog& log_;
    CommandRunner& inner_;
    bool appends_;
  };

  FileSink& inner_sink_;
  Changes changes_;
  std::vector<std::string> started_;
  std::function<void(const Argv&)> on_start_;
  LoggedSink sink_;
  LoggedRunner act_;
  LoggedRunner scratch_;
};

}  // namespace rgpu::setup
