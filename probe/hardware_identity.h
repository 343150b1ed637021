#pragma once
// Which hardware a GPU's device node reaches, read live from the machine: what a grant records
// and what the gate compares with it at each request. Node numbers (renderD129, /dev/nvidia0,
// nvidia-cap21) are handed out in probe order and move when a card is added, removed or
// reordered; an identity does not:
//   an NVIDIA GPU                   its UUID                     "GPU-11111111-2222-…"
//   any other GPU                   its PCI address              "0000:03:00.0"
//   an AMD compute partition        card address/mode+index      "0000:05:00.0/cpx3"
//   a MIG slice                     GPU UUID/GPU and compute inst "GPU-…/gi1/ci0"
//   WSL2's /dev/dxg                 every GPU of the VM          "wsl"
// Read from the render or card node's sysfs link, /proc/driver/nvidia/gpus/*/information, the
// KFD topology and /proc/driver/nvidia-caps/mig-minors; never from a spec or the inventory,
// which are stale between a reboot and the next refresh.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sys/stat.h>

#include "core/result.h"
#include "core/root_fs.h"

namespace rgpu::probe {

/// A device node as a CDI spec gives it. The runtime creates the spec's own numbers when it gives
/// a type and a major (or a fifo), else whatever the host path is, read with lstat: a link is no
/// device node to it (the CDI library's fillMissingInfo). The path's text decides nothing.
struct NodeRef {
  std::string path;  ///< the host path (hostPath, else path)
  std::string type;  ///< "c", "u", "b", "p", or empty: the host node's
  std::int64_t major = 0;
  std::int64_t minor = 0;
  bool operator==(const NodeRef&) const = default;
};

/// Host paths as nodes without numbers: each is what the host node there is.
std::vector<NodeRef> node_refs(const std::vector<std::string>& paths);

/// What a list of nodes reaches: the identities, and the PCI addresses of the cards they are on.
struct Reach {
  std::vector<std::string> identities;  ///< sorted, without repeats
  std::vector<std::string> cards;       ///< sorted, without repeats; WSL's /dev/dxg adds none
  bool operator==(const Reach&) const = default;
};

class HardwareReader {
 public:
  explicit HardwareReader(const RootFs& fs) : fs_(fs) {}

  /// The identity of the GPU (or partition, or slice) `node` reaches now, judged by the device
  /// number the node is. Fails, naming the node, when it is gone, is no GPU's own node, or its
  /// hardware cannot be told. Thread-safe.
  Result<std::string> identity(const std::string& node) const;

  /// The identities of what the nodes reach, sorted, without repeats: each node's device number
  /// (the spec's, else the host node's) says what it is. Nodes every GPU of a driver shares
  /// (nvidiactl, nvidia-uvm, kfd) and devices of no GPU driver reach no GPU; a name that maps MIG
  /// capabilities reaches slices, and the /dev/nvidiaN it maps with them is their parent. Fails,
  /// fail closed, on the first node whose number cannot be read or whose GPU cannot be told.
  Result<std::vector<std::string>> identities(const std::vector<NodeRef>& nodes) const;
  Result<std::vector<std::string>> identities(const std::vector<std::string>& nodes) const;
  /// The identities with the cards they are on, read in the same pass.
  Result<Reach> reach(const std::vector<NodeRef>& nodes) const;

  struct Kept;
  /// What reach last answered for one list of nodes (a CDI name's), with what it was read from:
  /// passed again with the same list, reach answers from it when every directory and piece of
  /// evidence still reads as it did: the same reads as node by node, without walking each node.
  /// Belongs to one reader; the caller keeps one per list of nodes and a new one when the list
  /// changes.
  struct ReachMemo {
    Reach reach;
    std::shared_ptr<const Kept> kept;  ///< empty: nothing to answer from
  };
  Result<Reach> reach(const std::vector<NodeRef>& nodes, ReachMemo& memo) const;

  /// What one piece of an answer was read from: a link's text, a file's text or a directory's
  /// names.
  struct Evidence {
    enum class Kind { link, file, listing } kind;
    std::string path;  ///< machine path
    enum class State { absent, present, unreadable } state = State::absent;
    std::string value;  ///< the text when present, why not when unreadable
    bool operator==(const Evidence&) const = default;
    bool present() const { return state == State::present; }
  };
  /// What an answer over a list of nodes was read from.
  struct Kept {
    bool whole = true;  ///< every node was looked up through a settled directory
    std::vector<Evidence> evidence;
    std::vector<std::pair<std::string, struct ::stat>> dirs;  ///< each directory, as it was then
    unsigned mounts_changed = 0;                              ///< HardwareReader::mounts_changed_ then
  };

 private:
  /// A device number, as the kernel will be asked for it.
  struct Number {
    char type = 'c';  ///< 'c', 'b' or 'p'
    unsigned major = 0;
    unsigned minor = 0;
  };
  /// What a device number is.
  enum class Role {
    other,   ///< no GPU driver's: a tenant's grant of it reaches no GPU
    shared,  ///< every GPU of one driver shares it (nvidiactl, nvidia-uvm, kfd)
    gpu,     ///< one GPU, partition or WSL's every GPU
    parent,  ///< /dev/nvidiaN: the GPU whole, or the parent its MIG slices open
    slice,   ///< a MIG slice's capability
  };
  // Every answer is kept with the few files it was read from (the node's sysfs link, its GPU's
  // information file or KFD node, a mode file, /proc/devices): a later call reads those again, one
  // link and one file a GPU when nothing moved, and derives the answer anew only when one of them
  // changed. Scans (every NVIDIA GPU, every KFD node) record only the entry that answered: a render
  // minor or device minor belongs to one of them at a time, so that entry still saying so is proof
  // enough.
  struct Answer {
    Role role = Role::other;
    Result<std::string> identity;
    std::vector<Evidence> evidence;
    std::string card;  ///< the PCI address of the card the identity is on; empty for WSL
  };
  /// An answer without its evidence: what a call hands on.
  struct Found {
    Role role = Role::other;
    std::string identity;
    std::string card;
  };
  /// What each piece of evidence read as during this call: read once a call, and every answer
  /// compared with that same reading.
  using Seen = std::map<std::string, Evidence>;
  Result<Number> number_of(const NodeRef& node, Seen& seen, Kept* kept) const;
  /// The node's own status (RootFs::lstat) through its directory, kept open from the last time. A
  /// directory removed and made anew holds no entries, so a miss is asked again through a fresh
  /// open before it counts. What a settled directory's entries are is kept: a node is made,
  /// removed or renamed only through its directory, which changes its mtime and ctime, so one fstat
  /// of the directory a call stands for every node in it. Not trusted while the directory changed
  /// within the last second (the clock the times come from is coarse), nor after the mount table
  /// changed (a node bind-mounted over another leaves its directory as it was).
  std::optional<struct ::stat> lstat(const std::string& path, Seen& seen, Kept* kept) const;
  struct Dir;
  /// The kept directory `name`, looked at once a call (opened again when `fresh`, or when it was
  /// removed); null when it cannot be opened.
  Dir* dir_now(const std::string& name, Seen& seen, bool fresh) const;
  bool memo_holds(const ReachMemo& memo, Seen& seen) const;
  /// Forgets every kept descriptor and entry when the process's mount table changed since the
  /// last call.
  void check_mounts() const;
  void forget_descriptors() const;
  /// check_mounts once a call.
  void mounts_checked(Seen& seen) const;
  /// With mutex_ held; adds what it read from to `kept` when given.
  Result<Found> cached(const NodeRef& node, Seen& seen, Kept* kept) const;
  Answer derive(const Number& n, const std::string& node) const;
  bool still_holds(const Evidence& e, Seen& seen) const;
  Evidence read(Evidence::Kind kind, const std::string& path) const;
  /// A file's text again through the descriptor kept from the last time: one pread and one
  /// fstat (a file removed and made anew is opened again), or a link's through its directory's;
  /// absent when it cannot be read so.
  std::optional<Evidence> reread(const Evidence& e, Seen& seen) const;
  std::optional<Evidence> relink(const Evidence& e) const;
  /// The name /proc/devices (or /proc/misc, for the misc major) gives a device number's driver.
  Result<std::string> driver_name(const Number& n, const std::string& node, std::vector<Evidence>& ev) const;
  // Each sets `a.card` and adds to `a.evidence`.
  Result<std::string> nvidia(unsigned minor, Answer& a) const;
  Result<std::string> drm(const std::string& node, const Number& n, Answer& a) const;
  Result<std::string> partition(const std::string& node, const std::string& device_dir, const std::string& name,
                                Answer& a) const;
  Result<std::string> mig(const std::string& node, unsigned cap_minor, Answer& a) const;

  const RootFs& fs_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, Answer> answers_;  ///< device number ("c195:1") -> its last answer
  mutable std::map<std::string, UniqueFd> files_;  ///< evidence files kept open, by machine path
  struct Dir {
    UniqueFd fd;
    struct ::stat seen {};  ///< the directory's status when `entries` were read
    bool settled = false;   ///< unchanged for a second when last looked at: entries may be kept
    std::map<std::string, struct ::stat> entries;
  };
  mutable std::map<std::string, Dir> dirs_;            ///< nodes' directories kept open, by machine path
  mutable std::map<std::string, UniqueFd> link_dirs_;  ///< evidence links' directories kept open
  mutable UniqueFd mounts_;                            ///< /proc/self/mountinfo, polled for a change
  mutable unsigned mounts_changed_ = 0;                ///< how many times the mount table was seen to change
};

/// `granted` covers `now`: the same identity, or a part of it (a partition or MIG slice of a
/// GPU granted whole).
bool identity_covers(std::string_view granted, std::string_view now);

/// The PCI address in an identity, or the identity itself for a UUID ("0000:05:00.0/cpx3" ->
/// "0000:05:00.0"): what a message names.
std::string identity_card(std::string_view identity);

}  // namespace rgpu::probe
