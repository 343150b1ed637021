#include "docker/engine_gpu_features.h"

#include <array>
#include <cctype>
#include <utility>

#include "core/version.h"

namespace rgpu::docker {
namespace {

// The first Engine release of each CDI library moby vendored, and the newest spec it reads:
// 25.0 v0.6.2, 26.1 v0.7.2, 27.5 v0.8.0, 28.2 v1.0.1, 29.2 v1.1.0.
constexpr std::array<std::pair<const char*, int>, 5> kSpecReaders = {{
    {"25.0.0", 60},
    {"26.1.0", 70},
    {"27.5.0", 80},
    {"28.2.0", 100},
    {"29.2.0", 110},
}};

}  // namespace

std::string EngineGpuFeatures::first_release_reading(int needed) {
  for (const auto& [release, newest] : kSpecReaders) {
    if (newest >= needed) return std::string(release).substr(0, std::string(release).rfind('.'));
  }
  return "";
}

std::optional<EngineGpuFeatures> engine_gpu_features(std::string_view version) {
  if (version.empty() || !std::isdigit(static_cast<unsigned char>(version.front()))) return std::nullopt;
  const auto from = [&](const char* release) { return compare_versions(version, release) >= 0; };
  EngineGpuFeatures f;
  for (const auto& [release, newest] : kSpecReaders) {
    if (from(release)) f.newest_spec = newest;
  }
  f.cdi_on_by_default = from("28.2.0");
  f.gpus_to_cdi_nvidia = from("29.2.0");
  f.gpus_to_cdi_amd = from("29.3.0");
  f.applies_additional_gids = from("29.5.0");
  return f;
}

}  // namespace rgpu::docker
