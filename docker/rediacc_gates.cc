#include "docker/rediacc_gates.h"

#include "docker/rediacc_layout.h"
#include "docker/running_daemons.h"

namespace rgpu::docker {

std::vector<RepoDaemonGate> repo_daemon_gates(const std::vector<std::string>& ids,
                                              const std::vector<DaemonGateReads>& running) {
  std::vector<RepoDaemonGate> gates;
  for (const auto& id : ids) {
    RepoDaemonGate gate{.network_id = id};
    for (const auto& d : running) {
      if (!d.unix_host || rediacc_network_id(*d.unix_host) != id) continue;
      gate.pid = d.pid;
      gate.state = !d.plugin_repo         ? RepoDaemonGate::State::no_gate
                   : *d.plugin_repo != id ? RepoDaemonGate::State::other_gate
                                          : RepoDaemonGate::State::own_gate;
      gate.plugin_repo = d.plugin_repo.value_or("");
    }
    gates.push_back(std::move(gate));
  }
  return gates;
}

std::vector<RepoDaemonGate> repo_daemon_gates(const RootFs& fs) {
  std::vector<DaemonGateReads> running;
  for (const auto& d : running_docker_daemons(fs)) {
    const auto config = daemon_config(fs, d);
    running.push_back({d.pid, unix_host(d, config), plugin_repo(d, config)});
  }
  return repo_daemon_gates(rediacc_network_ids(fs), running);
}

std::string renet_restart_command(const std::string& network_id) {
  return "renet daemon stop --network-id " + network_id + " && renet daemon start --network-id " + network_id +
         " (or systemctl restart " + kRediaccDaemonPrefix + network_id + ".service)";
}

std::string gate_fault(const RepoDaemonGate& gate) {
  const std::string daemon = "dockerd " + gate.pid + " of repository " + gate.network_id;
  switch (gate.state) {
    case RepoDaemonGate::State::no_gate: return daemon + " runs without any rediacc-gpu plugin";
    case RepoDaemonGate::State::other_gate: return daemon + " calls the plugin of repository " + gate.plugin_repo;
    case RepoDaemonGate::State::own_gate:
    case RepoDaemonGate::State::stopped: break;
  }
  return "";
}

}  // namespace rgpu::docker
