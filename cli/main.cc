// rediacc-gpu: the subcommand table and dispatch. Everything else lives in cmd_<verb>.cc.

#include <exception>
#include <iostream>
#include <vector>

#include "cli/command.h"

namespace rgpu::cli {
namespace {

constexpr Command kCommands[] = {
    {"setup", "Make this machine ready: probe, NVIDIA toolkit and spec, our specs, units, inventory.", attach_setup},
    {"probe", "Find this machine's GPUs and write /etc/rediacc/gpu/inventory.json.", attach_probe},
    {"list", "Show the GPUs of the recorded inventory and their grantable CDI names.", attach_list},
    {"cdi", "Generate rediacc.io CDI specs, or list every CDI name of this machine.", attach_cdi},
    {"grant", "Grant one exact CDI name to one repository.", attach_grant},
    {"revoke", "Revoke a repository's grant of a CDI name.", attach_revoke},
    {"grants", "List the grants in force, with names that reach the same device.", attach_grants},
    {"admit", "Decide one Docker API request (AuthZPlugin.AuthZReq on stdin) for a repository.", attach_admit},
    {"doctor", "Check the chain from driver to container, layer by layer, and say what to do.", attach_doctor},
    {"metrics", "Write the doctor's findings and GPU counts for node_exporter's textfile collector.", attach_metrics},
    {"authz-plugin", "Serve a repository's dockerd as its authorization plugin (--authorization-plugin).",
     attach_authz_plugin},
    {"completion", "Print the bash completion script: source <(rediacc-gpu completion bash).", attach_completion},
};

int run(int argc, char** argv) {
  CLI::App app{"rediacc-gpu: provisions GPU hosts for containers and guards who may use which GPU."};
  app.set_version_flag("--version", std::string(RGPU_VERSION));
  app.require_subcommand(1);
  GlobalOptions global;
  app.add_option("--root", global.root, "Directory that stands for / on the machine (for tests and images)")
      ->check(CLI::ExistingDirectory);
  std::vector<std::pair<CLI::App*, Runner>> runners;
  for (const auto& cmd : kCommands) {
    CLI::App* sub = app.add_subcommand(cmd.name, cmd.summary);
    runners.emplace_back(sub, cmd.attach(*sub, global));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  for (auto& [sub, runner] : runners) {
    if (sub->parsed()) return runner();
  }
  return kExitUsage;
}

}  // namespace

int report_failure(const Error& error) {
  std::cerr << "rediacc-gpu: " << error.message << "\n";
  return kExitFailure;
}

void add_root_option(CLI::App& sub, GlobalOptions& global) {
  sub.add_option("--root", global.root, "Directory that stands for / on the machine (default /)")
      ->check(CLI::ExistingDirectory);
}

}  // namespace rgpu::cli

int main(int argc, char** argv) {
  try {
    return rgpu::cli::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "rediacc-gpu: " << e.what() << "\n";
    return rgpu::cli::kExitFailure;
  }
}
