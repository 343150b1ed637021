#include "core/command_runner.h"

#include <unistd.h>

#include <boost/process.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace bp = boost::process;

namespace rgpu {
namespace {

std::string slurp_and_remove(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  ::unlink(path.c_str());
  return ss.str();
}

// Boost 1.74's child::wait_for can miss the child's exit and sleep the whole timeout, so poll
// waitpid (through running()) with a short, growing pause instead.
bool wait_until_exit(bp::child& child, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::microseconds(50);
  while (child.running()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(10000));
  }
  return true;
}

}  // namespace

Result<CommandResult> ProcessRunner::do_run(const Argv& argv, std::chrono::seconds timeout,
                                            const std::map<std::string, std::string>& env) {
  if (argv.empty()) return fail("internal error: an empty command line.");
  // A path is run as it is; a name is looked up on PATH.
  auto program = argv[0].find('/') != std::string::npos ? boost::filesystem::path(argv[0]) : bp::search_path(argv[0]);
  if (program.empty()) return fail(argv[0] + " was not found on PATH; install it or fix PATH.");
  std::string out = (std::filesystem::temp_directory_path() / "rgpu-cmd.XXXXXX").string();
  int fd = ::mkstemp(out.data());
  if (fd < 0) return fail("cannot create a temporary file for the output of " + argv[0] + ".");
  ::close(fd);
  // Extra variables go through env(1): Boost 1.74's environment lookup reads past the end of
  // shorter entries (found by ASan), so the child's environment is never edited through it.
  Argv args;
  boost::filesystem::path launcher = program;
  if (!env.empty()) {
    launcher = bp::search_path("env");
    for (const auto& [k, v] : env) args.push_back(k + "=" + v);
    args.push_back(program.string());
  }
  args.insert(args.end(), argv.begin() + 1, argv.end());
  std::error_code ec;
  bp::child child(launcher, bp::args(args), (bp::std_out & bp::std_err) > out, bp::std_in < bp::null, ec);
  if (ec) {
    ::unlink(out.c_str());
    return fail("cannot start " + command_line(argv) + ": " + ec.message() + ".");
  }
  if (!wait_until_exit(child, timeout)) {
    child.terminate();
    std::string output = slurp_and_remove(out);
    return fail(command_line(argv) + " did not finish within " + std::to_string(timeout.count()) +
                "s and was stopped. Its output:\n" + output);
  }
  return CommandResult{child.exit_code(), slurp_and_remove(out)};
}

Result<CommandResult> DryRunRunner::do_run(const Argv& argv, std::chrono::seconds,
                                           const std::map<std::string, std::string>&) {
  commands_.push_back(argv);
  return CommandResult{0, "", false};
}

std::string command_line(const Argv& argv) {
  static const char* kPlain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%";
  std::string line;
  for (const auto& arg : argv) {
    std::string word;
    if (!arg.empty() && arg.find_first_not_of(kPlain) == std::string::npos) {
      word = arg;
    } else {
      word = "'";
      for (char c : arg) word += c == '\'' ? std::string("'\\''") : std::string(1, c);
      word += "'";
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return line;
}

}  // namespace rgpu
