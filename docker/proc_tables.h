#pragma once
// The two /proc tables the Docker side reads processes from: which processes there are, and which
// unix sockets listen in a process's network namespace.

#include <sys/types.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/root_fs.h"

namespace rgpu::docker {

/// The processes under the root's /proc (its numeric entries), in /proc's order.
std::vector<std::string> process_ids(const RootFs& fs);

/// When a process started.
struct ProcessStart {
  unsigned long long ticks = 0;  ///< clock ticks after boot (/proc/PID/stat): with the pid, which process it is
  /// On the wall clock, the end of the kernel's tick (10 ms) it started in: it had started by then.
  std::chrono::system_clock::time_point by;
};

/// When process `pid` started: its /proc/PID/stat against the boot clock (the kernel's on the
/// host's own root, the root's /proc/uptime elsewhere) and the wall clock now. An error naming the
/// files when they cannot be read.
Result<ProcessStart> process_started(const RootFs& fs, const std::string& pid);

/// Process `pid`'s command line, argv[0] first; empty when it is gone or a kernel thread.
std::vector<std::string> process_args(const RootFs& fs, const std::string& pid);

/// The inodes of the sockets process `pid` holds open (its /proc/PID/fd, each link followed by
/// the kernel); only on the host's own root, where those links are real.
std::set<ino_t> held_socket_inodes(const RootFs& fs, const std::string& pid);

struct UnixListener {
  unsigned long inode = 0;
  std::string path;  ///< "/run/x.sock", or "@name" for an abstract socket
};

/// The listening sockets of a /proc/PID/net/unix table ("Num RefCount Protocol Flags Type St Inode
/// Path", Flags 00010000: listening); sockets without a name are left out. Pure.
std::vector<UnixListener> unix_listeners(const std::string& table);

}  // namespace rgpu::docker
