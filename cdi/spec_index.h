#pragma once
// The machine's index of CDI names: every device that the spec files in /etc/cdi define, ours,
// NVIDIA's and anyone's. Grants are checked against it.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/machine_paths.h"
#include "core/result.h"
#include "core/root_fs.h"
#include "probe/hardware_identity.h"

namespace rgpu::cdi {

/// A program the runtime runs on the host, as root, for every container that asks for the name.
struct CdiHook {
  std::string hook_name;  ///< the OCI hook point: "createContainer", "prestart", ...
  std::string path;
  std::vector<std::string> args;
  bool operator==(const CdiHook&) const = default;
};

struct CdiMount {
  std::string host_path;
  std::string container_path;
  bool operator==(const CdiMount&) const = default;
};

/// A host network interface moved into the container (CDI 1.1).
struct CdiNetDevice {
  std::string host_interface;
  std::string name;  ///< its name inside the container
  bool operator==(const CdiNetDevice&) const = default;
};

/// What a name brings besides its nodes: its own edits and its spec's top-level ones, which CDI
/// applies whenever any name of the spec is asked for.
struct Carried {
  std::vector<CdiHook> hooks;
  std::vector<CdiMount> mounts;
  std::vector<CdiNetDevice> net_devices;
  bool operator==(const Carried&) const = default;
};

struct IndexedDevice {
  std::string qualified_name;  ///< "nvidia.com/gpu=0"
  std::string spec_path;       ///< machine path of the file that defines it
  /// Host paths of the device nodes the name maps, its spec's top-level ones included, sorted.
  std::vector<std::string> device_nodes;
  /// The same nodes as the spec gives them (numbers and type included): what the runtime creates,
  /// and what the hardware a name reaches is judged by.
  std::vector<probe::NodeRef> nodes;
  Carried carried;
  /// Its spec's declared cdiVersion as spec_version_number gives it (1.0.0 is 100): a daemon
  /// whose CDI library knows no later release refuses the whole file.
  int spec_version = 0;
  /// Its edits (the spec's or its own) add supplementary groups (CDI 0.7.0), which Docker applies
  /// only from 29.5: before, a container not running as root loses the nodes only that group opens.
  bool additional_gids = false;
};

/// A spec file that was skipped, and why.
struct SpecProblem {
  std::string spec_path;
  std::string reason;
};

struct SpecIndex {
  std::vector<IndexedDevice> devices;  ///< sorted by qualified name
  std::vector<SpecProblem> problems;
};

/// The device `index` defines as `qualified_name`, or null: the one lookup of a name among the specs.
const IndexedDevice* find_device(const SpecIndex& index, std::string_view qualified_name);

/// Devices of one spec's text (JSON or YAML, told by `spec_path`'s extension). Fails when the
/// text does not parse or breaks the CDI naming rules.
Result<std::vector<IndexedDevice>> parse_spec(std::string_view text, std::string_view spec_path);

/// Every *.json and *.yaml spec in <root>/etc/cdi (CDI reads no other extension). A file that
/// fails is listed in `problems` and skipped; a name that two files define is a conflict, left
/// out, with both files listed in `problems`.
SpecIndex read_spec_index(const RootFs& fs);

/// The same for a spec directory given by its host path, read with the kernel's own path walk:
/// doctor reads a daemon's /etc/cdi through /proc/PID/root, a link into that daemon's mount
/// namespace that only the kernel can follow. Its problems name the host paths.
SpecIndex read_spec_dir(const std::filesystem::path& host_dir);

}  // namespace rgpu::cdi
