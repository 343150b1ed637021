// rediacc-gpu: the subcommand table and dispatch. Everything else lives in cmd_<verb>.cc.

#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string_view>
#include <vector>

#include "cli/command.h"
#include "cli/help_text.h"
#include "cli/version.h"
#include "core/edit_distance.h"
#include "runtime/verifier.h"

namespace rgpu::cli {
namespace {

constexpr Command kCommands[] = {
    {"setup", "Make this machine ready: probe, NVIDIA toolkit and spec, our specs, units, inventory.", attach_setup,
     "rediacc-gpu setup\n"
     "rediacc-gpu setup --install-nvidia-toolkit=false --dry-run\n"
     "rediacc-gpu setup --forget-gpu 0000:41:00.0\n"
     "rediacc-gpu setup -o json | jq .changed"},
    {"probe", "Find this machine's GPUs and write /etc/rediacc/gpu/inventory.json.", attach_probe,
     "rediacc-gpu probe\n"
     "rediacc-gpu probe --root /srv/images/gpu-node"},
    {"list", "Show the GPUs of the recorded inventory and their grantable CDI names.", attach_list,
     "rediacc-gpu list\n"
     "rediacc-gpu list -o json | jq '.gpus[].name'"},
    {"cdi", "Generate rediacc.io CDI specs, or list every CDI name of this machine.", attach_cdi,
     "rediacc-gpu cdi list\n"
     "rediacc-gpu cdi generate\n"
     "rediacc-gpu cdi views"},
    {"grant", "Grant one exact CDI name to one repository.", attach_grant,
     "rediacc-gpu grant team-a --device nvidia.com/gpu=0\n"
     "rediacc-gpu grant ml --device rediacc.io/amd=gpu1 --exclusive"},
    {"revoke", "Revoke a repository's grant of a CDI name.", attach_revoke,
     "rediacc-gpu revoke team-a --device nvidia.com/gpu=0"},
    {"grants", "List the grants in force (with names that reach the same GPU), or apply a file of them.", attach_grants,
     "rediacc-gpu grants\n"
     "rediacc-gpu grants team-a -o json\n"
     "rediacc-gpu grants apply /etc/rediacc/gpu/grants.desired.json --prune -o json"},
    {"admit", "Decide one Docker API request (AuthZPlugin.AuthZReq on stdin) for a repository.", attach_admit,
     "rediacc-gpu admit --repo team-a < authz-request.json\n"
     "rediacc-gpu admit --repo team-a --jsonl < requests.jsonl"},
    {"doctor", "Check the chain from driver to container, layer by layer, and say what to do.", attach_doctor,
     "rediacc-gpu doctor\n"
     "rediacc-gpu doctor --repo team-a --image nvidia/cuda:12.4.1-base-ubuntu22.04 "
     "--docker-host unix:///run/team-a/docker.sock"},
    {"check-image", "Say whether this host's NVIDIA driver gives the CUDA an image needs; exit 1 when not.",
     attach_check_image,
     "rediacc-gpu check-image nvidia/cuda:12.4.1-base-ubuntu22.04\n"
     "rediacc-gpu check-image vllm/vllm-openai:v0.23.0 --docker-host unix:///run/team-a/docker.sock"},
    {"usage", "Show which processes, containers and repositories use each GPU now, and how much.", attach_usage,
     "rediacc-gpu usage\n"
     "rediacc-gpu usage -o json | jq '.gpus[] | {pci_address, processes: [.processes[].repository]}'"},
    {"canary",
     "Run one short container per granted name through a repository's own daemon; exit 1 when one lacks "
     "its device.",
     attach_canary,
     "rediacc-gpu canary --repo team-a\n"
     "rediacc-gpu canary --repo team-a --device nvidia.com/gpu=0 --image nvidia/cuda:12.4.1-base-ubuntu22.04\n"
     "systemctl enable --now rediacc-gpu-canary@team-a.timer"},
    {"metrics", "Write the doctor's findings and GPU counts for node_exporter's textfile collector.", attach_metrics,
     "rediacc-gpu metrics --textfile /var/lib/prometheus/node-exporter/rediacc-gpu.prom"},
    {"authz-plugin", "Serve a repository's dockerd as its authorization plugin (--authorization-plugin).",
     attach_authz_plugin,
     "systemctl enable --now rediacc-gpu-authz@team-a.socket\n"
     "rediacc-gpu authz-plugin --repo team-a --socket /run/docker/plugins/rediacc-gpu-team-a.sock"},
    {"completion", "Print the bash completion script: source <(rediacc-gpu completion bash).", attach_completion,
     "source <(rediacc-gpu completion bash)\n"
     "autoload -U bashcompinit && bashcompinit && source <(rediacc-gpu completion bash)   # zsh"},
};

// "Examples:" then each command indented, as the last lines of a subcommand's --help.
std::string examples_footer(const char* examples) {
  std::string out = "\nExamples:\n";
  std::string_view rest = examples;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    out += "  " + std::string(rest.substr(0, nl)) + "\n";
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  }
  return out;
}

// Each command's description (cli/help) before what its --help already ends with, nested
// commands included: the man page and docs/manual.md are made from these texts.
void add_descriptions(CLI::App& app, const std::string& path) {
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    const std::string at = path.empty() ? sub->get_name() : path + " " + sub->get_name();
    if (const auto text = help_text(at); !text.empty())
      sub->footer("\nDescription:\n" + help_footer(text) + sub->get_footer());
    add_descriptions(*sub, at);
  }
}

// The first word that is not an option (or --root's value): the subcommand the user meant.
std::optional<std::string> command_word(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--root") {
      ++i;
      continue;
    }
    if (a.starts_with("-")) continue;
    return std::string(a);
  }
  return std::nullopt;
}

// "unknown command 'lst'; did you mean 'list'?" rather than CLI11's "A subcommand is required".
std::optional<std::string> unknown_command(int argc, char** argv) {
  const auto word = command_word(argc, argv);
  if (!word) return std::nullopt;
  std::string best;
  std::size_t best_distance = 3;  // further than 2 edits is not a typo
  std::string all;
  for (const auto& cmd : kCommands) {
    if (*word == cmd.name) return std::nullopt;
    const auto d = edit_distance(*word, cmd.name);
    if (d < best_distance) best_distance = d, best = cmd.name;
    all += std::string(all.empty() ? "" : ", ") + cmd.name;
  }
  if (!best.empty()) return "unknown command '" + *word + "'; did you mean '" + best + "'?";
  return "unknown command '" + *word + "'; the commands are " + all + " (rediacc-gpu --help)";
}

int run(int argc, char** argv) {
  CLI::App app{"rediacc-gpu: provisions GPU hosts for containers and guards who may use which GPU."};
  app.name("rediacc-gpu");  // usage lines name the tool, not the path it was started from
  app.set_version_flag("--version", std::string("rediacc-gpu ") + cli::version_text());
  // Usage errors read like every other error: one line, prefixed, then where help is.
  app.failure_message([](const CLI::App* failed, const CLI::Error& e) {
    return "rediacc-gpu: " + std::string(e.what()) + "\nRun " + failed->get_name() + " --help for more information.\n";
  });
  app.require_subcommand(1);
  GlobalOptions global;
  app.add_option("--root", global.root, "Directory that stands for / on the machine (for tests and images)")
      ->check(CLI::ExistingDirectory)
      ->check(machine_root());
  std::vector<std::pair<CLI::App*, Runner>> runners;
  for (const auto& cmd : kCommands) {
    CLI::App* sub = app.add_subcommand(cmd.name, cmd.summary);
    sub->footer(examples_footer(cmd.examples));
    runners.emplace_back(sub, cmd.attach(*sub, global));
  }
  app.footer("\nDescription:\n" + help_footer(help_text("general")));
  add_descriptions(app, "");
  if (auto unknown = unknown_command(argc, argv)) {
    return report_usage({*unknown});
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

void print_error(const std::string& message) { std::cerr << "rediacc-gpu: " << message << "\n"; }

void print_warning(const std::string& message) { std::cerr << "warning: " << message << "\n"; }

int report_failure(const Error& error) {
  print_error(error.message);
  return kExitFailure;
}

int report_usage(const Error& error) {
  print_error(error.message);
  return kExitUsage;
}

}  // namespace rgpu::cli

int main(int argc, char** argv) {
  try {
    // Run as runc (setup's kRuntimeDir/runc links here): the verifier in front of the machine's runc.
    if (argc > 0 && std::filesystem::path(argv[0]).filename() == "runc")
      return rgpu::runtime::run_as_runc(std::vector<std::string>(argv, argv + argc));
    return rgpu::cli::run(argc, argv);
  } catch (const std::exception& e) {
    return rgpu::cli::report_failure({e.what()});
  }
}
