#include "facts/policy/policy_reads.h"

#include "core/state_paths.h"

#include <algorithm>

#include "core/init_system.h"
#include "docker/rediacc_layout.h"
#include "probe/hardware_identity.h"
#include "units/unit_files.h"

namespace rgpu::facts {
namespace {

// A file's text when it can be read; the checks tell a missing file and an unreadable one apart
// nowhere.
std::optional<std::string> text_of(const RootFs& fs, const std::string& path) {
  auto text = fs.read_optional(path);
  if (!text || !*text) return std::nullopt;
  return std::move(**text);
}

// Rootless daemons run per user, found by their sockets.
std::vector<std::string> rootless_sockets(const RootFs& fs) {
  std::vector<std::string> found;
  auto users = fs.list_dir("/run/user");
  for (const auto& uid : users ? *users : std::vector<std::string>{}) {
    const std::string sock = "/run/user/" + uid + "/docker.sock";
    if (fs.kind(sock) != NodeKind::missing) found.push_back(sock);
  }
  return found;
}

DaemonReads daemon_reads(const RootFs& fs, const docker::RunningDaemon& d, const PolicySources& s) {
  const auto text = s.daemon_configs.find(d.config_path());
  DaemonReads r{.daemon = d,
                .config_file = fs.kind(d.config_path()) == NodeKind::file,
                .config = text == s.daemon_configs.end() ? std::nullopt
                                                         : docker::parse_daemon_config(text->second, d.config_path()),
                .builder = docker::daemon_builder_entitlements(fs, fs, d)};
  // From the configuration the run read, so every policy check renders the one file.
  r.unix_host = docker::unix_host(d, r.config);
  r.plugin_repo = docker::plugin_repo(d, r.config);
  if (r.plugin_repo) r.view = repo_daemon_view(fs, d, r.config, *r.plugin_repo, s.repo_daemon_hosts);
  if (r.plugin_repo) r.runtime = docker::runtime_wiring(fs, d);
  return r;
}

// The running daemons of renet's repositories, each with its repository's network id.
std::vector<RepositoryDaemon> repository_daemons(const std::vector<DaemonReads>& daemons,
                                                 const std::vector<std::string>& ids) {
  std::vector<RepositoryDaemon> out;
  for (const auto& d : daemons) {
    const auto id = d.unix_host ? docker::rediacc_network_id(*d.unix_host) : std::nullopt;
    if (!id || std::find(ids.begin(), ids.end(), *id) == ids.end()) continue;
    out.push_back({.pid = d.daemon.pid, .network_id = *id});
  }
  return out;
}

std::map<std::string, grants::ReachNow> grant_reach(const RootFs& fs, const cdi::SpecIndex& specs,
                                                    const Result<grants::GrantSet>& set) {
  std::map<std::string, grants::ReachNow> out;
  if (!set) return out;
  const probe::HardwareReader reader(fs);
  for (const auto& g : set->grants) {
    if (!out.contains(g.device)) out.emplace(g.device, grants::reach_now(reader, specs, g.device));
  }
  return out;
}

}  // namespace

PolicyReads read_policy(const PolicySources& s) {
  const auto& fs = s.fs;
  PolicyReads p{.cgroup_controllers = fs.kind("/sys/fs/cgroup/cgroup.controllers"),
                .cgroup_root = fs.kind("/sys/fs/cgroup"),
                .apparmor_enabled = text_of(fs, "/sys/module/apparmor/parameters/enabled"),
                .selinux_enforce = text_of(fs, "/sys/fs/selinux/enforce"),
                .pid1 = pid1_name(fs),
                .persistenced_socket = fs.kind("/run/nvidia-persistenced/socket") != NodeKind::missing,
                .rootless_sockets = rootless_sockets(fs),
                .host_policy = read_host_policy(fs),
                .rediacc_layout = docker::rediacc_layout_evidence(fs),
                .rediacc_ids = docker::rediacc_network_ids(fs),
                .rediacc_gate_dropin = fs.kind(units::gate_dropin_path(std::string(docker::kRediaccDaemonPrefix) +
                                                                       ".service")) == NodeKind::file};
  for (const auto& d : s.daemons) p.daemons.push_back(daemon_reads(fs, d, s));
  if (const auto st = fs.lstat(state::kRuntimeStagingDir))
    p.runtime_staging = std::pair<unsigned, unsigned>{st->st_uid, st->st_mode & 07777};
  const auto rules = effective_rules(p.host_policy);
  // What a host-network container reaches matters only where the policy lets one run.
  if (rules.host_network) p.host_network = read_host_network(fs, repository_daemons(p.daemons, p.rediacc_ids));
  p.stored = stored_verdicts(fs, s.grants, rules, s.repo_daemon_hosts);
  p.grant_reach = grant_reach(fs, s.specs, s.grants);
  p.runtimes = read_runtime_versions(fs, s.runner, s.answers);
  return p;
}

}  // namespace rgpu::facts
