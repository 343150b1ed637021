#pragma once
// The authorization plugin's transport: HTTP/1.1 over a unix socket with Boost.Beast, one event
// loop on one thread serving any number of connections (dockerd keeps some open). Each call is
// answered by plugin_reply, from the grants at the moment of the request. A call whose answer
// asks the daemon for a stored container is answered on a worker thread: the daemon's own
// AuthZReq for that lookup arrives while it waits, and the event loop serves it.

#include <memory>
#include <string>

#include "core/result.h"
#include "plugin/protocol.h"

namespace rgpu::plugin {

class AuthzServer {
 public:
  AuthzServer(grants::GrantsSource grants, PluginSettings settings, RefusalLog log);
  ~AuthzServer();
  AuthzServer(const AuthzServer&) = delete;
  AuthzServer& operator=(const AuthzServer&) = delete;

  /// Listens on a new socket at `path` (mode 0600; its directory is made if missing). A stale
  /// socket nobody answers on is replaced; a live one, or a file that is not a socket, is an error.
  Result<void> listen(const std::string& path);
  /// Serves on a socket already listening, handed over by systemd (socket activation).
  Result<void> adopt(int fd);
  /// Serves until SIGTERM or SIGINT, or stop(); a socket made by listen() is removed on the way out.
  void run();
  /// Makes run() return; callable from another thread.
  void stop();

 private:
  Result<void> listen_locked(const std::string& path);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The listening socket systemd passed to this process (LISTEN_PID/LISTEN_FDS, fd 3), if any.
int socket_from_systemd();

}  // namespace rgpu::plugin
