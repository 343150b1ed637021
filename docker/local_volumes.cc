#include "docker/local_volumes.h"

#include "docker/engine_paths.h"
#include "docker/running_daemons.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

namespace rgpu::docker {

Result<std::optional<LocalVolumeMount>> local_volume_mount(const RootFs& fs, const std::string& data_root,
                                                           std::string_view name) {
  // The driver keeps one directory per volume, named by it: nothing else can be a volume's.
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string_view::npos) return std::nullopt;
  const std::string path = data_root + "/volumes/" + std::string(name) + "/opts.json";
  RGPU_TRY_ASSIGN(const auto text, fs.read_optional(path));
  if (!text) return std::nullopt;
  const auto doc = nlohmann::json::parse(*text, nullptr, false);
  if (!doc.is_object())
    return fail(fs.host_path(path).string() + " is not the options file Docker's local volume driver writes");
  // Go's decoder matches keys without regard to case; a value of any kind counts, so a file made
  // to look empty to this reader is not empty to the driver's.
  const auto field = [&](std::string_view key) {
    std::string value;
    for (const auto& [k, v] : doc.items()) {
      if (k.size() != key.size() || !std::equal(k.begin(), k.end(), key.begin(), [](char a, char b) {
            return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
          }))
        continue;
      value = v.is_string() ? v.get<std::string>() : v.is_null() ? std::string() : v.dump();
    }
    return value;
  };
  LocalVolumeMount mount{.type = field("MountType"), .device = field("MountDevice"), .options = field("MountOpts")};
  if (mount.type.empty() && mount.device.empty() && mount.options.empty()) return std::nullopt;
  return mount;
}

std::string mount_text(const LocalVolumeMount& mount) {
  return "type=" + mount.type + " device=" + mount.device + " o=" + mount.options;
}

Result<std::string> volume_mount_of(const RootFs& fs, const RunningDaemon& daemon, std::string_view name) {
  RGPU_TRY_ASSIGN(const auto mount, local_volume_mount(fs, data_root(fs, daemon), name));
  return mount ? mount_text(*mount) : std::string();
}

}  // namespace rgpu::docker
