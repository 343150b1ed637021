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

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/root_fs.h"

namespace rgpu::probe {

class HardwareReader {
 public:
  explicit HardwareReader(const RootFs& fs) : fs_(fs) {}

  /// The identity of what `node` reaches now. Fails, naming the node, when it is gone or its
  /// hardware cannot be told. Thread-safe.
  Result<std::string> identity(const std::string& node) const;

  /// The identities of every node in `nodes` that belongs to one GPU (cdi::is_gpu_own_node's
  /// kinds), sorted, without repeats; fails on the first that cannot be told.
  Result<std::vector<std::string>> identities(const std::vector<std::string>& nodes) const;

  /// What one piece of an answer was read from: a link's text, a file's text or a directory's
  /// names, absent when it was not there.
  struct Evidence {
    enum class Kind { link, file, listing } kind;
    std::string path;  ///< machine path
    std::optional<std::string> value;
    bool operator==(const Evidence&) const = default;
  };

 private:
  // Every answer is kept with the few files it was read from (the node's sysfs link, its GPU's
  // information file or KFD node, a mode file): a later call reads those again, one link and one
  // file a GPU when nothing moved, and derives the answer anew only when one of them changed.
  // Scans (every NVIDIA GPU, every KFD node) record only the entry that answered: a render minor or
  // device minor belongs to one of them at a time, so that entry still saying so is proof enough.
  struct Answer {
    Result<std::string> identity;
    std::vector<Evidence> evidence;
  };
  using Seen = std::map<std::string, bool>;  ///< evidence already checked in this call
  Result<std::string> cached(const std::string& node, Seen& seen) const;
  Answer derive(const std::string& node) const;
  bool still_holds(const Evidence& e, Seen& seen) const;
  Evidence read(Evidence::Kind kind, const std::string& path) const;
  /// A file's text again through the descriptor kept from the last time: one pread and one
  /// fstat (a file removed and made anew is opened again); absent when it cannot be read so.
  std::optional<std::optional<std::string>> reread(const std::string& path) const;
  Result<std::string> nvidia(unsigned minor, std::vector<Evidence>& ev) const;
  Result<std::string> drm(const std::string& name, std::vector<Evidence>& ev) const;
  Result<std::string> partition(const std::string& node, const std::string& device_dir, const std::string& name,
                                std::vector<Evidence>& ev) const;
  Result<std::string> mig(const std::string& node, unsigned cap_minor, std::vector<Evidence>& ev) const;

  const RootFs& fs_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, Answer> answers_;  ///< node -> its last answer
  mutable std::map<std::string, UniqueFd> files_;  ///< evidence files kept open, by machine path
};

/// `granted` covers `now`: the same identity, or a part of it (a partition or MIG slice of a
/// GPU granted whole).
bool identity_covers(std::string_view granted, std::string_view now);

/// The PCI address in an identity, or the identity itself for a UUID ("0000:05:00.0/cpx3" ->
/// "0000:05:00.0"): what a message names.
std::string identity_card(std::string_view identity);

}  // namespace rgpu::probe
