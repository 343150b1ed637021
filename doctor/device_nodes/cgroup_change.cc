// Layer 2: the playbook's fourth horseman. Whether the host's cgroup mode or a repository daemon's
// cgroup driver changed since setup recorded them (docker/cgroup_record.h): that decides who
// holds a container's device rules, and so what a systemctl daemon-reload does to them.

#include "core/joined.h"
#include "doctor/doctor.h"
#include "facts/daemon_answers.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::device_nodes};

std::string after_host_change(bool v2) {
  return v2 ? "on cgroup v2 a container's devices are an eBPF program, and Docker's default cgroup driver is "
              "systemd, which builds that program from the /dev/char links runc names and applies it again at a "
              "daemon-reload (char-links)"
            : "on cgroup v1 a container's devices are the devices controller's, and Docker's default cgroup driver "
              "is cgroupfs, whose rules a daemon-reload leaves alone";
}

std::string after_driver_change(const std::string& driver) {
  return driver == "systemd" ? "systemd now holds its containers' device rules, built from the /dev/char links "
                               "runc names, and applies them again at a daemon-reload (char-links)"
                             : "its containers' device rules are its own again: a daemon-reload leaves them alone";
}

}  // namespace

Check cgroup_change_check(const Facts& f) {
  constexpr const char* kId = "cgroup-change";
  const auto& host = f.chain.host;
  if (!host.cgroup_record)
    return kCheck.skip(kId, "setup has recorded no cgroup mode here yet (rediacc-gpu setup records it)");
  const auto& was = *host.cgroup_record;
  std::vector<std::string> changes, follows;
  if (was.host_v2 != host.cgroup_v2) {
    changes.push_back("the host moved from " + docker::cgroup_mode(was.host_v2) + " to " +
                      docker::cgroup_mode(host.cgroup_v2) + " since setup");
    follows.push_back(after_host_change(host.cgroup_v2));
  }
  for (const auto& a : f.answers) {
    const auto recorded = was.drivers.find(a.repo);
    const auto now = facts::answer_text(a.info, "CgroupDriver");
    if (a.repo.empty() || recorded == was.drivers.end() || now.empty() || now == recorded->second) continue;
    changes.push_back("repository " + a.repo + "'s daemon uses the " + now + " cgroup driver (setup found " +
                      recorded->second + ")");
    follows.push_back("for repository " + a.repo + ", " + after_driver_change(now));
  }
  if (changes.empty())
    return kCheck.ok(kId,
                     docker::cgroup_mode(host.cgroup_v2) +
                         " and the repository daemons' cgroup drivers, as setup "
                         "recorded them",
                     Evidence("/sys/fs/cgroup, GET /info of each repository daemon, /var/lib/rediacc/gpu/cgroup.json"));
  return kCheck.warn(kId, joined(changes, "; "), joined(follows, "; "),
                     "restart the containers started before the change (each keeps the cgroup it was started in), "
                     "then run rediacc-gpu setup to record the machine as it is now");
}

}  // namespace rgpu::doctor
