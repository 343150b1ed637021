#include "facts/policy/runtime_versions.h"

#include <chrono>
#include <sstream>

#include "core/machine_program.h"

namespace rgpu::facts {
namespace {

// The package's changelog, as the distribution ships it (Debian's names every CVE it patches).
std::optional<std::string> changelog(const RootFs& fs, CommandRunner& runner, const std::string& package) {
  const auto path = fs.host_path("/usr/share/doc/" + package + "/changelog.Debian.gz");
  if (fs.kind("/usr/share/doc/" + package + "/changelog.Debian.gz") != NodeKind::file) return std::nullopt;
  auto ran = runner.run({"gzip", "-dc", path.string()}, std::chrono::seconds(10));
  if (!ran || ran->exit_code != 0) return std::nullopt;
  return ran->output;
}

// The runtime each daemon runs by default: its path from GET /info, else runc on PATH.
std::map<std::string, RuntimeVersion> default_runtimes(const std::vector<DaemonAnswer>& answers) {
  std::map<std::string, RuntimeVersion> runtimes;
  for (const auto& a : answers) {
    const std::string name =
        answer_text(a.info, "DefaultRuntime").empty() ? "runc" : answer_text(a.info, "DefaultRuntime");
    std::string path = name;
    if (a.info.contains("Runtimes") && a.info["Runtimes"].contains(name))
      path = answer_text(a.info["Runtimes"][name], "path");
    if (path.empty()) path = name;
    runtimes[path].users.push_back(a.label);
  }
  if (runtimes.empty()) runtimes["runc"].users.push_back("this machine");
  return runtimes;
}

}  // namespace

std::string runc_version(const std::string& output) {
  std::istringstream lines(output);
  std::string version, commit;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("runc version ")) version = line.substr(13);
    if (line.starts_with("commit: ")) commit = line.substr(8);
  }
  if (!commit.empty() && commit.starts_with(version) && commit.size() > version.size()) return commit;
  return version;
}

RuntimeVersions read_runtime_versions(const RootFs& fs, CommandRunner& runner,
                                      const std::vector<DaemonAnswer>& answers) {
  RuntimeVersions out{.programs_run = true, .runtimes = default_runtimes(answers), .changelogs = {}};
  bool runc_said = false;
  for (auto& [path, runtime] : out.runtimes) {
    // A bare name is found as the machine's dockerd finds it; a path is the machine's.
    const auto where = path.starts_with("/") ? std::optional<std::string>(path) : machine_program(fs, path);
    runtime.found = where && fs.kind(*where) == NodeKind::file;
    if (!runtime.found) continue;
    const std::string program = fs.is_host_root() ? *where : fs.host_path(*where).string();
    runtime.ran = runner.run({program, "--version"}, std::chrono::seconds(10));
    if (*runtime.ran && (*runtime.ran)->exit_code == 0) runtime.version = runc_version((*runtime.ran)->output);
    runc_said = runc_said || !runtime.version.empty();
  }
  if (runc_said) out.changelogs["runc"] = changelog(fs, runner, "runc");
  for (const auto& a : answers) {
    if (answer_text(a.version, "Version").empty()) continue;
    out.changelogs["docker.io"] = changelog(fs, runner, "docker.io");
    break;
  }
  return out;
}

}  // namespace rgpu::facts
