#pragma once
// The NVIDIA side of layer 3 as the machine has it: the toolkit (installed only to make the NVIDIA
// spec), the spec it made and the devices its nodes reach now, and the refresh that keeps it
// current, as redirected to /etc/cdi.

#include <optional>
#include <string>
#include <vector>

#include "cdi/spec_index.h"
#include "core/command_runner.h"
#include "core/root_fs.h"
#include "probe/inventory.h"

namespace rgpu::facts {

/// The drop-in setup writes to point nvidia-cdi-refresh at /etc/cdi, through the environment file it names.
inline constexpr const char* kRefreshDropin = "/etc/systemd/system/nvidia-cdi-refresh.service.d/50-rediacc-gpu.conf";

/// One node a name of the NVIDIA spec maps, and what it reaches now.
struct NvidiaSpecNode {
  std::string name;  ///< the qualified name that maps it
  std::string path;  ///< its host path
  /// The identities its device number reaches now (HardwareReader::identities); absent when they cannot be told.
  std::optional<std::vector<std::string>> identities = std::nullopt;
};

/// nvidia-cdi-refresh's redirection as kRefreshDropin wires it.
struct RefreshWiring {
  bool dropin = false;        ///< kRefreshDropin has text
  std::string env_file = "";  ///< the EnvironmentFile it names last (without systemd's "-"); empty: none
  /// That environment file's text; absent when none is named or it cannot be read.
  std::optional<std::string> env = std::nullopt;
};

struct NvidiaReads {
  /// The toolkit package's version in the machine's own package database, as setup asks it (dpkg's
  /// status, or rpm through the runner on an rpm family); read only when the probe found an NVIDIA GPU.
  std::optional<std::string> toolkit_version = std::nullopt;
  /// Where the machine finds nvidia-ctk (machine_program); absent when it has none.
  std::optional<std::string> nvidia_ctk = std::nullopt;
  /// paths::kNvidiaSpec's text; absent when it is missing or cannot be read.
  std::optional<std::string> spec_text = std::nullopt;
  /// Every node the names of paths::kNvidiaSpec map, in the index's order, but a node the spec
  /// gives no number whose path is missing (device-nodes reports those); read only with an NVIDIA GPU.
  std::vector<NvidiaSpecNode> spec_nodes = {};
  /// /var/run/cdi/nvidia.yaml is a file (it shadows /etc/cdi's).
  bool var_run_spec = false;
  /// Read only when nvidia-ctk is there.
  RefreshWiring refresh = {};
};

/// What the NVIDIA checks read of the machine; `dpkg_status` is dpkg's status file as read for
/// this run (an apt family's toolkit version is read from it), `runner` asks an rpm family's rpm.
NvidiaReads read_nvidia(const RootFs& fs, CommandRunner& runner, const probe::Inventory& fresh,
                        const cdi::SpecIndex& specs, const std::optional<std::string>& dpkg_status);

}  // namespace rgpu::facts
