#pragma once
// Which dockerd serves a unix socket, from the socket itself: the peer that answers a connection,
// or, when that peer only holds the socket for a daemon (systemd's socket activation, dockerd
// -H fd://), the dockerd that was handed the listening socket.

#include <string>

#include "core/result.h"
#include "docker/running_daemons.h"

namespace rgpu::docker {

/// The dockerd serving the unix socket at `socket_path` (a host path), read from the host's
/// /proc; an error naming the socket or the process when none can be told.
Result<RunningDaemon> serving_daemon(const std::string& socket_path);

}  // namespace rgpu::docker
