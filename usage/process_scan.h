#pragma once
// Which processes hold a GPU's device nodes open, found by device number through /proc/PID/fd:
// the kernel follows each fd to the inode it opened, so a container's process counts whatever
// path its own mount namespace shows the node under (a CDI spec may map it anywhere, a bind
// mount may rename it). Reads only /proc under the root.

#include <sys/types.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/root_fs.h"
#include "usage/process_parsers.h"

namespace rgpu::usage {

/// One open DRM file: the node it is (by device number) and its statistics.
struct DrmFile {
  dev_t device = 0;
  DrmClient client;
};

/// One process that holds at least one of the nodes asked about.
struct NodeHolder {
  int pid = 0;
  std::string command;                   ///< /proc/PID/comm
  std::optional<std::string> container;  ///< the Docker container id its cgroup names
  std::set<dev_t> devices;               ///< the asked-about device numbers it holds open
  /// Its open DRM files' statistics by fd number, one per DRM client (a client reached through
  /// two fds counts once).
  std::map<int, DrmFile> drm_files;
};

/// What a walk of /proc found, and how much of it could be looked at.
struct HeldNodes {
  std::vector<NodeHolder> holders;  ///< by pid
  std::size_t processes = 0;        ///< processes whose open files were read
  /// Processes whose open files could not be read (another user's, when not run as root): a
  /// GPU they hold is not seen, and no check may say "none".
  std::size_t unreadable = 0;
};

/// Every process under the root's /proc holding a character device whose number is in
/// `devices`. A process that ends while it is read is left out.
HeldNodes processes_holding(const RootFs& fs, const std::set<dev_t>& devices);

/// The same DRM files read again: fd -> statistics, for utilisation over an interval.
std::map<int, DrmFile> reread_drm_files(const RootFs& fs, const NodeHolder& holder);

}  // namespace rgpu::usage
