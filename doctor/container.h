#pragma once
// Layer 6 of doctor: a real container through a repository's daemon.

#include <string>
#include <vector>

#include "core/command_runner.h"
#include "doctor/check.h"

namespace rgpu::doctor {

struct ContainerRequest {
  std::string repo;         ///< whose grants to use
  std::string image;        ///< an image the daemon has, with sh
  std::string docker_host;  ///< the repository daemon's address (docker -H); empty: the CLI's default
};

/// One check per device the repository holds: `docker run --rm --device NAME IMAGE` must see the
/// device inside (nvidia-smi -L for NVIDIA, the node for DRI and AMD); and first, the image's CUDA
/// requirement against the host driver, read through the Docker API. Skipped without repo and image.
std::vector<Check> container_checks(const Facts& facts, CommandRunner& runner, const ContainerRequest& request);

}  // namespace rgpu::doctor
