// rediacc-gpu setup: one idempotent run that leaves the machine ready, step by step.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/change_lines.h"
#include "cli/command.h"
#include "cli/output_format.h"
#include "core/file_lock.h"
#include "core/state_paths.h"
#include "installers/nvidia_toolkit.h"
#include "probe/sysfs_parsers.h"
#include "setup/defaults.h"
#include "setup/run.h"

namespace rgpu::cli {
namespace {

// 2: step ids, status, ran, failed_steps and would_change.
constexpr int kSetupJsonSchema = 2;

struct SetupFlags {
  std::string mode = "auto";
  std::string version = installers::kDefaultToolkitVersion;
  std::string repo_daemon_unit = "auto";
  std::string host_policy = "auto";
  std::string tool_path;
  OutputFormat output = OutputFormat::text;
  bool dry_run = false;
  bool exact_version = false;              ///< --nvidia-toolkit-version was given
  std::vector<std::string> disable_hooks;  ///< empty: keep what an earlier setup recorded
  std::vector<std::string> forget_gpus;    ///< PCI addresses as given (checked, not yet canonical)
  std::vector<std::string> bind_roots;     ///< empty: keep what an earlier setup recorded
};

// nvidia-ctk's hook names (NVIDIA Container Toolkit 1.18-1.20, cdi-support.md), "all", and
// "none", which clears what an earlier setup recorded.
const std::vector<std::string> kNvidiaHooks = {"create-symlinks",
                                               "disable-device-node-modification",
                                               "enable-cuda-compat",
                                               "update-application-profile",
                                               "update-ldcache",
                                               "chmod",
                                               "all",
                                               "none"};

std::string seconds(std::chrono::steady_clock::duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fs", std::chrono::duration<double>(d).count());
  return buf;
}

// The text progress: a step's header is written (and flushed) before it runs; a command it starts
// goes on a line of its own as it starts, and then the header is repeated with the outcome.
class Progress final : public setup::SetupObserver {
 public:
  Progress(bool quiet, bool dry_run, const RootFs& fs) : quiet_(quiet), dry_run_(dry_run), fs_(fs) {}
  void step_begins(size_t index, size_t count, const setup::SetupStep& step) override {
    header_ = "[" + std::to_string(index + 1) + "/" + std::to_string(count) + "] " + step.title + " ... ";
    if (quiet_) return;
    std::cout << header_ << std::flush;
    open_ = true;
    echoed_ = false;
  }
  void command_starts(const Argv& argv) override {
    if (quiet_ || dry_run_) return;
    if (open_) std::cout << "\n";
    open_ = false;
    echoed_ = true;
    std::cout << "      run " << command_line(argv) << std::endl;
  }
  void step_ends(const setup::StepReport& report) override {
    print(report);
    if (report.error) print_error(*report.error);  // at once, not after the steps that follow
  }

 private:
  void print(const setup::StepReport& report) {
    if (quiet_) return;
    const bool ok = report.status == setup::StepReport::Status::ok;
    std::cout << (open_ ? "" : header_) << report.outcome << (ok ? " " + seconds(report.took) : "") << "\n";
    open_ = false;
    for (const auto& line : change_lines(fs_, report.changes, {.dry_run = dry_run_, .runs = !echoed_}))
      std::cout << "      " << line << "\n";
  }

  bool quiet_, dry_run_;
  const RootFs& fs_;
  std::string header_;
  bool open_ = false, echoed_ = false;
};

// One step of `setup -o json`: paths are machine paths (the object names the root once). In a
// dry run nothing changed: "changed" is false and "would_change" says what the run would do.
nlohmann::json step_json(const setup::StepReport& r, bool dry_run) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& c : r.changes) {
    if (c.kind == Change::Kind::unchanged) continue;
    list.push_back(c.kind == Change::Kind::run ? nlohmann::json{{"action", "run"}, {"command", c.target}}
                                               : nlohmann::json{{"action", to_string(c.kind)}, {"path", c.target}});
  }
  const char* status = r.status == setup::StepReport::Status::ok       ? "ok"
                       : r.status == setup::StepReport::Status::failed ? "failed"
                                                                       : "blocked";
  nlohmann::json out = {{"id", r.step->id},
                        {"step", r.step->title},
                        {"status", status},
                        {"outcome", r.outcome},
                        {"seconds", std::chrono::duration<double>(r.took).count()},
                        {"changed", !dry_run && !list.empty()},
                        {"changes", list}};
  if (dry_run) out["would_change"] = !list.empty();
  if (r.error) {
    out["ran"] = r.ran;
    out["error"] = *r.error;
  }
  return out;
}

int run_setup(const GlobalOptions& global, const SetupFlags& flags) {
  const bool json = flags.output == OutputFormat::json;
  if (auto ok = installers::check_toolkit_version(flags.version); !ok) {
    return report_usage(ok.error());
  }
  RootFs fs(global.root);
  std::optional<FileLock> lock;  // a second setup waits here, then finds nothing to do
  if (!flags.dry_run) {
    auto locked = FileLock::acquire(fs, state::kSetupLock, [](std::optional<long> pid) {
      std::cerr << "waiting for another rediacc-gpu setup"
                << (pid ? " (pid " + std::to_string(*pid) + ")" : std::string()) << " to finish..." << std::endl;
    });
    if (!locked) return report_failure(locked.error());
    lock.emplace(std::move(*locked));
  }
  auto policy = setup::host_policy(fs, flags.host_policy, flags.bind_roots);
  if (!policy) return report_failure(policy.error());
  Progress progress(json, flags.dry_run, fs);
  MachineFileSink machine_sink(fs);
  DryRunFileSink dry_sink(fs);
  ProcessRunner processes;
  DryRunRunner dry_runner;
  setup::SetupOptions options{.mode = flags.mode == "true"    ? setup::ToolkitMode::always
                                      : flags.mode == "false" ? setup::ToolkitMode::never
                                                              : setup::ToolkitMode::automatic,
                              .toolkit_version = flags.version,
                              .toolkit_exact = flags.exact_version,
                              .repo_daemon_unit = setup::repo_daemon_unit(fs, flags.repo_daemon_unit),
                              .tool_path = setup::unit_tool_path(fs, flags.tool_path),
                              .nvidia_disabled_hooks = setup::disabled_hooks(fs, flags.disable_hooks),
                              .host_policy = std::move(*policy),
                              .dry_run = flags.dry_run};
  for (const auto& address : flags.forget_gpus) options.forget_gpus.push_back(*probe::canonical_pci_address(address));
  FileSink& sink = flags.dry_run ? static_cast<FileSink&>(dry_sink) : machine_sink;
  CommandRunner& act = flags.dry_run ? static_cast<CommandRunner&>(dry_runner) : processes;
  const auto run = setup::run_setup(fs, sink, processes, act, options, &progress);
  nlohmann::json result = {{"schema", kSetupJsonSchema}, {"root", fs.root().string()},
                           {"dry_run", flags.dry_run},   {"ok", true},
                           {"changed", false},           {"steps", nlohmann::json::array()}};
  if (flags.dry_run) result["would_change"] = false;
  for (const auto& step : run.steps) result["steps"].push_back(step_json(step, flags.dry_run));
  if (run.changed()) result[flags.dry_run ? "would_change" : "changed"] = true;
  result["warnings"] = run.warnings;
  result["moved_grants"] = nlohmann::json::array();
  for (const auto& m : run.moved_grants) {
    result["moved_grants"].push_back({{"repo", m.grant.repo},
                                      {"device", m.grant.device},
                                      {"granted_on", m.grant.hardware.value_or(std::vector<std::string>{})},
                                      {"now", m.now}});
    if (!m.unreadable.empty()) result["moved_grants"].back()["unreadable"] = m.unreadable;
  }
  for (const auto& w : run.warnings) print_warning(w);
  int exit_code = kExitOk;
  if (const auto failed = run.failed(); !failed.empty()) {
    const std::string summary = run.failure_summary();
    print_error(summary);
    result["ok"] = false;
    const auto first = std::find_if(run.steps.begin(), run.steps.end(), [](const auto& s) { return s.error; });
    result["error"] = failed.size() == 1 ? *first->error : summary;
    result["failed_steps"] = failed;
    exit_code = kExitFailure;
  }
  if (json) {
    std::cout << result.dump(2) << "\n";
  } else if (flags.dry_run && exit_code == kExitOk) {
    std::cout << "dry run: nothing was changed\n";
  }
  return exit_code;
}

}  // namespace

Runner attach_setup(CLI::App& sub, GlobalOptions& global) {
  add_root_option(sub, global);
  auto flags = std::make_shared<SetupFlags>();
  sub.add_option("--install-nvidia-toolkit", flags->mode,
                 "auto: install it when an NVIDIA GPU is present; true: always; false: never (no NVIDIA spec)")
      ->check(CLI::IsMember({"auto", "true", "false"}));
  sub.add_option("--nvidia-toolkit-version", flags->version,
                 "Install exactly this version of nvidia-container-toolkit-base (1.18.0 or later); without it, the "
                 "default is a floor: an installed version at or above it is kept")
      ->capture_default_str()
      ->each([flags](const std::string&) { flags->exact_version = true; });
  sub.add_option("--repo-daemon-unit", flags->repo_daemon_unit,
                 "systemd unit of the repositories' Docker daemons, given the persistenced socket and the CDI view: "
                 "a template (rediacc-docker@.service) or a name prefix (rediacc-docker-.service, renet's units); "
                 "auto: the prefix where renet's units or sockets are found, else the template")
      ->capture_default_str();
  sub.add_option("--host-policy", flags->host_policy,
                 "What the gate allows beyond its absolute refusals: rediacc (host networking, the checkpoint "
                 "capabilities, /dev/net/tun and checkpoints, as Rediacc runs its services), strict, or auto: rediacc "
                 "where renet's units or sockets are found, else strict; recorded in /etc/rediacc/gpu/host-policy.json")
      ->check(CLI::IsMember({"auto", "rediacc", "strict"}))
      ->capture_default_str();
  sub.add_option("--bind-root", flags->bind_roots,
                 "A host directory the repositories' containers may bind from, PATH or PATH:ro (read-only binds "
                 "only); {repo} stands for the repository, {id} and {mount} for its network id and mount on a Rediacc "
                 "machine (repeatable); no system directory. Recorded, so later setups keep them; default goes back "
                 "to the host policy's own (rediacc: {mount}, /run/rediacc/secrets/{id}, "
                 "/opt/rediacc/proxy/letsencrypt:ro; strict: /srv/rediacc-gpu/{repo})")
      ->check([](const std::string& r) {
        if (r == "default") return std::string();
        const auto root = parse_bind_root(r);
        return root ? std::string() : root.error().message;
      })
      ->take_all();
  sub.add_option("--tool-path", flags->tool_path,
                 "Absolute path the units run rediacc-gpu at (default: this binary; under --root, its path in that "
                 "root when it runs from there, else /usr/bin/rediacc-gpu)")
      ->check([](const std::string& p) { return p.starts_with("/") ? std::string() : "must be an absolute path"; });
  sub.add_option("--nvidia-disable-hook", flags->disable_hooks,
                 "Leave this nvidia-ctk hook out of the NVIDIA spec (repeatable; e.g. enable-cuda-compat, or all); "
                 "recorded, so every regeneration and later setup keeps it; none clears it")
      ->check(CLI::IsMember(kNvidiaHooks))
      ->take_all();
  sub.add_option("--forget-gpu", flags->forget_gpus,
                 "PCI address of a GPU the inventory keeps as missing that was removed on purpose: leave it out of the "
                 "inventory, so doctor and metrics stop reporting it lost (repeatable)")
      ->check([](const std::string& a) {
        return probe::canonical_pci_address(a) ? std::string() : "must be a PCI address such as 0000:41:00.0";
      })
      ->take_all();
  sub.add_flag("--dry-run", flags->dry_run, "Print the plan and change nothing");
  add_output_option(sub, flags->output, {OutputFormat::text, OutputFormat::json},
                    "text: each step as it runs; json: one object at the end (steps, changes, changed, warnings)");
  return [&global, flags] { return run_setup(global, *flags); };
}

}  // namespace rgpu::cli
