#include "core/selinux_devices.h"

namespace rgpu {
namespace {

std::optional<std::string> first_word(const RootFs& fs, const std::string& path) {
  const auto text = fs.read_optional(path);
  if (!text || !*text) return std::nullopt;
  const auto& t = **text;
  const auto start = t.find_first_not_of(" \t\n");
  if (start == std::string::npos) return std::nullopt;
  return t.substr(start, t.find_first_of(" \t\n", start) - start);
}

}  // namespace

bool selinux_enforcing(const RootFs& fs) { return first_word(fs, "/sys/fs/selinux/enforce") == "1"; }

std::optional<bool> selinux_boolean(const RootFs& fs, const std::string& name) {
  const auto value = first_word(fs, "/sys/fs/selinux/booleans/" + name);
  if (value == "1") return true;
  if (value == "0") return false;
  return std::nullopt;
}

std::vector<SelinuxDeviceBoolean> device_booleans(bool nvidia, bool amd) {
  std::vector<SelinuxDeviceBoolean> out;
  if (nvidia)
    out.push_back({"container_use_xserver_devices",
                   "the nodes labelled xserver_misc_device_t (/dev/nvidia*) that a container is given"});
  if (amd)
    out.push_back({"container_use_devices",
                   "every device node a container is given (no narrower boolean covers /dev/kfd's hsa_device_t)"});
  return out;
}

}  // namespace rgpu
