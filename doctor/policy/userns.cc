// Layer 5: whether a container's root is root on the host. The gate judges a bind when the
// container is created; a tenant that swaps a checked path for a link before the container starts
// (or restarts) is stopped only by the kernel, and only when the daemon maps container root to an
// unprivileged host user (docs/gate-limits.md).

#include <algorithm>

#include "docker/rediacc_layout.h"
#include "docker/running_daemons.h"
#include "doctor/doctor.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::policy};
using docker::RunningDaemon;

// "rootless", "userns-remap=VALUE", or nothing when container root is host root.
std::optional<std::string> remapping(const facts::DaemonReads& r) {
  const auto& d = r.daemon;
  if (!d.root_user || std::find(d.args.begin(), d.args.end(), "--rootless") != d.args.end()) return "rootless";
  if (auto v = d.flag("--userns-remap"); v && !v->empty()) return "userns-remap=" + *v;
  const auto& json = r.config;
  if (json && json->contains("userns-remap") && (*json)["userns-remap"].is_string() &&
      !(*json)["userns-remap"].get<std::string>().empty()) {
    return "userns-remap=" + (*json)["userns-remap"].get<std::string>();
  }
  return std::nullopt;
}

std::string describe(const docker::RunningDaemon& d) {
  const auto plugin = d.flag("--authorization-plugin");
  return "dockerd " + d.pid + (plugin ? " (plugin " + *plugin + ")" : " (no authorization plugin)");
}

}  // namespace

Check user_namespaces(const Facts& f) {
  const auto& daemons = f.policy.daemons;
  if (daemons.empty()) return kCheck.skip("userns", "no running dockerd found in /proc");
  std::string remapped;
  std::string host_root;
  bool others = false;  // a host-root daemon whose daemon.json is the operator's, not renet's
  for (const auto& r : daemons) {
    const auto how = remapping(r);
    auto& list = how ? remapped : host_root;
    list += (list.empty() ? "" : ", ") + describe(r.daemon) + (how ? " " + *how : "");
    if (!how && !(r.unix_host && docker::rediacc_network_id(*r.unix_host))) others = true;
  }
  if (host_root.empty())
    return kCheck.ok("userns", "container root is no host root: " + remapped,
                     Evidence("each dockerd's userns-remap (flag or daemon.json), or its user"));
  const std::string meaning =
      "the gate checks bind sources when a container is created; a tenant that swaps a checked directory for a "
      "link before the container starts reaches that path as host root";
  // renet writes its daemons' daemon.json at every start: advice to edit it would not last.
  if (!others)
    return kCheck.warn("userns", "container root is host root under " + host_root, meaning,
                       "not possible for renet's repository daemons: renet rewrites each one's daemon.json at every "
                       "start (a userns-remap put there is lost) and runs checkpointed services with --userns host; "
                       "let tenants bind only directories they cannot write to from a container (rediacc-gpu setup "
                       "--bind-root PATH:ro)");
  return kCheck.warn("userns", "container root is host root under " + host_root, meaning,
                     "run repository daemons with \"userns-remap\": \"default\" in their daemon.json (or rootless); "
                     "until then let tenants bind only directories they cannot write to from a container");
}

}  // namespace rgpu::doctor
