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
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

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

namespace identity {
class Cache;
}
/// What a reach over a list of nodes was read from (identity_cache.h).
struct ReachProof;

class HardwareReader {
 public:
  explicit HardwareReader(const RootFs& fs);
  ~HardwareReader();
  HardwareReader(const HardwareReader&) = delete;
  HardwareReader& operator=(const HardwareReader&) = delete;

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

  /// What reach last answered for one list of nodes (a CDI name's), with what it was read from:
  /// passed again with the same list, reach answers from it when every directory and piece of
  /// evidence still reads as it did: the same reads as node by node, without walking each node.
  /// Belongs to one reader; the caller keeps one per list of nodes and a new one when the list
  /// changes.
  struct ReachMemo {
    Reach reach;
    std::shared_ptr<const ReachProof> proof;  ///< empty: nothing to answer from
  };
  Result<Reach> reach(const std::vector<NodeRef>& nodes, ReachMemo& memo) const;

 private:
  mutable std::mutex mutex_;
  /// Each device number's last answer and the descriptors to check it with: changed under
  /// mutex_ only.
  std::unique_ptr<identity::Cache> cache_;
};

/// `granted` covers `now`: the same identity, or a part of it (a partition or MIG slice of a
/// GPU granted whole).
bool identity_covers(std::string_view granted, std::string_view now);

/// The PCI address in an identity, or the identity itself for a UUID ("0000:05:00.0/cpx3" ->
/// "0000:05:00.0"): what a message names.
std::string identity_card(std::string_view identity);

}  // namespace rgpu::probe
