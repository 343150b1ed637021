#pragma once
// External programs (apt-get, dnf, zypper, nvidia-ctk, systemctl) run through one interface:
// found on PATH, so tests put recording fakes first; with a timeout; output captured so a
// failure can show it. A dry run records the commands instead of running them.

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "core/result.h"

namespace rgpu {

using Argv = std::vector<std::string>;

struct CommandResult {
  int exit_code = 0;
  std::string output;     ///< stdout and stderr, interleaved as written
  bool performed = true;  ///< false when a dry run only recorded the command
};

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  /// Runs argv (argv[0] looked up on PATH, unless it holds a '/') with `env` added to this process's environment.
  /// A non-zero exit is a result; failing to start or running past `timeout` is an error.
  Result<CommandResult> run(const Argv& argv, std::chrono::seconds timeout,
                            const std::map<std::string, std::string>& env = {}) {
    return do_run(argv, timeout, env);
  }

 protected:
  virtual Result<CommandResult> do_run(const Argv& argv, std::chrono::seconds timeout,
                                       const std::map<std::string, std::string>& env) = 0;
};

/// Runs programs for real, through Boost.Process.
class ProcessRunner final : public CommandRunner {
 protected:
  Result<CommandResult> do_run(const Argv& argv, std::chrono::seconds timeout,
                               const std::map<std::string, std::string>& env) override;
};

/// Runs nothing: records each command and answers success with no output.
class DryRunRunner final : public CommandRunner {
 public:
  const std::vector<Argv>& commands() const { return commands_; }

 protected:
  Result<CommandResult> do_run(const Argv& argv, std::chrono::seconds timeout,
                               const std::map<std::string, std::string>& env) override;

 private:
  std::vector<Argv> commands_;
};

/// The command as a person would type it, arguments quoted where the shell needs it.
std::string command_line(const Argv& argv);

}  // namespace rgpu
