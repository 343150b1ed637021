#pragma once
// The one Docker Engine API call doctor and check-image make: an image's configuration, read
// from the daemon over its unix socket, so no container and no docker CLI are needed.

#include <string>
#include <vector>

#include "core/result.h"
#include "docker/client.h"

namespace rgpu::docker {

/// Config.Env of `image` as the daemon at `socket` has it (GET /images/{name}/json). An image the
/// daemon lacks is an error that says to pull it.
Result<std::vector<std::string>> image_env(const std::string& socket, const std::string& image);

}  // namespace rgpu::docker
