#pragma once
// Layer 6 of doctor: a real container through a repository's daemon.

#include <string>
#include <vector>

#include "core/root_fs.h"
#include "doctor/check.h"
#include "doctor/facts.h"

namespace rgpu::doctor {

struct ContainerRequest {
  std::string repo;         ///< whose grants to use
  std::string image;        ///< an image the daemon has, with sh and ls
  std::string docker_host;  ///< the repository daemon (unix:///path); empty: its plugin's environment file
};

/// First, the image's CUDA requirement against the host driver, read through the Engine API; then
/// one canary per name the repository holds, through its own daemon (so its gate, its CDI view
/// and dockerd's injection are on the path), which passes only when the name's device nodes are
/// inside by device number (and nvidia-smi lists the GPU when the image has it). Skipped without
/// repo and image. Running containers is an action, not a read of the facts: it goes through `fs`,
/// the machine it runs them on (which also names the repository's daemon when the request does not).
std::vector<Check> container_checks(const RootFs& fs, const Facts& facts, const ContainerRequest& request);

}  // namespace rgpu::doctor
