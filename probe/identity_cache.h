#pragma once
// HardwareReader's memory between calls: each device number's last answer with the few files it
// was read from, the descriptors kept open to read those again cheaply (evidence files, links'
// directories, the nodes' directories), and the mount table watched so that none of them is
// trusted after a mount. Every answer is checked against the machine before it is given again:
// one link and one file a GPU when nothing moved, and derived anew (identity_rules.h) when one of
// them changed. Probe's own: other rooms ask HardwareReader. Not thread-safe: the reader calls it
// under its lock.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <sys/stat.h>

#include "core/result.h"
#include "core/root_fs.h"
#include "probe/identity_rules.h"

namespace rgpu::probe {

/// What a reach over a list of nodes was read from (HardwareReader::ReachMemo keeps it).
struct ReachProof {
  bool whole = true;  ///< every node was looked up through a settled directory
  std::vector<identity::Evidence> evidence;
  std::vector<std::pair<std::string, struct ::stat>> dirs;  ///< each directory, as it was then
  unsigned mounts_changed = 0;                              ///< the cache's count of mount changes then
};

namespace identity {

/// What each piece of evidence read as during one call: read once a call, and every answer
/// compared with that same reading.
using Seen = std::map<std::string, Evidence>;

class Cache {
 public:
  explicit Cache(const RootFs& fs) : fs_(fs) {}

  /// What `node` is and reaches: the kept answer while its evidence still reads as it did, else
  /// one derived anew (kept when it answers; a failure is looked at afresh each time). Adds what
  /// the answer was read from to `proof` when given.
  Result<Found> found(const NodeRef& node, Seen& seen, ReachProof* proof);
  /// An empty proof, as the mount table stands now.
  ReachProof new_proof(Seen& seen);
  /// Whether everything `proof` was read from still reads as it did: no mount since, each
  /// directory settled and unchanged, each piece of evidence the same.
  bool holds(const ReachProof& proof, Seen& seen);

 private:
  struct Dir {
    UniqueFd fd;
    struct ::stat seen {};  ///< the directory's status when `entries` were read
    bool settled = false;   ///< unchanged for a second when last looked at: entries may be kept
    std::map<std::string, struct ::stat> entries;
  };

  Result<DeviceNumber> number_of(const NodeRef& node, Seen& seen, ReachProof* proof);
  /// The node's own status (RootFs::lstat) through its directory, kept open from the last time. A
  /// directory removed and made anew holds no entries, so a miss is asked again through a fresh
  /// open before it counts. What a settled directory's entries are is kept: a node is made,
  /// removed or renamed only through its directory, which changes its mtime and ctime, so one fstat
  /// of the directory a call stands for every node in it. Not trusted while the directory changed
  /// within the last second (the clock the times come from is coarse), nor after the mount table
  /// changed (a node bind-mounted over another leaves its directory as it was).
  std::optional<struct ::stat> lstat(const std::string& path, Seen& seen, ReachProof* proof);
  /// The kept directory `name`, looked at once a call (opened again when `fresh`, or when it was
  /// removed); null when it cannot be opened.
  Dir* dir_now(const std::string& name, Seen& seen, bool fresh);
  bool still_holds(const Evidence& e, Seen& seen);
  /// A file's text again through the descriptor kept from the last time: one pread and one
  /// fstat (a file removed and made anew is opened again), or a link's through its directory's;
  /// absent when it cannot be read so.
  std::optional<Evidence> reread(const Evidence& e, Seen& seen);
  std::optional<Evidence> relink(const Evidence& e);
  /// check_mounts once a call.
  void mounts_checked(Seen& seen);
  /// Forgets every kept descriptor and entry when the process's mount table changed since the
  /// last call.
  void check_mounts();
  void forget_descriptors();

  const RootFs& fs_;
  std::map<std::string, Answer> answers_;      ///< device number ("c195:1") -> its last answer
  std::map<std::string, UniqueFd> files_;      ///< evidence files kept open, by machine path
  std::map<std::string, Dir> dirs_;            ///< nodes' directories kept open, by machine path
  std::map<std::string, UniqueFd> link_dirs_;  ///< evidence links' directories kept open
  UniqueFd mounts_;                            ///< /proc/self/mountinfo, polled for a change
  unsigned mounts_changed_ = 0;                ///< how many times the mount table was seen to change
};

}  // namespace identity
}  // namespace rgpu::probe
