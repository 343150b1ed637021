// Layer 5: grants and the host's policy around containers.

#include <algorithm>
#include <map>

#include "cdi-gen/reach_rules.h"
#include "core/joined.h"
#include "core/machine_paths.h"
#include "core/structured_text.h"
#include "doctor/doctor.h"
#include "grants/hardware.h"
#include "grants/store.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::policy};

// "team-a holds nvidia.com/gpu=0, granted on GPU-a…, now reaching GPU-b…", or empty when it did not move.
std::string hardware_moved(const grants::Grant& g, const Result<std::vector<std::string>>& now) {
  if (!now) return g.repo + " holds " + g.device + ", whose hardware cannot be told now: " + now.error().message;
  if (grants::moved_to(*g.hardware, *now).empty()) return "";
  return g.repo + " holds " + g.device + ", which now reaches other hardware than was granted (" +
         grants::move_clause(*g.hardware, *now) + ")";
}

std::vector<Check> grants(const Facts& f) {
  if (!f.grants) {
    return {kCheck.fail("grants", f.grants.error().message,
                        "every grant command refuses, and requests naming CDI devices are refused",
                        "fix or move the file")};
  }
  std::vector<Check> out;
  size_t exclusive = 0;
  const cdi::ReachMap reach(f.specs, f.fresh);
  const probe::HardwareReader reader(f.fs);
  std::map<std::string, Result<std::vector<std::string>>> read;
  const auto live = [&](const std::string& device) -> const Result<std::vector<std::string>>& {
    auto it = read.find(device);
    if (it != read.end()) return it->second;
    const auto* d = cdi::find_device(f.specs, device);
    auto ids = d ? reader.identities(d->device_nodes) : Result<std::vector<std::string>>(std::vector<std::string>{});
    return read.emplace(device, std::move(ids)).first->second;
  };
  std::vector<std::string> unpinned;
  for (const auto& g : f.grants->grants) {
    const size_t first = out.size();
    // Every finding of this grant is about its repository: scripts group by subject.
    const auto about_repo = [&out, first, &g] {
      for (size_t i = first; i < out.size(); ++i) out[i].subject = g.repo;
    };
    if (g.exclusive) ++exclusive;
    const auto* def = cdi::find_device(f.specs, g.device);
    const bool defined = def != nullptr;
    const std::string revoke = "rediacc-gpu revoke " + g.repo + " --device " + g.device;
    if (defined) {
      if (auto why = cdi::ungrantable_reason(*def); !why.empty()) {
        out.push_back(kCheck.fail("grants", g.repo + " holds " + g.device, why, "revoke it (" + revoke + ")"));
      }
      if (g.hardware) {
        if (auto why = hardware_moved(g, live(g.device)); !why.empty())
          out.push_back(kCheck.fail(
              "grants", why,
              "the gate refuses the name, and a container made before the change reaches the other card until it "
              "is recreated",
              "check what " + g.repo + " should have, then re-grant to accept it (rediacc-gpu grant " + g.repo +
                  " --device " + g.device +
                  "), or grant the name keyed by the card (rediacc-gpu list) and revoke "
                  "this one (" +
                  revoke + ")"));
      } else {
        unpinned.push_back(g.repo + ": " + g.device);
      }
    }
    if (!defined) {
      out.push_back(kCheck.warn(
          "grants",
          g.repo + " holds " + g.device + ", which no spec defines now" +
              (g.hardware && !g.hardware->empty() ? " (it reached " + joined(*g.hardware) + " when granted)" : ""),
          "the repository's containers asking for it fail at create",
          "revoke it (" + revoke +
              ") or bring the device back; after a re-partition or MIG change, "
              "grant the name that now reaches that hardware"));
    }
    if (!g.exclusive) {
      about_repo();
      continue;
    }
    // A reservation that recorded its hardware is of that hardware (below): the names now may
    // have moved, the reserving one included, and would blame the wrong grant.
    for (const auto& h :
         g.hardware ? std::vector<grants::AliasHolder>{} : grants::alias_holders(*f.grants, reach, g.repo, g.device)) {
      out.push_back(
          kCheck.fail("grants",
                      g.repo + " holds " + g.device + " exclusively, and " + h.repo + " holds " + h.alias +
                          ", which reaches the same GPU",
                      "the GPU is reserved for one repository, yet both repositories' containers can use it (granted "
                      "before the specs changed, or by an older rediacc-gpu)",
                      "revoke it (rediacc-gpu revoke " + h.repo + " --device " + h.alias + ") if the GPU is to be " +
                          g.repo + "'s alone"));
    }
    // Names that reach the reserved card now, whatever the names say of each other.
    for (const auto& other : f.grants->grants) {
      if (other.repo == g.repo || !g.hardware) continue;
      const auto& now = live(other.device);
      if (!now) continue;
      if (auto id = grants::shared_hardware(*g.hardware, *now); !id.empty()) {
        out.push_back(kCheck.fail("grants",
                                  g.repo + " reserved " + id + " through " + g.device + ", and " + other.repo + "'s " +
                                      other.device + " reaches it now",
                                  "the gate refuses " + other.repo +
                                      "'s name, and a container made before the change reaches the "
                                      "reserved card until it is recreated",
                                  "revoke it (rediacc-gpu revoke " + other.repo + " --device " + other.device +
                                      ") or grant " + other.repo + " a name keyed by the card it should have"));
      }
    }
    about_repo();
  }
  if (!unpinned.empty()) {
    out.push_back(kCheck.warn(
        "grant-hardware",
        std::to_string(unpinned.size()) +
            " grants were written before rediacc-gpu recorded the hardware a grant reaches: " + joined(unpinned),
        "the gate cannot tell whether these names moved to another card since",
        "grant each again to record the card it reaches now (rediacc-gpu grant REPO --device "
        "NAME), after checking that it is the card the repository should have"));
  }
  if (f.grants->grants.empty()) return {kCheck.skip("grants", "no repository holds a grant")};
  if (std::none_of(out.begin(), out.end(), [](const Check& c) { return c.id == "grants"; })) {
    out.push_back(
        kCheck.ok("grants",
                  std::to_string(f.grants->grants.size()) + " grants (" + std::to_string(exclusive) +
                      " exclusive), each naming a defined device" +
                      (unpinned.size() < f.grants->grants.size() ? " and reaching the hardware it was granted on" : ""),
                  Evidence("grants.json, the CDI specs in /etc/cdi, each node's card read now in /sys")));
  }
  return out;
}

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
  auto out = grants(f);
  out.push_back(cgroups(f));
  out.push_back(security_modules(f));
  out.push_back(persistenced(f));
  out.push_back(rootless(f));
  out.push_back(user_namespaces(f));
  out.push_back(buildkit(f));
  return out;
}

}  // namespace rgpu::doctor
