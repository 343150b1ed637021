#pragma once
// The NVIDIA CDI spec, /etc/cdi/nvidia.yaml, as nvidia-ctk generates it: by setup, and at boot and
// whenever the driver loads by `rediacc-gpu cdi nvidia` (rediacc-gpu-nvidia-spec.service, started
// by the udev rule nvidia_units() writes). A spec made while the driver is not ready names no GPU
// or maps nodes /dev lacks, and would take every NVIDIA name from the repositories at their next
// start (NVIDIA/nvidia-container-toolkit#1611, #1982): the last good spec is kept instead, and the
// caller is told why, so it can wait and try again.

#include <optional>
#include <string>
#include <vector>

#include "core/change.h"
#include "core/command_runner.h"
#include "core/file_sink.h"
#include "core/result.h"
#include "core/root_fs.h"

namespace rgpu::setup {

struct NvidiaSpecOptions {
  bool wsl = false;
  std::vector<std::string> disabled_hooks = {};  ///< nvidia-ctk cdi generate --disable-hook
  std::string nvidia_ctk = "nvidia-ctk";         ///< the machine's, found on PATH unless a path
};

/// Why no spec was installed: the driver is not there yet, nvidia-ctk failed, or what it wrote
/// would break the names it defines. Each keeps the last good spec.
enum class NvidiaSpecHold { none, driver_not_loaded, generate_failed, spec_unusable };

struct NvidiaSpecOutcome {
  NvidiaSpecHold hold = NvidiaSpecHold::none;
  std::string reason;  ///< when held: one sentence naming the file or node at fault
  Change::Kind installed = Change::Kind::unchanged;
  bool performed = true;  ///< false in a dry run: nvidia-ctk did not run, the plan was told
  /// Set when neither nvidia-ctk nor nvidia-modprobe made the control nodes: what to run by hand.
  std::optional<std::string> nodes_warning;
};

/// nvidia-ctk cdi generate's command line writing `output` (a machine path), run inside the
/// machine under another root: that machine's driver and devices, not this one's.
Argv nvidia_generate_argv(const RootFs& fs, const NvidiaSpecOptions& options, const std::string& output);

/// What says the driver is not ready, absent when it is: natively its /proc/driver/nvidia/version,
/// under WSL /dev/dxg.
std::optional<std::string> nvidia_driver_not_ready(const RootFs& fs, bool wsl);

/// One try: the control nodes (nvidia-ctk's create-device-nodes, or nvidia-modprobe where the
/// toolkit has no such command; not under WSL), then the spec generated beside our state through
/// `scratch` and installed through `sink` only when it defines a device and every node it maps
/// is in /dev. `act` runs the node commands (a dry run records them).
Result<NvidiaSpecOutcome> refresh_nvidia_spec(const RootFs& fs, FileSink& sink, CommandRunner& act,
                                              CommandRunner& scratch, const NvidiaSpecOptions& options);

}  // namespace rgpu::setup
