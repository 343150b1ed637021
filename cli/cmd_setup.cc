// rediacc-gpu setup: one idempotent run that leaves the machine ready, step by step.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/setup_steps.h"
#include "core/file_lock.h"
#include "core/state_paths.h"
#include "installers/nvidia_toolkit.h"

namespace rgpu::cli {
namespace {

// 2: step ids, status, ran, failed_steps and would_change.
constexpr int kSetupJsonSchema = 2;

struct SetupFlags {
  std::string mode = "auto";
  std::string version = installers::kDefaultToolkitVersion;
  std::string repo_daemon_unit = "rediacc-docker@.service";
  std::string tool_path;
  std::string output = "text";
  bool dry_run = false;
  bool exact_version = false;              ///< --nvidia-toolkit-version was given
  std::vector<std::string> disable_hooks;  ///< empty: keep what an earlier setup recorded
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

std::vector<std::string> disabled_hooks(const RootFs& fs, const std::vector<std::string>& given) {
  if (given.empty()) return recorded_disabled_hooks(fs);
  std::vector<std::string> out;
  for (const auto& h : given) {
    if (h != "none" && std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
  }
  return out;
}

constexpr const char* kPackagedToolPath = "/usr/bin/rediacc-gpu";

// The path the units run the tool at. Under --root this binary is not that machine's: the
// package's path, unless the operator names another.
std::string unit_tool_path(const RootFs& fs, const std::string& given) {
  if (!given.empty()) return given;
  if (!fs.is_host_root()) return kPackagedToolPath;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? kPackagedToolPath : self.string();
}

std::string seconds(std::chrono::steady_clock::duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fs", std::chrono::duration<double>(d).count());
  return buf;
}

bool changed(const Changes& changes) {
  for (const auto& c : changes) {
    if (c.kind != Change::Kind::unchanged) return true;
  }
  return false;
}

// Every command a step starts, in order, failed ones included: a failed step lists what it ran,
// and the progress shows each as it starts (cloud-init's log has no other way to see a hung apt).
class WatchedRunner final : public CommandRunner {
 public:
  WatchedRunner(CommandRunner& inner, std::function<void(const Argv&)> on_start)
      : inner_(inner), on_start_(std::move(on_start)) {}
  std::vector<std::string> ran;

 protected:
  Result<CommandResult> do_run(const Argv& argv, std::chrono::seconds timeout,
                               const std::map<std::string, std::string>& env) override {
    ran.push_back(command_line(argv));
    if (on_start_) on_start_(argv);
    return inner_.run(argv, timeout, env);
  }

 private:
  CommandRunner& inner_;
  std::function<void(const Argv&)> on_start_;
};

// The text progress: a step's header is written (and flushed) before it runs; a command it starts
// goes on a line of its own as it starts, and then the header is repeated with the outcome.
class Progress {
 public:
  Progress(bool quiet, bool dry_run, const RootFs& fs) : quiet_(quiet), dry_run_(dry_run), fs_(fs) {}
  void begin(size_t index, size_t count, const char* title) {
    header_ = "[" + std::to_string(index + 1) + "/" + std::to_string(count) + "] " + title + " ... ";
    if (quiet_) return;
    std::cout << header_ << std::flush;
    open_ = true;
    echoed_ = false;
  }
  void command(const Argv& argv) {
    if (quiet_ || dry_run_) return;
    if (open_) std::cout << "\n";
    open_ = false;
    echoed_ = true;
    std::cout << "      run " << command_line(argv) << std::endl;
  }
  void end(const std::string& said, const Changes& changes) {
    if (quiet_) return;
    std::cout << (open_ ? "" : header_) << said << "\n";
    open_ = false;
    for (const auto& c : changes) {
      if (c.kind == Change::Kind::unchanged || (echoed_ && c.kind == Change::Kind::run)) continue;
      const std::string target = c.kind == Change::Kind::run ? c.target : fs_.host_path(c.target).string();
      std::cout << "      " << (dry_run_ ? "would " : "") << to_string(c.kind) << " " << target << "\n";
    }
  }

 private:
  bool quiet_, dry_run_;
  const RootFs& fs_;
  std::string header_;
  bool open_ = false, echoed_ = false;
};

// One step of `setup -o json`: paths are machine paths (the object names the root once). In a
// dry run nothing changed: "changed" is false and "would_change" says what the run would do.
nlohmann::json step_json(const SetupStep& step, const std::string& status, const std::string& outcome, double secs,
                         const Changes& changes, const std::vector<std::string>& ran, bool dry_run) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& c : changes) {
    if (c.kind == Change::Kind::unchanged) continue;
    list.push_back(c.kind == Change::Kind::run ? nlohmann::json{{"action", "run"}, {"command", c.target}}
                                               : nlohmann::json{{"action", to_string(c.kind)}, {"path", c.target}});
  }
  nlohmann::json out = {{"id", step.id},      {"step", step.title}, {"status", status},
                        {"outcome", outcome}, {"seconds", secs},    {"changed", !dry_run && !list.empty()},
                        {"changes", list}};
  if (dry_run) out["would_change"] = !list.empty();
  if (status == "failed") out["ran"] = ran;
  return out;
}

// A step is blocked when one it needs failed or was itself blocked.
const char* blocker(const SetupStep& step, const std::vector<std::string>& broken) {
  for (const char* need : step.needs) {
    if (std::find(broken.begin(), broken.end(), need) != broken.end()) return need;
  }
  return nullptr;
}

const char* title_of(const char* id) {
  for (const auto& s : setup_steps()) {
    if (std::string(s.id) == id) return s.title;
  }
  return id;
}

std::string failure_message(const SetupStep& step, const Error& error) {
  std::string message = "setup step \"" + std::string(step.title) + "\" failed: " + error.message;
  if (*step.way_out) message += (message.ends_with("\n") ? "" : "\n") + std::string("  way out: ") + step.way_out;
  return message;
}

int run_setup(const GlobalOptions& global, const SetupFlags& flags) {
  const bool json = flags.output == "json";
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
  Progress progress(json, flags.dry_run, fs);
  MachineFileSink machine_sink(fs);
  DryRunFileSink dry_sink(fs);
  ProcessRunner processes;
  DryRunRunner dry_runner;
  WatchedRunner act(flags.dry_run ? static_cast<CommandRunner&>(dry_runner) : processes,
                    [&progress](const Argv& argv) { progress.command(argv); });
  SetupOptions options{flags.mode == "true"    ? ToolkitMode::always
                       : flags.mode == "false" ? ToolkitMode::never
                                               : ToolkitMode::automatic,
                       flags.version,
                       flags.exact_version,
                       flags.repo_daemon_unit,
                       unit_tool_path(fs, flags.tool_path),
                       flags.dry_run,
                       disabled_hooks(fs, flags.disable_hooks)};
  SetupContext ctx{fs, flags.dry_run ? static_cast<FileSink&>(dry_sink) : machine_sink, processes, act, options};
  const auto& steps = setup_steps();
  nlohmann::json result = {{"schema", kSetupJsonSchema}, {"root", fs.root().string()},
                           {"dry_run", flags.dry_run},   {"ok", true},
                           {"changed", false},           {"steps", nlohmann::json::array()}};
  if (flags.dry_run) result["would_change"] = false;
  std::vector<std::string> broken, failed;  // ids: failed or blocked; failed alone
  std::vector<std::string> errors;
  for (size_t i = 0; i < steps.size(); ++i) {
    const auto& step = steps[i];
    progress.begin(i, steps.size(), step.title);
    ctx.changes.clear();
    act.ran.clear();
    if (const char* need = blocker(step, broken)) {
      const std::string said = std::string("not run: step \"") + title_of(need) + "\" failed";
      broken.push_back(step.id);
      result["steps"].push_back(step_json(step, "blocked", said, 0, {}, {}, flags.dry_run));
      progress.end(said, {});
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    auto outcome = step.run(ctx);
    const auto took = std::chrono::steady_clock::now() - start;
    const std::string said = outcome ? *outcome : "failed";
    result["steps"].push_back(step_json(step, outcome ? "ok" : "failed", said,
                                        std::chrono::duration<double>(took).count(), ctx.changes, act.ran,
                                        flags.dry_run));
    if (changed(ctx.changes)) result[flags.dry_run ? "would_change" : "changed"] = true;
    progress.end(said + (outcome ? " " + seconds(took) : ""), ctx.changes);
    if (!outcome) {
      const std::string message = failure_message(step, outcome.error());
      result["steps"].back()["error"] = message;
      print_error(message);
      broken.push_back(step.id);
      failed.push_back(step.id);
      errors.push_back(message);
    }
  }
  result["warnings"] = ctx.report.warnings;
  for (const auto& w : ctx.report.warnings) print_warning(w);
  int exit_code = kExitOk;
  if (!failed.empty()) {
    std::string names;
    for (const auto& id : failed) names += (names.empty() ? "\"" : ", \"") + std::string(title_of(id.c_str())) + "\"";
    const std::string summary = "setup finished every step it could, but " + names +
                                (failed.size() == 1 ? " failed" : " failed") +
                                (broken.size() > failed.size() ? " (and what needs it did not run)" : "") +
                                "; run setup again once it is fixed.";
    print_error(summary);
    result["ok"] = false;
    result["error"] = errors.size() == 1 ? errors.front() : summary;
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
                 "systemd unit (template) of the repositories' Docker daemons, given the persistenced socket")
      ->capture_default_str();
  sub.add_option(
         "--tool-path", flags->tool_path,
         "Absolute path the units run rediacc-gpu at (default: this binary; under --root, /usr/bin/rediacc-gpu)")
      ->check([](const std::string& p) { return p.starts_with("/") ? std::string() : "must be an absolute path"; });
  sub.add_option("--nvidia-disable-hook", flags->disable_hooks,
                 "Leave this nvidia-ctk hook out of the NVIDIA spec (repeatable; e.g. enable-cuda-compat, or all); "
                 "recorded, so every regeneration and later setup keeps it; none clears it")
      ->check(CLI::IsMember(kNvidiaHooks))
      ->take_all();
  sub.add_flag("--dry-run", flags->dry_run, "Print the plan and change nothing");
  sub.add_option("-o,--output", flags->output,
                 "text: each step as it runs; json: one object at the end (steps, changes, changed, warnings)")
      ->check(CLI::IsMember({"text", "json"}));
  return [&global, flags] { return run_setup(global, *flags); };
}

}  // namespace rgpu::cli
