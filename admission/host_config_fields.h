#pragma once
// The HostConfig fields the body's checks read (and a create body's own), picked in one pass over
// an object's keys as dockerd's decoder folds them: shared by the checks of devices, of
// confinement and of mounts.

#include <array>
#include <optional>
#include <string_view>

#include "docker/go_json.h"

namespace rgpu::admission {

// The HostConfig fields the checks read, found in one pass over its keys.
enum Field : size_t {
  kPrivileged,
  kDeviceRequests,
  kRuntime,
  kAnnotations,
  kDevices,
  kDeviceCgroupRules,
  kCapAdd,
  kCapDrop,
  kSecurityOpt,
  kMaskedPaths,
  kReadonlyPaths,
  kPidMode,
  kIpcMode,
  kNetworkMode,
  kUsernsMode,
  kCgroupParent,
  kBinds,
  kMounts,
  kVolumeDriver,
  kVolumesFrom,
  kCgroupnsMode,
  kOomScoreAdj,
  kLogConfig,
  kFieldCount,
  // A create body's own fields, read in the same pass as the HostConfig fields at its top level.
  kWorkingDir = kFieldCount,
  kHostConfig,
  kCreateFieldCount
};
inline constexpr std::string_view kFieldNames[kCreateFieldCount] = {
    "Privileged",        "DeviceRequests", "Runtime",   "Annotations",  "Devices",
    "DeviceCgroupRules", "CapAdd",         "CapDrop",   "SecurityOpt",  "MaskedPaths",
    "ReadonlyPaths",     "PidMode",        "IpcMode",   "NetworkMode",  "UsernsMode",
    "CgroupParent",      "Binds",          "Mounts",    "VolumeDriver", "VolumesFrom",
    "CgroupnsMode",      "OomScoreAdj",    "LogConfig", "WorkingDir",   "HostConfig"};
using Fields = std::array<std::optional<docker::GoValue>, kCreateFieldCount>;

}  // namespace rgpu::admission
