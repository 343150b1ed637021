// Layer 2: each node a spec maps keeps its /dev/char link, or systemd applying a container's device
// rules again (a daemon-reload, a change to its scope) can take it from the running containers whose
// daemon uses the systemd cgroup driver (cdi/char_links.h says which runc).

#include <set>

#include "core/joined.h"
#include "doctor/doctor.h"
#include "facts/daemon_answers.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::device_nodes};

// The daemons that hand their containers' devices to systemd (GET /info's CgroupDriver).
std::vector<std::string> systemd_driven(const Facts& f) {
  std::vector<std::string> out;
  for (const auto& a : f.answers) {
    if (facts::answer_text(a.info, "CgroupDriver") == "systemd") out.push_back(a.label);
  }
  return out;
}

// Who holds each node now, as usage found them: "container gpu-job (repository web)".
std::vector<std::string> holders(const Facts& f, const std::set<std::string>& nodes) {
  std::set<std::string> out;
  if (!f.usage) return {};
  for (const auto& use : f.usage->gpus) {
    for (const auto& p : use.processes) {
      bool holds = false;
      for (const auto& n : p.nodes) holds = holds || nodes.count(n);
      if (!holds) continue;
      if (p.container_name)
        out.insert("container " + *p.container_name + (p.repository ? " (repository " + *p.repository + ")" : ""));
      else if (p.container)
        out.insert("container " + p.container->substr(0, 12));
    }
  }
  return {out.begin(), out.end()};
}

}  // namespace

Check char_link_check(const Facts& f) {
  const auto& links = f.chain.host.char_links;
  if (links.empty()) return kCheck.skip("char-links", "no spec maps a character node that is on this machine");
  std::vector<std::string> missing;
  std::set<std::string> nodes;
  for (const auto& l : links) {
    if (l.present) continue;
    missing.push_back(l.node + " (" + l.link + ")");
    nodes.insert(l.node);
  }
  if (missing.empty())
    return kCheck.ok("char-links",
                     std::to_string(links.size()) + " node(s) the specs map, each with its /dev/char link",
                     Evidence("/etc/cdi's device nodes, /dev/char"));
  const std::string observed = "no /dev/char link for " + joined(missing);
  const std::string fix = "run rediacc-gpu cdi views (it makes the links; setup and every boot do too)";
  const auto driven = systemd_driven(f);
  if (driven.empty() && f.chain.host.cgroup_v2)
    return kCheck.warn("char-links", observed,
                       "no running daemon hands its devices to systemd now, but on cgroup v2 Docker's default cgroup "
                       "driver is systemd: with runc 1.1.3 to 1.1.6 (Debian 12's) a daemon started with it loses these "
                       "nodes when systemd applies its containers' device rules again (a daemon-reload)",
                       fix);
  if (driven.empty())
    return kCheck.ok(
        "char-links",
        observed + "; no running daemon uses the systemd cgroup driver, and on cgroup v1 Docker's default is cgroupfs",
        Evidence("/etc/cdi's device nodes, /dev/char, each daemon's GET /info"));
  const auto held = holders(f, nodes);
  return kCheck.fail("char-links", observed,
                     "runc's systemd cgroup driver names each device to systemd by that link, and runc 1.1.3 to "
                     "1.1.6 (Debian 12's) leave out a device without it: when systemd applies the device rules "
                     "of a container of " +
                         joined(driven) +
                         " again (a daemon-reload, a change to its scope), it has none of these nodes, and " +
                         (held.empty() ? std::string("a container given one") : joined(held)) +
                         " loses it (Failed to initialize NVML: Unknown Error, or EPERM on open)",
                     fix + "; a container that already lost a node must be recreated");
}

}  // namespace rgpu::doctor
