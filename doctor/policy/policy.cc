// Layer 5: the host's policy around containers (cgroups, security modules, persistence, rootless
// daemons, BuildKit), with the grants (grants_checks.cc), the repository daemons, who uses which
// GPU and the known escapes in files of their own.

#include <algorithm>
#include <cctype>

#include "core/host_policy.h"
#include "core/init_system.h"
#include "core/joined.h"
#include "core/machine_paths.h"
#include "core/structured_text.h"
#include "core/version.h"
#include "docker/builder_entitlements.h"
#include "docker/running_daemons.h"
#include "doctor/doctor.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::policy};

Check cgroups(const Facts& f) {
  if (f.policy.cgroup_controllers == NodeKind::file) {
    return kCheck.ok("cgroup", "cgroup v2", Evidence("/sys/fs/cgroup/cgroup.controllers"))
        .because("device access is enforced by eBPF programs per container", "");
  }
  if (f.policy.cgroup_root == NodeKind::directory) {
    return kCheck.ok("cgroup", "cgroup v1 (or hybrid)", Evidence("/sys/fs/cgroup without cgroup.controllers"))
        .because("device access is enforced by the devices controller", "");
  }
  return kCheck.skip("cgroup", "/sys/fs/cgroup is not readable");
}

Check security_modules(const Facts& f) {
  std::string seen;
  const auto& apparmor = f.policy.apparmor_enabled;
  if (apparmor && *apparmor == "Y") seen = "AppArmor enabled";
  const auto& selinux = f.policy.selinux_enforce;
  if (selinux)
    seen += std::string(seen.empty() ? "" : ", ") + (*selinux == "1" ? "SELinux enforcing" : "SELinux permissive");
  if (seen.empty()) seen = "no AppArmor or SELinux";
  return kCheck
      .ok("security-modules", seen, Evidence("/sys/module/apparmor/parameters/enabled, /sys/fs/selinux/enforce"))
      .because(
          "the gate refuses requests that turn a container's confinement off (apparmor=unconfined, "
          "seccomp=unconfined, label=disable)",
          "");
}

// The plugin sockets, the regeneration at boot and hot-plug and the views' path unit are systemd
// units: where PID 1 is something else, nothing starts them.
Check init_system(const Facts& f) {
  const auto& pid1 = f.policy.pid1;
  if (!pid1) return kCheck.skip("init-system", "the root shows no running system (/proc/1/comm)");
  if (*pid1 != "systemd") {
    return kCheck.warn("init-system", "PID 1 is " + *pid1 + ", not systemd", without_systemd_meaning(),
                       without_systemd_by_hand("rediacc-gpu"));
  }
  return kCheck.ok("init-system", "PID 1 is systemd, which starts the plugin sockets and the regeneration units",
                   Evidence("/proc/1/comm"));
}

// The NVIDIA spec mounts the persistenced socket only if it existed when the spec was made.
Check persistenced(const Facts& f) {
  const auto& spec = f.chain.nvidia.spec_text;
  if (!spec || spec->find("/run/nvidia-persistenced/socket") == std::string::npos) {
    return kCheck.skip("persistenced", "the NVIDIA spec mounts no persistenced socket");
  }
  if (f.policy.persistenced_socket) {
    return kCheck.ok("persistenced", "/run/nvidia-persistenced/socket is there, as the spec mounts it",
                     Evidence(std::string(paths::kNvidiaSpec) + ", /run/nvidia-persistenced/socket"));
  }
  return kCheck.warn(
      "persistenced", "the NVIDIA spec mounts /run/nvidia-persistenced/socket, which is missing",
      "containers given an NVIDIA device fail to start (the mount source does not exist)",
      "systemctl start nvidia-persistenced (rediacc-gpu-nvidia-spec.service regenerates the spec after it)");
}

// Rootless daemons run per user, outside the repository daemons the gate is wired to: found by
// their sockets, and as a dockerd running as another user than root.
Check rootless(const Facts& f) {
  std::vector<std::string> found = f.policy.rootless_sockets;
  for (const auto& d : f.daemons) {
    if (!d.root_user) found.push_back("dockerd " + d.pid + " (not run by root)");
  }
  if (found.empty())
    return kCheck.ok("rootless", "no rootless Docker daemon",
                     Evidence("/run/user/*/docker.sock, the user of each dockerd in /proc"));
  return kCheck.warn("rootless", "rootless Docker daemons: " + joined(found),
                     "their containers reach whatever devices the user can open, without the gate",
                     "give each --authorization-plugin, or keep GPU device nodes out of those users' reach");
}

// What a `RUN --device` step reaches on a daemon of `version` (its GET /version; empty when it did
// not answer): Docker 29's device entitlement; 28.x's BuildKit has none and attaches only devices
// their spec marks auto-allowed (a view marks its own); BuildKit before 0.20 (Docker 27 and
// earlier) attaches no CDI device at all.
std::string device_reach(const docker::BuilderEntitlements& granted, const std::string& version) {
  const std::string entitlement = std::string("device entitlement ") + (granted.device ? "on" : "off");
  if (version.empty() || !std::isdigit(static_cast<unsigned char>(version.front()))) return entitlement;
  // BuildKit lets an auto-allowed device pass with the entitlement off too.
  if (compare_versions(version, "29.0.0") >= 0)
    return granted.device ? entitlement : entitlement + " (devices marked auto-allowed still pass)";
  if (compare_versions(version, "28.0.0") >= 0)
    return "RUN --device: only devices marked auto-allowed (Docker 28 has no device entitlement)";
  return "RUN --device: none (Docker " + version + "'s BuildKit attaches no CDI device)";
}

// What the daemon of process `pid` answered GET /version with; empty when it did not answer.
std::string answered_version(const Facts& f, const std::string& pid) {
  for (const auto& a : f.answers) {
    if (a.pid == pid) return answer_text(a.version, "Version");
  }
  return "";
}

// What each daemon's own BuildKit grants its builds, and where the gate refuses a repository's
// BuildKit builds: unless its daemon reads its view alone (docker::reads_only_view, as the gate
// judges it) and the builder keeps off the host's network and privileged steps. The device
// entitlement (Docker 29, on unless turned off), or on 28.x the view's own build mark, then
// reaches only the repository's own names.
Check buildkit(const Facts& f) {
  std::vector<std::string> seen, refused, read;
  bool builder_refused = false, view_refused = false, view_asked = false;
  // Where the host policy runs services on the host's network, the gate lets builds share it too.
  const bool host_network = effective_rules(f.policy.host_policy).host_network;
  for (const auto& r : f.policy.daemons) {
    const auto& d = r.daemon;
    if (r.config_file) read.push_back(d.config_path());
    // As the gate judges them: read as Go reads them, and only while the file is what the daemon
    // started with.
    const auto& granted = r.builder;
    const auto& repo = r.plugin_repo;
    const std::string who = "dockerd " + d.pid + (repo ? " of repository " + *repo : "");
    if (!granted) {
      std::string why = granted.error().message;
      while (why.ends_with('.')) why.pop_back();
      seen.push_back(who + ": builder entitlements unknown (" + why + ")");
      if (repo) refused.push_back(*repo + " (" + why + ")");
      builder_refused = builder_refused || repo.has_value();
    } else {
      seen.push_back(who + ": " + device_reach(*granted, answered_version(f, d.pid)) + ", network-host " +
                     (granted->network_host ? "on" : "off") + ", security-insecure " +
                     (granted->security_insecure ? "on" : "off"));
      const auto reach = docker::builder_reach(*granted, host_network);
      if (repo && reach != docker::BuilderReach::none) {
        refused.push_back(
            *repo + " (" + d.config_path() + ": " +
            (reach == docker::BuilderReach::privileged ? "security-insecure is on" : "network-host is not off") + ")");
        builder_refused = true;
      }
    }
    if (!repo || !r.view) continue;
    // The gate judges the directories only on what the daemon answers at its repository's address;
    // where it does not answer, the gate refuses for that, not for its directories.
    const auto& view = *r.view;
    view_asked = view_asked || view.answered;
    if (view.answered && !view.verdict.ok()) {
      refused.push_back(*repo + " (" + view.verdict.reason() + ")");
      view_refused = true;
    }
  }
  if (seen.empty()) return kCheck.skip("buildkit", "no running dockerd");
  const Evidence from("each dockerd's daemon.json (" + (read.empty() ? "none found" : joined(read)) +
                      "), each one's start (/proc/PID/stat) and its GET /version where it answered" +
                      (view_asked ? ", each repository daemon's GET /info and its spec directories through "
                                    "/proc/PID/root"
                                  : ""));
  if (refused.empty()) return kCheck.ok("buildkit", joined(seen, "; "), from);
  std::vector<std::string> whys, fixes;
  if (builder_refused) {
    whys.push_back(
        "its builder could run steps privileged or on the host's network, or what it runs with cannot be told");
    fixes.push_back(
        "set \"builder\": {\"entitlements\": {\"network-host\": false}} (and no security-insecure) in that "
        "daemon.json and restart the daemon");
  }
  if (view_refused) {
    whys.push_back(
        "a build step could use a CDI name the repository was not granted, or which names it could use cannot be "
        "told");
    fixes.push_back(
        "bind the repository's view over its daemon's /etc/cdi (rediacc-gpu setup's drop-in does), set "
        "\"cdi-spec-dirs\": [\"/etc/cdi\"] on Docker 25 or later and restart the daemon");
  }
  return kCheck.warn("buildkit", joined(seen, "; "),
                     "the gate refuses BuildKit builds (docker build, compose build) for " + joined(refused) + ": " +
                         joined(whys, "; ") + "; tenants must use DOCKER_BUILDKIT=0",
                     joined(fixes, "; "));
}

}  // namespace

std::vector<Check> policy_checks(const Facts& f) {
  return {cgroups(f),  security_modules(f), init_system(f), persistenced(f),
          rootless(f), user_namespaces(f),  buildkit(f)};
}

}  // namespace rgpu::doctor
