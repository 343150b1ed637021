// Layer 5, the machine's host policy and what it lets through: which policy the gate applies and
// why; renet's repository daemons each behind its plugin and its view; and, where services run on
// the host's network, what such a container reaches that Rediacc's loopback isolation does not cover.

#include <arpa/inet.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "core/host_policy.h"
#include "core/joined.h"
#include "core/state_paths.h"
#include "docker/proc_tables.h"
#include "docker/rediacc_gates.h"
#include "docker/rediacc_layout.h"
#include "docker/repo_plugin.h"
#include "docker/runtime_wiring.h"
#include "doctor/doctor.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::policy};

// The roots a recorded policy lets binds come from, as the operator named them or by default.
std::string bind_roots_text(const RecordedPolicy& p) {
  const auto& roots = p.bind_roots ? *p.bind_roots : *default_bind_roots(p.policy);
  std::vector<std::string> shown;
  for (const auto& r : roots) shown.push_back(r.path + (r.read_only ? " (read-only)" : ""));
  const std::string list = shown.empty() ? std::string("no directory") : joined(shown);
  if (!p.bind_roots) return list + " (the policy's defaults: this record predates bind roots)";
  return list + (p.bind_roots_named ? " (named by an operator: setup --bind-root)" : " (the policy's defaults)");
}

Check host_policy(const Facts& f) {
  const auto& recorded = f.policy.host_policy;
  const auto& rediacc = f.policy.rediacc_layout;
  if (!recorded)
    return kCheck.fail(
        "host-policy", recorded.error().message, "the gate applies the strict rules while the record cannot be read",
        "remove the file, then run rediacc-gpu setup (--host-policy=auto|rediacc|strict) to record it again");
  if (!*recorded && !rediacc)
    return kCheck.ok("host-policy", "no host policy recorded: the gate applies the strict rules",
                     Evidence(std::string(state::kHostPolicyPath) + " (missing), no Rediacc layout"));
  if (!*recorded) {
    return kCheck.fail("host-policy",
                       "no host policy recorded (" + std::string(state::kHostPolicyPath) +
                           " is missing) on a Rediacc machine (" + *rediacc + ")",
                       "the gate applies the strict rules, which refuse every renet service (host networking)",
                       "run rediacc-gpu setup, which records the machine's policy");
  }
  const auto& p = **recorded;
  if (p.policy == HostPolicy::strict && rediacc) {
    return kCheck
        .warn("host-policy", "host policy strict (" + p.reason + ") on a Rediacc machine: " + *rediacc,
              "every renet service runs on the host's network and is refused; checkpoints are refused",
              "run rediacc-gpu setup --host-policy=rediacc unless the strict rules are meant")
        .from(state::kHostPolicyPath);
  }
  return kCheck
      .ok("host-policy",
          "host policy " + std::string(to_string(p.policy)) + " (" + p.reason + "); containers may bind host " +
              "directories only from " + bind_roots_text(p),
          Evidence(state::kHostPolicyPath))
      .because(p.policy == HostPolicy::rediacc
                   ? "host networking, the checkpoint capabilities, apparmor=unconfined, --userns host, /dev/net/tun "
                     "and checkpoints in the daemon's own directory pass, as renet sends them; devices, other "
                     "repositories' daemons, data and GPUs stay refused"
                   : "only what the gate's strict rules allow passes",
               "");
}

// renet's repository daemons: each running behind its own plugin, reading its own view (the
// view itself is judged by repo-cdi-view). One that runs without its gate is restarted by renet's
// own commands once setup's drop-in is there; setup never restarts one (its containers stop).
Check rediacc_daemons(const Facts& f) {
  const auto& ids = f.policy.rediacc_ids;
  if (ids.empty()) return kCheck.skip("rediacc-daemons", "no renet repository daemon (rediacc-docker-ID) here");
  std::vector<docker::DaemonGateReads> running;
  for (const auto& d : f.policy.daemons) running.push_back({d.daemon.pid, d.unix_host, d.plugin_repo});
  std::vector<std::string> bad, restarts, fine, stopped;
  for (const auto& gate : docker::repo_daemon_gates(ids, running)) {
    if (gate.state == docker::RepoDaemonGate::State::stopped) {
      stopped.push_back(gate.network_id);
    } else if (gate.state == docker::RepoDaemonGate::State::own_gate) {
      fine.push_back(gate.network_id + " (dockerd " + gate.pid + ")");
    } else {
      bad.push_back(docker::gate_fault(gate));
      restarts.push_back(docker::renet_restart_command(gate.network_id));
    }
  }
  if (!bad.empty()) {
    const std::string restart = "restart " + std::string(bad.size() == 1 ? "it" : "each") +
                                " when its tenants can stop for a moment: " + joined(restarts, "; ");
    return kCheck.fail("rediacc-daemons", joined(bad, "; "),
                       "its containers attach devices, bind other repositories' sockets and data, and run privileged "
                       "without the gate",
                       f.policy.rediacc_gate_dropin
                           ? restart + " (setup's drop-in starts it behind its own plugin)"
                           : "run rediacc-gpu setup (it writes the drop-in that starts each repository daemon behind "
                             "its own plugin), then " +
                                 restart);
  }
  if (fine.empty())
    return kCheck.skip("rediacc-daemons", "no renet repository daemon is running (" + joined(stopped) + ")");
  return kCheck.ok("rediacc-daemons", "each running repository daemon calls its own plugin: " + joined(fine),
                   Evidence("renet's units and sockets, each dockerd's command line in /proc"));
}

// Each daemon behind a rediacc-gpu plugin makes its containers through the verifier in front of runc:
// the one place a restart by policy, a daemon's restart and a start racing a link swap all pass.
Check runtime_verifier(const Facts& f) {
  std::vector<std::string> bad, fixes, fine;
  for (const auto& d : f.policy.daemons) {
    if (!d.plugin_repo || !d.runtime) continue;
    const std::string who = "dockerd " + d.daemon.pid + " of repository " + *d.plugin_repo;
    if (const auto fault = docker::runtime_wiring_fault(*d.runtime); !fault.empty()) {
      bad.push_back(who + ": " + fault);
      const auto id = d.unix_host ? docker::rediacc_network_id(*d.unix_host) : std::nullopt;
      fixes.push_back(id ? docker::renet_restart_command(*id) : "systemctl restart the unit of " + who);
    } else {
      fine.push_back(*d.plugin_repo + " (dockerd " + d.daemon.pid + ": " + *d.runtime->first_runc + ", then " +
                     *d.runtime->next_runc + ")");
    }
  }
  if (const auto& staging = f.policy.runtime_staging; staging && (staging->first != 0 || (staging->second & 077) != 0))
    bad.push_back(std::string("the verifier's staging directory ") + state::kRuntimeStagingDir +
                  " is not root's alone, so a staged source could be replaced before runc binds it");
  if (!bad.empty())
    return kCheck.fail("runtime-verifier", joined(bad, "; "),
                       "a container restarted by its policy or by the daemon's restart, or started while a tenant "
                       "swaps a checked directory for a link, gets what no request showed the gate",
                       "run rediacc-gpu setup (it puts the verifier first on each repository daemon's PATH), then "
                       "restart each daemon when its tenants can stop for a moment" +
                           (fixes.empty() ? std::string() : ": " + joined(fixes, "; ")));
  if (fine.empty()) return kCheck.skip("runtime-verifier", "no running daemon calls a rediacc-gpu plugin");
  return kCheck.ok("runtime-verifier",
                   "each guarded daemon's containers are made through the verifier in front of runc: " + joined(fine),
                   Evidence("each daemon's containerd's PATH in /proc"));
}

// "0100007F:1F90" -> 127.0.0.1 and 8080, from /proc/net/tcp's local_address (little-endian IPv4).
std::optional<std::pair<uint32_t, unsigned>> listener(const std::string& local) {
  const auto colon = local.find(':');
  if (colon != 8) return std::nullopt;
  try {
    const auto raw = static_cast<uint32_t>(std::stoul(local.substr(0, 8), nullptr, 16));
    return std::pair{ntohl(raw), static_cast<unsigned>(std::stoul(local.substr(9), nullptr, 16))};
  } catch (...) {
    return std::nullopt;
  }
}

std::string dotted(uint32_t a) {
  return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 255) + "." + std::to_string((a >> 8) & 255) + "." +
         std::to_string(a & 255);
}

// A repository's loopback range: 127.x.y.z/26 with x.y.z the network id (2816 + n*64 reads 127.0.11.0).
bool in_repository_range(uint32_t address, const std::vector<std::string>& ids) {
  for (const auto& id : ids) {
    const auto n = std::stoul(id);
    if ((address & 0xFFFFFFC0u) == (0x7F000000u | (n & 0xFFFFFFu & ~63u))) return true;
  }
  return false;
}

// Loopback listeners of the host's own network namespace outside every repository's range.
std::vector<std::string> loopback_listeners(const facts::HostNetworkReads& read, const std::vector<std::string>& ids) {
  std::set<std::string> out;
  const auto& table = read.tcp_table;
  if (!table) return {};
  std::istringstream lines(*table);
  std::string line;
  std::getline(lines, line);
  for (; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    if (!(fields >> slot >> local >> remote >> state) || state != "0A") continue;
    const auto l = listener(local);
    if (!l) continue;
    const bool loopback = (l->first >> 24) == 127 || l->first == 0;
    if (!loopback || in_repository_range(l->first, ids)) continue;
    out.insert(dotted(l->first) + ":" + std::to_string(l->second));
  }
  return {out.begin(), out.end()};
}

// Abstract unix sockets ("@name"): a host-network container shares the namespace they live in,
// and no file permission guards them.
std::vector<std::string> abstract_sockets(const facts::HostNetworkReads& read) {
  std::set<std::string> out;
  const auto& table = read.unix_table;
  if (!table) return {};
  for (const auto& l : docker::unix_listeners(*table)) {
    if (l.path.starts_with("@")) out.insert(l.path);
  }
  return {out.begin(), out.end()};
}

// The eBPF bind and connect programs in effect on each running repository daemon's cgroup, read
// from the kernel; on another --root, not this machine's kernel, they cannot be.
std::string isolation(const facts::HostNetworkReads& read) {
  if (!read.isolation) return "the eBPF isolation is not read under --root (the kernel is this machine's)";
  std::vector<std::string> seen;
  for (const auto& d : *read.isolation) {
    const auto& count = d.socket_programs;
    std::string said = "repository " + d.network_id + " (dockerd " + d.pid + "): ";
    if (!count) {
      said += "its cgroup's eBPF programs cannot be read";
    } else {
      said += std::to_string(*count) + " socket bind/connect eBPF programs in effect on " + *d.cgroup_dir;
      // The daemon itself connects for its pulls and a Dockerfile's ADD URL, which no request names.
      if (*count == 0) said += " (the daemon's own pulls and a build's ADD of a URL reach every loopback service)";
    }
    seen.push_back(said);
  }
  if (seen.empty()) return "no repository daemon runs, so no eBPF isolation was read";
  return joined(seen, ", ");
}

Check host_network(const Facts& f) {
  // Read only where the host policy lets containers share the host's network.
  if (!f.policy.host_network) return kCheck.skip("host-network", "the host policy refuses host networking");
  const auto& read = *f.policy.host_network;
  const auto listeners = loopback_listeners(read, f.policy.rediacc_ids);
  const auto abstract = abstract_sockets(read);
  std::string observed =
      "host-network containers reach " +
      (listeners.empty() ? std::string("no loopback listener outside the repositories' ranges")
                         : "loopback listeners outside every repository's range: " + joined(listeners)) +
      "; " +
      (abstract.empty() ? std::string("no abstract unix socket")
                        : std::to_string(abstract.size()) + " abstract unix sockets (" +
                              joined(std::vector<std::string>(
                                  abstract.begin(), abstract.begin() + std::min<size_t>(abstract.size(), 5))) +
                              (abstract.size() > 5 ? ", ..." : "") + ")");
  observed += "; " + isolation(read);
  const std::string meaning =
      "Rediacc's eBPF hooks confine connections between repositories' loopback ranges; they do not cover listeners "
      "outside those ranges (DCGM's nv-hostengine on 5555, the fabric manager on 6666 bind 127.0.0.1 or 0.0.0.0) "
      "nor abstract unix sockets, which any host-network container can connect to; a checkpoint-labelled "
      "container's NET_ADMIN on the host's network can change the host's routes, addresses, firewall rules and the "
      "loopback aliases every repository binds";
  if (listeners.empty() && abstract.empty())
    return kCheck.ok("host-network", observed, Evidence("/proc/net/tcp, /proc/net/unix")).because(meaning, "");
  return kCheck
      .warn("host-network", observed, meaning,
            "bind host services to a unix socket or an address outside 127.0.0.0/8 that no repository "
            "reaches, or firewall them; give NET_ADMIN only to repositories trusted with the host's network")
      .from("/proc/net/tcp, /proc/net/unix");
}

}  // namespace

std::vector<Check> host_policy_checks(const Facts& f) {
  return {host_policy(f), rediacc_daemons(f), runtime_verifier(f), host_network(f)};
}

}  // namespace rgpu::doctor
