#pragma once
// The subcommand table's shape: each cmd_<verb>.cc registers its options on a CLI11 subcommand
// and returns the function that runs it.

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "core/result.h"

namespace rgpu::cli {

/// Exit codes: 0 success, 1 failure or refusal, 2 usage error.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

struct GlobalOptions {
  std::string root = "/";
};

using Runner = std::function<int()>;

struct Command {
  const char* name;
  const char* summary;
  Runner (*attach)(CLI::App& sub, GlobalOptions& global);
  const char* examples;  ///< commands an operator can paste, one per line; the end of --help
};

/// The one way a command tells its user something went wrong: "rediacc-gpu: MESSAGE" on stderr.
void print_error(const std::string& message);

/// "warning: MESSAGE" on stderr: something the user should know that did not stop the command.
void print_warning(const std::string& message);

/// Prints the error as the one line a user sees and returns kExitFailure.
int report_failure(const Error& error);

/// The same for a command line that cannot be run as given: returns kExitUsage.
int report_usage(const Error& error);

/// Checks a --root value: a directory with neither /sys nor /proc is refused (a usage error naming
/// it), since read as a machine it would pass for a healthy one with nothing on it.
CLI::Validator machine_root();

/// Adds --root DIR to a subcommand, bound to the global value, checked by machine_root.
void add_root_option(CLI::App& sub, GlobalOptions& global);

/// Adds --docker-host to a subcommand, setting `into`: "The Docker daemon at unix:///PATH or /PATH (…): "
/// then `which`, the daemon the command asks and what it does without one. A value that is no
/// unix socket is a usage error here, before the command acts.
CLI::Option* add_docker_host_option(CLI::App& sub, std::string& into, const std::string& which);

Runner attach_probe(CLI::App& sub, GlobalOptions& global);
Runner attach_list(CLI::App& sub, GlobalOptions& global);
Runner attach_cdi(CLI::App& sub, GlobalOptions& global);
Runner attach_setup(CLI::App& sub, GlobalOptions& global);
Runner attach_grant(CLI::App& sub, GlobalOptions& global);
Runner attach_revoke(CLI::App& sub, GlobalOptions& global);
Runner attach_grants(CLI::App& sub, GlobalOptions& global);
/// `grants apply`, a subcommand of `grants`; its runner answers -1 when `apply` was not given.
Runner attach_grants_apply(CLI::App& grants, GlobalOptions& global);
Runner attach_admit(CLI::App& sub, GlobalOptions& global);
Runner attach_doctor(CLI::App& sub, GlobalOptions& global);
Runner attach_check_image(CLI::App& sub, GlobalOptions& global);
Runner attach_metrics(CLI::App& sub, GlobalOptions& global);
Runner attach_usage(CLI::App& sub, GlobalOptions& global);
Runner attach_canary(CLI::App& sub, GlobalOptions& global);
Runner attach_authz_plugin(CLI::App& sub, GlobalOptions& global);
Runner attach_completion(CLI::App& sub, GlobalOptions& global);

}  // namespace rgpu::cli
