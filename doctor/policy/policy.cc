// Layer 5: the host's policy around containers (cgroups, security modules, persistence, rootless
// daemons, BuildKit), with the grants (grants_checks.cc), the repository daemons, who uses which
// GPU and the known escapes in files of their own.

#include <algorithm>

#include "core/joined.h"
#include "core/machine_paths.h"
#include "core/structured_text.h"
#include "doctor/doctor.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::policy};

Check cgroups(const Facts& f) {
  if (f.fs.kind("/sys/fs/cgroup/cgroup.controllers") == NodeKind::file) {
    return kCheck.ok("cgroup", "cgroup v2", Evidence("/sys/fs/cgroup/cgroup.controllers"))
        .because("device access is enforced by eBPF programs per container", "");
  }
  if (f.fs.kind("/sys/fs/cgroup") == NodeKind::directory) {
    return kCheck.ok("cgroup", "cgroup v1 (or hybrid)", Evidence("/sys/fs/cgroup without cgroup.controllers"))
        .because("device access is enforced by the devices controller", "");
  }
  return kCheck.skip("cgroup", "/sys/fs/cgroup is not readable");
}

Check security_modules(const Facts& f) {
  std::string seen;
  const auto apparmor = f.fs.read_optional("/sys/module/apparmor/parameters/enabled");
  if (apparmor && *apparmor && **apparmor == "Y") seen = "AppArmor enabled";
  const auto selinux = f.fs.read_optional("/sys/fs/selinux/enforce");
  if (selinux && *selinux)
    seen += std::string(seen.empty() ? "" : ", ") + (**selinux == "1" ? "SELinux enforcing" : "SELinux permissive");
  if (seen.empty()) seen = "no AppArmor or SELinux";
  return kCheck
      .ok("security-modules", seen, Evidence("/sys/module/apparmor/parameters/enabled, /sys/fs/selinux/enforce"))
      .because(
          "the gate refuses requests that turn a container's confinement off (apparmor=unconfined, "
          "seccomp=unconfined, label=disable)",
          "");
}

// The NVIDIA spec mounts the persistenced socket only if it existed when the spec was made.
Check persistenced(const Facts& f) {
  const auto spec = f.fs.read_optional(paths::kNvidiaSpec);
  if (!spec || !*spec || (*spec)->find("/run/nvidia-persistenced/socket") == std::string::npos) {
    return kCheck.skip("persistenced", "the NVIDIA spec mounts no persistenced socket");
  }
  if (f.fs.kind("/run/nvidia-persistenced/socket") != NodeKind::missing) {
    return kCheck.ok("persistenced", "/run/nvidia-persistenced/socket is there, as the spec mounts it",
                     Evidence(std::string(paths::kNvidiaSpec) + ", /run/nvidia-persistenced/socket"));
  }
  return kCheck.warn("persistenced", "the NVIDIA spec mounts /run/nvidia-persistenced/socket, which is missing",
                     "containers given an NVIDIA device fail to start (the mount source does not exist)",
                     "start nvidia-persistenced (rediacc-gpu-nvidia-spec.service regenerates the spec after it)");
}

// Rootless daemons run per user, outside the repository daemons the gate is wired to: found by
// their sockets, and as a dockerd running as another user than root.
Check rootless(const Facts& f) {
  std::vector<std::string> found;
  auto users = f.fs.list_dir("/run/user");
  for (const auto& uid : users ? *users : std::vector<std::string>{}) {
    const std::string sock = "/run/user/" + uid + "/docker.sock";
    if (f.fs.kind(sock) != NodeKind::missing) found.push_back(sock);
  }
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

// BuildKit can attach CDI devices to builds; the gate refuses /session and /grpc unless told.
// Each daemon's own configuration decides for its builds.
Check buildkit(const Facts& f) {
  std::vector<std::string> on, read;
  for (const auto& path : docker::daemon_config_paths(f.daemons)) {
    const auto& text = f.files.read(path);
    auto config = text && *text ? parse_json(**text, path) : Result<nlohmann::json>(nlohmann::json());
    if (text && *text) read.push_back(path);
    bool off = false;
    if (config && config->is_object() && config->contains("builder") && (*config)["builder"].is_object()) {
      const auto& builder = (*config)["builder"];
      off = builder.contains("entitlements") && builder["entitlements"].is_object() &&
            builder["entitlements"].value("device", true) == false;
    }
    if (!off) on.push_back(path);
  }
  const Evidence from(read.empty() ? "no daemon configuration file" : joined(read));
  if (on.empty())
    return kCheck.ok("buildkit", "BuildKit's device entitlement is off in every daemon's configuration", from);
  return kCheck.ok("buildkit", "BuildKit's device entitlement is not turned off (" + joined(on) + ")", from)
      .because("builds can attach CDI devices: keep the plugin refusing BuildKit (its default, no --allow-buildkit)",
               "to allow builds, first set \"builder\": {\"entitlements\": {\"device\": false}} in daemon.json");
}

}  // namespace

std::vector<Check> policy_checks(const Facts& f) {
  auto out = grant_checks(f);
  out.push_back(cgroups(f));
  out.push_back(security_modules(f));
  out.push_back(persistenced(f));
  out.push_back(rootless(f));
  out.push_back(user_namespaces(f));
  out.push_back(buildkit(f));
  return out;
}

}  // namespace rgpu::doctor
