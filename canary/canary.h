#pragma once
// A canary through a repository's own chain: one short container made through the repository's
// daemon with one CDI name, so its gate, its CDI view and dockerd's injection are all on the path;
// success is judged from the container's own output (the name's device nodes are there, by device
// number; nvidia-smi lists the GPU when the image has it), never from the container starting.

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cdi/spec_index.h"
#include "core/root_fs.h"

namespace rgpu::canary {

struct CanaryRequest {
  std::string repo;
  std::string device;       ///< a qualified CDI name the repository holds
  std::string image;        ///< an image the daemon has, with sh and ls
  std::string docker_host;  ///< the repository daemon (unix:///path)
  std::chrono::seconds timeout{120};
};

struct CanaryResult {
  std::string repo, device, image;
  bool ok = false;
  std::string stage;   ///< where it ended: "create", "start", "wait", "logs", "devices", "nvidia-smi", "done"
  std::string detail;  ///< what went wrong, or what was seen
  std::string at;      ///< RFC 3339 UTC, when it ran
  double seconds = 0;  ///< how long it took
  std::optional<std::string> last_success;  ///< the last run that succeeded (this one, or kept from before)
};

/// Character devices in `ls -lR /dev`'s output: (major, minor) -> path inside the container.
std::map<std::pair<unsigned, unsigned>, std::string> devices_listed(const std::string& listing);

/// The text of a container's log as the Engine API sends it without a TTY: frames of an 8-byte
/// header (stream, 0, 0, 0, big-endian length) and the bytes; stdout and stderr kept in order.
std::string demultiplexed(const std::string& stream);

/// Runs the canary for `request.device` through its daemon: the nodes `specs` says the name maps
/// (read from `fs` for their device numbers) must be listed inside. Removes its container after.
CanaryResult run_canary(const RootFs& fs, const cdi::SpecIndex& specs, const CanaryRequest& request);

/// What a failed canary means and what to do, from where it ended and what the daemon said: the
/// gate's refusal, a daemon without CDI, a missing image, or the devices missing inside.
struct CanaryDiagnosis {
  std::string meaning, decision;
};
CanaryDiagnosis diagnose_canary(const CanaryResult& result);

}  // namespace rgpu::canary
