#include "tests/support/run_binary.h"
#include "tests/support/build_paths.h"

#include <boost/process.hpp>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "tests/support/fixture_root.h"

namespace bp = boost::process;

namespace rgpu::test {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

void require_program(const std::string& path) {
  if (!std::filesystem::exists(path)) {
    FAIL(path +
         " is not installed: the tests need it; install every test dependency with `bash scripts/setup.sh test`");
  }
}

RunResult run_program(const std::string& program, const std::vector<std::string>& args, const std::string& input,
                      const Env& env) {
  if (program.starts_with("/")) require_program(program);
  FixtureRoot scratch;  // files, not pipes: no deadlock however much either stream says
  const auto in = scratch.path() / "stdin", out = scratch.path() / "stdout", err = scratch.path() / "stderr";
  std::ofstream(in, std::ios::binary) << input;
  // Variables go through env(1): Boost 1.74's environment lookup over-reads (see command_runner.cc).
  std::vector<std::string> all;
  for (const auto& [k, v] : env) all.push_back(k + "=" + v);
  all.push_back(program);
  all.insert(all.end(), args.begin(), args.end());
  const std::string in_path = in.string(), out_path = out.string(), err_path = err.string();
  bp::child child(std::string("/usr/bin/env"), bp::args(all), bp::std_in<in_path, bp::std_out> out_path,
                  bp::std_err > err_path);
  child.wait();
  return RunResult{child.exit_code(), slurp(out), slurp(err)};
}

std::string tool_path() { return built_tool(); }

RunResult run_tool(const std::vector<std::string>& args, const std::string& input, const Env& env) {
  return run_program(tool_path(), args, input, env);
}

}  // namespace rgpu::test
