#pragma once
// Layer 6 of doctor: a real container through a repository's daemon.

#include <string>
#include <vector>

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
/// repo and image.
std::vector<Check> container_checks(const Facts& facts, const ContainerRequest& request);

}  // namespace rgpu::doctor
