#include "facts/docker_reads.h"

#include <sys/stat.h>

#include <set>

#include "cdi/spec_index.h"
#include "core/machine_paths.h"
#include "docker/cdi_spec_dirs.h"

namespace rgpu::facts {
namespace {

std::map<std::string, std::string> read_configs(const RootFs& fs, const std::vector<docker::RunningDaemon>& daemons) {
  std::map<std::string, std::string> out;
  for (const auto& path : docker::daemon_config_paths(daemons)) {
    if (auto text = fs.read_optional(path); text && *text) out.emplace(path, std::move(**text));
  }
  return out;
}

// Docker 25+ reads /var/run/cdi besides /etc/cdi, and prefers it; Podman reads /run/cdi.
std::vector<OtherDirSpec> read_other_dir_specs(const RootFs& fs) {
  std::vector<OtherDirSpec> out;
  std::set<std::string> seen_dirs;
  for (const char* dir : {paths::kDockerRunCdiDir, paths::kPodmanRunCdiDir}) {
    const auto real = fs.resolve(dir);
    if (!real || !seen_dirs.insert(*real).second) continue;
    const auto names = fs.list_dir(dir);
    if (!names) continue;
    for (const auto& name : *names) {
      const auto ext = name.substr(name.find_last_of('.') + 1);
      if (name.find('.') == std::string::npos || (ext != "json" && ext != "yaml")) continue;
      const std::string path = join_path(dir, name);
      const auto devices =
          fs.read_file(path).and_then([&](const std::string& text) { return cdi::parse_spec(text, path); });
      if (!devices) continue;
      OtherDirSpec spec{path, {}};
      for (const auto& d : *devices) spec.names.push_back(d.qualified_name);
      out.push_back(std::move(spec));
    }
  }
  return out;
}

std::string parent_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

// Who other than root could put a spec in `dir` as the daemon sees it (`root`: its /proc/PID/root):
// the directory, or the one where it would be made while it is missing, and every one above,
// owned by another user or writable by group or others (a sticky one only where the next
// directory down is missing and so can be made). Nothing when only root can.
std::optional<std::string> writer_other_than_root(const RootFs& root, const std::string& dir) {
  bool below_missing = false;
  for (std::string at = dir;; at = parent_of(at)) {
    const auto st = root.stat(at);
    if (!st) {
      below_missing = true;
    } else {
      if (st->st_uid != 0) return at + " is owned by uid " + std::to_string(st->st_uid);
      const bool shared = (st->st_mode & (S_IWGRP | S_IWOTH)) != 0;
      if (shared && (!(st->st_mode & S_ISVTX) || below_missing))
        return at + " is writable by " + ((st->st_mode & S_IWOTH) ? "everyone" : "its group");
      below_missing = false;
    }
    if (at == "/") return std::nullopt;
  }
}

std::vector<SpecDirWriter> read_spec_dir_writers(const RootFs& fs, const std::vector<DaemonAnswer>& answers) {
  std::vector<SpecDirWriter> out;
  for (const auto& a : answers) {
    const auto reported = docker::reported_spec_dirs(a.info);
    if (!reported) continue;
    // The directories as the daemon sees them: a rootless one's $HOME is its user's.
    const RootFs seen_by(a.pid.empty() ? fs : RootFs(fs.host_path("/proc/" + a.pid + "/root")));
    for (const auto& dir : reported->dirs) {
      if (auto writer = writer_other_than_root(seen_by, dir)) out.push_back({a.label, dir, std::move(*writer)});
    }
  }
  return out;
}

}  // namespace

DockerReads read_docker(const RootFs& fs, const std::vector<docker::RunningDaemon>& daemons,
                        const std::vector<DaemonAnswer>& answers) {
  return {.configs = read_configs(fs, daemons),
          .other_dir_specs = read_other_dir_specs(fs),
          .spec_dir_writers = read_spec_dir_writers(fs, answers)};
}

}  // namespace rgpu::facts
