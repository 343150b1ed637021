#include "installers/nvidia_toolkit.h"

#include <array>
#include <cstdio>

#include "core/state_paths.h"

namespace rgpu::installers {
namespace {

constexpr std::chrono::seconds kQueryTimeout{60};
constexpr std::chrono::seconds kInstallTimeout{900};

std::optional<std::array<int, 3>> parse_version(const std::string& v) {
  std::array<int, 3> parts{};
  int used = 0;
  if (std::sscanf(v.c_str(), "%d.%d.%d%n", &parts[0], &parts[1], &parts[2], &used) != 3 ||
      used != static_cast<int>(v.size())) {
    return std::nullopt;
  }
  return parts;
}

std::string trim(const std::string& s) {
  auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

}  // namespace

Result<void> check_toolkit_version(const std::string& version) {
  auto wanted = parse_version(version);
  if (!wanted) return fail("--nvidia-toolkit-version \"" + version + "\" is not a version like 1.20.0.");
  if (*wanted < *parse_version(kMinimumToolkitVersion)) {
    return fail("--nvidia-toolkit-version " + version + " is below " + kMinimumToolkitVersion +
                ", the first release with the nvidia-cdi-refresh units setup relies on; choose " +
                kMinimumToolkitVersion + " or later.");
  }
  return {};
}

std::optional<std::string> installed_toolkit(const PackageManager& pm, CommandRunner& query) {
  auto r = query.run(pm.installed_version_command(kToolkitPackage), kQueryTimeout);
  if (!r || r->exit_code != 0) return std::nullopt;
  std::string version = trim(r->output);
  return version.empty() ? std::nullopt : std::optional<std::string>(version);
}

Result<Change> run_step(CommandRunner& runner, const Argv& argv, std::chrono::seconds timeout) {
  auto r = runner.run(argv, timeout, {{"DEBIAN_FRONTEND", "noninteractive"}});
  if (!r) return tl::unexpected(r.error());
  if (r->exit_code != 0) {
    return fail(command_line(argv) + " failed with exit code " + std::to_string(r->exit_code) + ". Its output:\n" +
                r->output);
  }
  return Change{Change::Kind::run, command_line(argv), ""};
}

Result<ToolkitOutcome> ensure_toolkit(const RootFs& fs, const PackageManager& pm, FileSink& sink, CommandRunner& query,
                                      CommandRunner& act, const std::string& version) {
  ToolkitOutcome outcome;
  if (installed_toolkit(pm, query) == version + "-1") return outcome;
  const RepoFile repo = pm.repository();
  auto written = sink.write(repo.path, repo.content, 0644);
  if (!written) return tl::unexpected(written.error());
  outcome.changes.push_back(*written);
  std::vector<Argv> commands;
  if (auto key = pm.key_path(); key && fs.kind(*key) != NodeKind::file) commands = pm.fetch_key_commands();
  const bool fetches_key = !commands.empty();
  for (auto& c : pm.install_commands(kToolkitPackage, version)) commands.push_back(std::move(c));
  Result<void> ok;
  for (const auto& argv : commands) {
    auto ran = run_step(act, argv, kInstallTimeout);
    if (!ran) {
      ok = tl::unexpected(ran.error());
      break;
    }
    outcome.changes.push_back(*ran);
  }
  // The armoured download is only a step towards the keyring: it goes whether or not the rest worked.
  if (fetches_key && fs.kind(state::kDownloadedKey) != NodeKind::missing) {
    auto removed = sink.remove(state::kDownloadedKey);
    if (removed) outcome.changes.push_back(*removed);
  }
  if (!ok) return tl::unexpected(ok.error());
  outcome.installed_now = true;
  return outcome;
}

}  // namespace rgpu::installers
