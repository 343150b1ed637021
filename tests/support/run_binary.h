#pragma once
// Runs the built rediacc-gpu (or any program) and captures what a user would see.

#include <string>
#include <vector>

namespace rgpu::test {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs `program` with `args`, stdin from `input`; waits for it.
RunResult run_program(const std::string& program, const std::vector<std::string>& args, const std::string& input = "");

/// Runs the rediacc-gpu binary built with the tests.
RunResult run_tool(const std::vector<std::string>& args, const std::string& input = "");

}  // namespace rgpu::test
