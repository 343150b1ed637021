#include "installers/nvidia_toolkit.h"

#include "core/state_paths.h"
#include "core/version.h"

namespace rgpu::installers {
namespace {

constexpr std::chrono::seconds kInstallTimeout{900};

// "X.Y.Z" and nothing else: what --nvidia-toolkit-version takes.
std::optional<Version> exact_version(const std::string& v) {
  auto parsed = dotted_version(v);
  if (!parsed || parsed->numbers.size() != 3) return std::nullopt;
  return parsed;
}

}  // namespace

std::optional<int> compare_toolkit_versions(const std::string& a, const std::string& b) {
  const auto x = read_version(a), y = read_version(b);
  if (x.numbers.size() < 3 || y.numbers.size() < 3) return std::nullopt;
  return compare(x, y);
}

ToolkitPlan plan_toolkit(const std::optional<std::string>& installed, const ToolkitWanted& wanted) {
  if (!installed) return ToolkitPlan::install;
  const auto order = compare_toolkit_versions(*installed, wanted.version);
  if (!order) return ToolkitPlan::install;  // a version we cannot read: put the wanted one in place
  if (*order == 0) return ToolkitPlan::keep;
  if (*order > 0) return wanted.exact ? ToolkitPlan::downgrade : ToolkitPlan::keep;
  return ToolkitPlan::upgrade;
}

Result<void> check_toolkit_version(const std::string& version) {
  auto wanted = exact_version(version);
  if (!wanted) return fail("--nvidia-toolkit-version \"" + version + "\" is not a version like 1.20.0.");
  if (compare(*wanted, *exact_version(kMinimumToolkitVersion)) < 0) {
    return fail("--nvidia-toolkit-version " + version + " is below " + kMinimumToolkitVersion +
                ", the first release with the nvidia-cdi-refresh units setup relies on; choose " +
                kMinimumToolkitVersion + " or later.");
  }
  return {};
}

std::optional<std::string> installed_toolkit(const RootFs& fs, const PackageManager& pm, CommandRunner& query) {
  return pm.installed_version(fs, query, kToolkitPackage);
}

Result<CommandResult> run_step(CommandRunner& runner, const Argv& argv, std::chrono::seconds timeout) {
  RGPU_TRY_ASSIGN(auto r, runner.run(argv, timeout, {{"DEBIAN_FRONTEND", "noninteractive"}}));
  if (r.exit_code != 0) {
    return fail(command_line(argv) + " failed with exit code " + std::to_string(r.exit_code) + ". Its output:\n" +
                r.output);
  }
  return r;
}

Result<ToolkitOutcome> ensure_toolkit(const RootFs& fs, const PackageManager& pm, FileSink& sink, CommandRunner& query,
                                      CommandRunner& act, const ToolkitWanted& wanted) {
  ToolkitOutcome outcome;
  outcome.installed_before = installed_toolkit(fs, pm, query);
  outcome.plan = plan_toolkit(outcome.installed_before, wanted);
  if (outcome.plan == ToolkitPlan::keep) return outcome;
  const RepoFile repo = pm.repository();
  RGPU_TRY(sink.write(repo.path, repo.content, 0644));
  std::vector<Argv> commands;
  if (auto key = pm.key_path(); key && fs.kind(*key) != NodeKind::file) commands = pm.fetch_key_commands();
  const bool fetches_key = !commands.empty();
  for (auto& c : pm.install_commands(kToolkitPackage, wanted.version, outcome.plan == ToolkitPlan::downgrade))
    commands.push_back(std::move(c));
  Result<void> ok;
  for (const auto& argv : commands) {
    auto ran = run_step(act, argv, kInstallTimeout);
    if (!ran) {
      ok = tl::unexpected(ran.error());
      break;
    }
    outcome.performed = ran->performed;
  }
  // The armoured download is only a step towards the keyring: it goes whether or not the rest worked.
  if (fetches_key && fs.kind(state::kDownloadedKey) != NodeKind::missing) sink.remove(state::kDownloadedKey);
  RGPU_TRY(ok);
  return outcome;
}

}  // namespace rgpu::installers
