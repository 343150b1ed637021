#pragma once
// What SELinux lets a container labelled container_t open among the GPU nodes the gate gives it.
// Fedora's policy labels /dev/dri/* dri_device_t, /dev/nvidia* xserver_misc_device_t and /dev/kfd
// hsa_device_t (selinux-policy, devices.fc); container-selinux lets container_t use dri devices by
// default (container_use_dri_devices), xserver devices only with container_use_xserver_devices,
// and every other device type only with container_use_devices (container.te). So on an enforcing
// host a granted NVIDIA GPU needs the xserver boolean, and /dev/kfd the all-devices one.

#include <optional>
#include <string>
#include <vector>

#include "core/root_fs.h"

namespace rgpu {

/// A boolean a kind of GPU needs on, and the nodes it opens to containers.
struct SelinuxDeviceBoolean {
  const char* name;
  const char* opens;
};

/// SELinux is enforcing: /sys/fs/selinux/enforce reads "1".
bool selinux_enforcing(const RootFs& fs);

/// A boolean's current value (/sys/fs/selinux/booleans/NAME: "CURRENT PENDING"); absent when the
/// loaded policy has no such boolean or it cannot be read.
std::optional<bool> selinux_boolean(const RootFs& fs, const std::string& name);

/// The booleans GPUs of these kinds need on, in this order: NVIDIA's, then AMD's /dev/kfd.
std::vector<SelinuxDeviceBoolean> device_booleans(bool nvidia, bool amd);

}  // namespace rgpu
