#pragma once
// The two /proc tables the Docker side reads processes from: which processes there are, and which
// unix sockets listen in a process's network namespace.

#include <sys/types.h>

#include <set>
#include <string>
#include <vector>

#include "core/root_fs.h"

namespace rgpu::docker {

/// The processes under the root's /proc (its numeric entries), in /proc's order.
std::vector<std::string> process_ids(const RootFs& fs);

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
