// rediacc-gpu setup: one idempotent run that leaves the machine ready, step by step.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/setup_steps.h"
#include "core/file_lock.h"
#include "core/state_paths.h"
#include "installers/nvidia_toolkit.h"

namespace rgpu::cli {
namespace {

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

void print_changes(const Changes& changes, bool dry_run, const RootFs& fs) {
  for (const auto& c : changes) {
    if (c.kind == Change::Kind::unchanged) continue;
    const std::string target = c.kind == Change::Kind::run ? c.target : fs.host_path(c.target).string();
    std::cout << "      " << (dry_run ? "would " : "") << to_string(c.kind) << " " << target << "\n";
  }
}

// One step of `setup -o json`: paths are machine paths (the object names the root once).
nlohmann::json step_json(const char* title, const std::string& outcome, double seconds, const Changes& changes) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& c : changes) {
    if (c.kind == Change::Kind::unchanged) continue;
    list.push_back(c.kind == Change::Kind::run ? nlohmann::json{{"action", "run"}, {"command", c.target}}
                                               : nlohmann::json{{"action", to_string(c.kind)}, {"path", c.target}});
  }
  return {{"step", title}, {"outcome", outcome}, {"seconds", seconds}, {"changed", !list.empty()}, {"changes", list}};
}

int run_setup(const GlobalOptions& global, const SetupFlags& flags) {
  const bool json = flags.output == "json";
  if (auto ok = installers::check_toolkit_version(flags.version); !ok) {
    std::cerr << "rediacc-gpu: " << ok.error().message << "\n";
    return kExitUsage;
  }
  RootFs fs(global.root);
  std::optional<FileLock> lock;  // a second setup waits here, then finds nothing to do
  if (!flags.dry_run) {
    auto locked = FileLock::acquire(fs, state::kSetupLock);
    if (!locked) return report_failure(locked.error());
    lock.emplace(std::move(*locked));
  }
  MachineFileSink machine_sink(fs);
  DryRunFileSink dry_sink(fs);
  ProcessRunner processes;
  DryRunRunner dry_runner;
  SetupOptions options{flags.mode == "true"    ? ToolkitMode::always
                       : flags.mode == "false" ? ToolkitMode::never
                                               : ToolkitMode::automatic,
                       flags.version,
                       flags.exact_version,
                       flags.repo_daemon_unit,
                       unit_tool_path(fs, flags.tool_path),
                       flags.dry_run,
                       disabled_hooks(fs, flags.disable_hooks)};
  SetupContext ctx{fs, flags.dry_run ? static_cast<FileSink&>(dry_sink) : machine_sink, processes,
                   flags.dry_run ? static_cast<CommandRunner&>(dry_runner) : processes, options};
  const auto& steps = setup_steps();
  nlohmann::json result = {{"root", fs.root().string()},
                           {"dry_run", flags.dry_run},
                           {"ok", true},
                           {"changed", false},
                           {"steps", nlohmann::json::array()}};
  int exit_code = kExitOk;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (!json) std::cout << "[" << i + 1 << "/" << steps.size() << "] " << steps[i].title << " ... " << std::flush;
    ctx.changes.clear();
    const auto start = std::chrono::steady_clock::now();
    auto outcome = steps[i].run(ctx);
    const auto took = std::chrono::steady_clock::now() - start;
    const std::string said = outcome ? *outcome : "failed";
    result["steps"].push_back(
        step_json(steps[i].title, said, std::chrono::duration<double>(took).count(), ctx.changes));
    if (changed(ctx.changes)) result["changed"] = true;
    if (!json) {
      std::cout << said << (outcome ? " " + seconds(took) : "") << "\n";
      print_changes(ctx.changes, flags.dry_run, fs);
    }
    if (!outcome) {
      const std::string message =
          "setup step \"" + std::string(steps[i].title) + "\" failed: " + outcome.error().message;
      std::cerr << "rediacc-gpu: " << message << "\n";
      result["ok"] = false;
      result["error"] = message;
      exit_code = kExitFailure;
      break;
    }
  }
  result["warnings"] = ctx.report.warnings;
  for (const auto& w : ctx.report.warnings) std::cerr << "warning: " << w << "\n";
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
