#include "docker/serving_daemon.h"

#include "docker/proc_tables.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "core/root_fs.h"

namespace rgpu::docker {
namespace {

// The pid whose credentials the socket's listener holds: the process that called listen(), which
// for a socket systemd made is systemd itself.
Result<pid_t> listener_pid(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail("cannot open a socket: " + std::string(std::strerror(errno)));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof(address.sun_path)) {
    ::close(fd);
    return fail("the socket path " + path + " is too long");
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  ucred peer{};
  socklen_t size = sizeof(peer);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
                  ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) == 0;
  const int error = errno;
  ::close(fd);
  if (!ok) return fail("the repository's daemon does not answer on " + path + " (" + std::strerror(error) + ")");
  return peer.pid;
}

// The inodes of the sockets listening at `path`, from /proc/PID/net/unix: the table of the
// listener's own network namespace (the reader's may be another: the plugin runs with
// PrivateNetwork=yes). "Num RefCount Protocol Flags Type St Inode Path", Flags 00010000 listening.
std::set<ino_t> listening_inodes(const RootFs& host, pid_t pid, const std::string& path) {
  std::set<ino_t> out;
  const auto table = host.read_file("/proc/" + std::to_string(pid) + "/net/unix");
  if (!table) return out;
  for (const auto& l : unix_listeners(*table)) {
    if (l.path == path) out.insert(static_cast<ino_t>(l.inode));
  }
  return out;
}

// True when the process holds an open socket whose inode is one of `inodes`.
bool holds_socket(const RootFs& host, const std::string& pid, const std::set<ino_t>& inodes) {
  for (const auto inode : held_socket_inodes(host, pid)) {
    if (inodes.count(inode)) return true;
  }
  return false;
}

}  // namespace

Result<RunningDaemon> serving_daemon(const std::string& socket_path) {
  const RootFs host("/");
  const auto pid = listener_pid(socket_path);
  if (!pid) return tl::unexpected(pid.error());
  if (auto daemon = read_daemon(host, std::to_string(*pid))) return *daemon;
  const auto inodes = listening_inodes(host, *pid, socket_path);
  if (!inodes.empty()) {
    for (auto& daemon : running_docker_daemons(host)) {
      if (holds_socket(host, daemon.pid, inodes)) return std::move(daemon);
    }
  }
  return fail("the process listening on " + socket_path + " (pid " + std::to_string(*pid) +
              ") is no dockerd, and no dockerd holds that socket");
}

}  // namespace rgpu::docker
