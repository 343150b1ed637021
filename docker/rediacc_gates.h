#pragma once
// renet's repository daemons and the gate each runs behind: what setup reports when it wires the
// gate, and what doctor's rediacc-daemons check judges, from the same reading. A daemon started
// before the gate's drop-in existed runs without it until it restarts, and only an operator may
// restart it (its tenants' containers stop with it), so both name the command that does.

#include <optional>
#include <string>
#include <vector>

#include "core/root_fs.h"

namespace rgpu::docker {

/// What is read of one running dockerd: its pid, the unix socket it listens on and the repository
/// whose plugin it calls (docker::unix_host, docker::plugin_repo).
struct DaemonGateReads {
  std::string pid;
  std::optional<std::string> unix_host;
  std::optional<std::string> plugin_repo;
};

struct RepoDaemonGate {
  enum class State { own_gate, other_gate, no_gate, stopped };
  std::string network_id;
  State state = State::stopped;
  std::string pid = {};          ///< its dockerd's, when it runs
  std::string plugin_repo = {};  ///< the repository whose plugin it calls, for other_gate
};

/// Each of renet's network ids, matched with the running daemon listening on its socket; in the
/// order of `ids`.
std::vector<RepoDaemonGate> repo_daemon_gates(const std::vector<std::string>& ids,
                                              const std::vector<DaemonGateReads>& running);

/// The same, read from the machine now (rediacc_network_ids, running_docker_daemons).
std::vector<RepoDaemonGate> repo_daemon_gates(const RootFs& fs);

/// "renet daemon stop --network-id 2880 && renet daemon start --network-id 2880 (or systemctl
/// restart rediacc-docker-2880.service)": renet's own commands first, its unit second.
std::string renet_restart_command(const std::string& network_id);

/// "dockerd 200 of repository 2880 runs without any rediacc-gpu plugin" (or "calls the plugin of
/// repository 2816"); empty for a daemon behind its own gate or stopped.
std::string gate_fault(const RepoDaemonGate& gate);

}  // namespace rgpu::docker
