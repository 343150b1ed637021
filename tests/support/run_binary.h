#pragma once
// Runs the built rediacc-gpu (or any program) and captures what a user would see.

#include <map>
#include <string>
#include <vector>

namespace rgpu::test {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

using Env = std::map<std::string, std::string>;

/// Fails the test with one line naming `path` and the README's test command when a program the
/// tests need is not installed: a real program is never skipped.
void require_program(const std::string& path);

/// Runs `program` (an absolute path must exist: require_program) with `args`, stdin from
/// `input`, `env` added to this process's environment.
RunResult run_program(const std::string& program, const std::vector<std::string>& args, const std::string& input = "",
                      const Env& env = {});

/// The rediacc-gpu binary built with the tests.
std::string tool_path();

/// Runs the rediacc-gpu binary built with the tests.
RunResult run_tool(const std::vector<std::string>& args, const std::string& input = "", const Env& env = {});

}  // namespace rgpu::test
