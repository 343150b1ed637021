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
  /// hardware cannot be told. Every call reads the machine: the reader remembers only which file
  /// answered last time for a number (one read a node when nothing moved). Thread-safe.
  Result<std::string> identity(const std::string& node) const;

  /// The identities of every node in `nodes` that belongs to one GPU (cdi::is_gpu_own_node's
  /// kinds), sorted, without repeats; fails on the first that cannot be told.
  Result<std::vector<std::string>> identities(const std::vector<std::string>& nodes) const;

 private:
  Result<std::string> nvidia(unsigned minor) const;
  Result<std::string> drm(const std::string& name) const;
  Result<std::string> partition(const std::string& node, const std::string& device_dir, const std::string& name) const;
  Result<std::string> mig(const std::string& node, unsigned cap_minor) const;
  std::string hint(const std::map<unsigned, std::string>& hints, unsigned key) const;
  void remember(std::map<unsigned, std::string>& hints, unsigned key, const std::string& value) const;

  const RootFs& fs_;
  mutable std::mutex mutex_;
  mutable std::map<unsigned, std::string> nvidia_dir_;  ///< /dev/nvidiaN's minor -> its information file
  mutable std::map<unsigned, std::string> kfd_node_;    ///< render minor -> its KFD topology properties
};

/// `granted` covers `now`: the same identity, or a part of it (a partition or MIG slice of a
/// GPU granted whole).
bool identity_covers(std::string_view granted, std::string_view now);

/// The PCI address in an identity, or the identity itself for a UUID ("0000:05:00.0/cpx3" ->
/// "0000:05:00.0"): what a message names.
std::string identity_card(std::string_view identity);

}  // namespace rgpu::probe
