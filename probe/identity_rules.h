#pragma once
// The rules behind HardwareReader, without its cache: what a device number is (a GPU's own node,
// a node every GPU of a driver shares, a MIG slice's capability, or no GPU's) and which hardware
// it reaches, derived from the machine in one pass. Each answer carries what it was read from
// (its evidence), so that the cache (identity_cache.h) can tell later, by reading those few files
// again, whether it still holds. Probe's own: other rooms ask HardwareReader.

#include <optional>
#include <string>
#include <vector>

#include <sys/stat.h>

#include "core/result.h"
#include "core/root_fs.h"
#include "probe/hardware_identity.h"

namespace rgpu::probe::identity {

/// What one piece of an answer was read from: a link's text, a file's text or a directory's
/// names.
struct Evidence {
  enum class Kind { link, file, listing } kind;
  std::string path;  ///< machine path
  enum class State { absent, present, unreadable } state = State::absent;
  std::string value;  ///< the text when present, why not when unreadable
  bool operator==(const Evidence&) const = default;
  bool present() const { return state == State::present; }
  /// Sets one piece apart from another of the same call (a link and a file may share a path).
  std::string key() const;
};
/// Reads one piece of evidence through its path, as it is now.
Evidence read_evidence(const RootFs& fs, Evidence::Kind kind, const std::string& path);

/// A device number, as the kernel will be asked for it.
struct DeviceNumber {
  char type = 'c';  ///< 'c', 'b' or 'p'
  unsigned major = 0;
  unsigned minor = 0;
  std::string key() const;  ///< "c195:1"
};

/// What a device number is.
enum class Role {
  other,   ///< no GPU driver's: a tenant's grant of it reaches no GPU
  shared,  ///< every GPU of one driver shares it (nvidiactl, nvidia-uvm, kfd)
  gpu,     ///< one GPU, partition or WSL's every GPU
  parent,  ///< /dev/nvidiaN: the GPU whole, or the parent its MIG slices open
  slice,   ///< a MIG slice's capability
};

/// A device number's answer with what it was read from (the node's sysfs link, its GPU's
/// information file or KFD node, a mode file, /proc/devices). Scans (every NVIDIA GPU, every KFD
/// node) record only the entry that answered: a render minor or device minor belongs to one of
/// them at a time, so that entry still saying so is proof enough.
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

/// The number the spec gives `node` when the spec decides it (a type and a major, or a fifo): the
/// runtime then makes that node whatever the host path is. Absent when the host node decides.
std::optional<Result<DeviceNumber>> spec_number(const NodeRef& node);
/// The number of the host node at node.path, from its lstat (`st`, absent when there is none); the
/// spec's type, when it gives one, must be the node's.
Result<DeviceNumber> host_number(const NodeRef& node, const std::optional<struct ::stat>& st);

/// What `n` is and which hardware it reaches, read now; `node` names it in errors.
Answer derive(const RootFs& fs, const DeviceNumber& n, const std::string& node);

/// What a list of nodes' answers reaches together: a list that maps MIG capability nodes reaches
/// slices, and the /dev/nvidiaN it maps with them is the parent every slice opens, not the GPU whole.
Reach reach_of(std::vector<Found> found);

/// Why the hardware `node` reaches cannot be told, with what to do.
Error unknown_hardware(const std::string& node, const std::string& why);

}  // namespace rgpu::probe::identity
