#include "admission/api_fields.h"

#include <algorithm>
#include <array>
#include <vector>

namespace rgpu::admission {
namespace {

// Sources, read field by field: Debian 12's dockerd 20.10 (golang-github-docker-docker-dev:
// api/types/container/config.go, host_config.go, api/types/configs.go ExecConfig,
// api/types/mount/mount.go, runconfig/config_unix.go ContainerConfigWrapper) and moby's main
// branch at API 1.56 (api/types/container/config.go, hostconfig.go, create_request.go,
// exec_create_request.go, api/types/mount/mount.go, api/types/volume/create_options.go). A field
// either of them has is listed, as dockerd of any version between them may read it. The test
// tests/admission/api_fields_test.cc lists 20.10's fields by reflection and finds each one here.
// "Harmless" was decided reading what dockerd does with the field; docs/gate-limits.md has why.
constexpr ApiField kFields[] = {
    // create
    {ApiObject::create, "WorkingDir", FieldRole::judged},
    {ApiObject::create, "HostConfig", FieldRole::judged},
    {ApiObject::create, "ArgsEscaped", FieldRole::harmless},
    {ApiObject::create, "AttachStderr", FieldRole::harmless},
    {ApiObject::create, "AttachStdin", FieldRole::harmless},
    {ApiObject::create, "AttachStdout", FieldRole::harmless},
    {ApiObject::create, "Cmd", FieldRole::harmless},
    {ApiObject::create, "Domainname", FieldRole::harmless},
    {ApiObject::create, "Entrypoint", FieldRole::harmless},
    {ApiObject::create, "Env", FieldRole::harmless},
    {ApiObject::create, "ExposedPorts", FieldRole::harmless},
    {ApiObject::create, "Healthcheck", FieldRole::harmless},
    {ApiObject::create, "Hostname", FieldRole::harmless},
    {ApiObject::create, "Image", FieldRole::harmless},
    {ApiObject::create, "Labels", FieldRole::harmless},
    {ApiObject::create, "MacAddress", FieldRole::harmless},
    {ApiObject::create, "NetworkDisabled", FieldRole::harmless},
    {ApiObject::create, "NetworkingConfig", FieldRole::harmless},
    {ApiObject::create, "OnBuild", FieldRole::harmless},
    {ApiObject::create, "OpenStdin", FieldRole::harmless},
    {ApiObject::create, "Shell", FieldRole::harmless},
    {ApiObject::create, "StdinOnce", FieldRole::harmless},
    {ApiObject::create, "StopSignal", FieldRole::harmless},
    {ApiObject::create, "StopTimeout", FieldRole::harmless},
    {ApiObject::create, "Tty", FieldRole::harmless},
    {ApiObject::create, "User", FieldRole::harmless},
    {ApiObject::create, "Volumes", FieldRole::harmless},
    {ApiObject::create, "Cpuset", FieldRole::harmless},
    // host_config
    {ApiObject::host_config, "Privileged", FieldRole::judged},
    {ApiObject::host_config, "DeviceRequests", FieldRole::judged},
    {ApiObject::host_config, "Runtime", FieldRole::judged},
    {ApiObject::host_config, "Annotations", FieldRole::judged},
    {ApiObject::host_config, "Devices", FieldRole::judged},
    {ApiObject::host_config, "DeviceCgroupRules", FieldRole::judged},
    {ApiObject::host_config, "CapAdd", FieldRole::judged},
    {ApiObject::host_config, "CapDrop", FieldRole::judged},
    {ApiObject::host_config, "SecurityOpt", FieldRole::judged},
    {ApiObject::host_config, "MaskedPaths", FieldRole::judged},
    {ApiObject::host_config, "ReadonlyPaths", FieldRole::judged},
    {ApiObject::host_config, "PidMode", FieldRole::judged},
    {ApiObject::host_config, "IpcMode", FieldRole::judged},
    {ApiObject::host_config, "NetworkMode", FieldRole::judged},
    {ApiObject::host_config, "UsernsMode", FieldRole::judged},
    {ApiObject::host_config, "CgroupParent", FieldRole::judged},
    {ApiObject::host_config, "Binds", FieldRole::judged},
    {ApiObject::host_config, "Mounts", FieldRole::judged},
    {ApiObject::host_config, "VolumeDriver", FieldRole::judged},
    {ApiObject::host_config, "VolumesFrom", FieldRole::judged},
    {ApiObject::host_config, "CgroupnsMode", FieldRole::judged},
    {ApiObject::host_config, "OomScoreAdj", FieldRole::judged},
    {ApiObject::host_config, "LogConfig", FieldRole::judged},
    {ApiObject::host_config, "AutoRemove", FieldRole::harmless},
    {ApiObject::host_config, "BlkioDeviceReadBps", FieldRole::harmless},
    {ApiObject::host_config, "BlkioDeviceReadIOps", FieldRole::harmless},
    {ApiObject::host_config, "BlkioDeviceWriteBps", FieldRole::harmless},
    {ApiObject::host_config, "BlkioDeviceWriteIOps", FieldRole::harmless},
    {ApiObject::host_config, "BlkioWeight", FieldRole::harmless},
    {ApiObject::host_config, "BlkioWeightDevice", FieldRole::harmless},
    {ApiObject::host_config, "Cgroup", FieldRole::harmless},
    {ApiObject::host_config, "ConsoleSize", FieldRole::harmless},
    {ApiObject::host_config, "ContainerIDFile", FieldRole::harmless},
    {ApiObject::host_config, "CpuCount", FieldRole::harmless},
    {ApiObject::host_config, "CpuPercent", FieldRole::harmless},
    {ApiObject::host_config, "CpuPeriod", FieldRole::harmless},
    {ApiObject::host_config, "CpuQuota", FieldRole::harmless},
    {ApiObject::host_config, "CpuRealtimePeriod", FieldRole::harmless},
    {ApiObject::host_config, "CpuRealtimeRuntime", FieldRole::harmless},
    {ApiObject::host_config, "CpuShares", FieldRole::harmless},
    {ApiObject::host_config, "CpusetCpus", FieldRole::harmless},
    {ApiObject::host_config, "CpusetMems", FieldRole::harmless},
    {ApiObject::host_config, "Dns", FieldRole::harmless},
    {ApiObject::host_config, "DnsOptions", FieldRole::harmless},
    {ApiObject::host_config, "DnsSearch", FieldRole::harmless},
    {ApiObject::host_config, "ExtraHosts", FieldRole::harmless},
    {ApiObject::host_config, "GroupAdd", FieldRole::harmless},
    {ApiObject::host_config, "IOMaximumBandwidth", FieldRole::harmless},
    {ApiObject::host_config, "IOMaximumIOps", FieldRole::harmless},
    {ApiObject::host_config, "Init", FieldRole::harmless},
    {ApiObject::host_config, "Isolation", FieldRole::harmless},
    {ApiObject::host_config, "KernelMemory", FieldRole::harmless},
    {ApiObject::host_config, "KernelMemoryTCP", FieldRole::harmless},
    {ApiObject::host_config, "Links", FieldRole::harmless},
    {ApiObject::host_config, "Memory", FieldRole::harmless},
    {ApiObject::host_config, "MemoryReservation", FieldRole::harmless},
    {ApiObject::host_config, "MemorySwap", FieldRole::harmless},
    {ApiObject::host_config, "MemorySwappiness", FieldRole::harmless},
    {ApiObject::host_config, "NanoCpus", FieldRole::harmless},
    {ApiObject::host_config, "OomKillDisable", FieldRole::harmless},
    {ApiObject::host_config, "PidsLimit", FieldRole::harmless},
    {ApiObject::host_config, "PortBindings", FieldRole::harmless},
    {ApiObject::host_config, "PublishAllPorts", FieldRole::harmless},
    {ApiObject::host_config, "ReadonlyRootfs", FieldRole::harmless},
    {ApiObject::host_config, "RestartPolicy", FieldRole::harmless},
    {ApiObject::host_config, "ShmSize", FieldRole::harmless},
    {ApiObject::host_config, "StorageOpt", FieldRole::harmless},
    {ApiObject::host_config, "Sysctls", FieldRole::harmless},
    {ApiObject::host_config, "Tmpfs", FieldRole::harmless},
    {ApiObject::host_config, "UTSMode", FieldRole::harmless},
    {ApiObject::host_config, "Ulimits", FieldRole::harmless},
    // update
    {ApiObject::update, "CgroupParent", FieldRole::judged},
    {ApiObject::update, "DeviceCgroupRules", FieldRole::judged},
    {ApiObject::update, "DeviceRequests", FieldRole::judged},
    {ApiObject::update, "Devices", FieldRole::judged},
    {ApiObject::update, "RestartPolicy", FieldRole::judged},
    {ApiObject::update, "BlkioDeviceReadBps", FieldRole::harmless},
    {ApiObject::update, "BlkioDeviceReadIOps", FieldRole::harmless},
    {ApiObject::update, "BlkioDeviceWriteBps", FieldRole::harmless},
    {ApiObject::update, "BlkioDeviceWriteIOps", FieldRole::harmless},
    {ApiObject::update, "BlkioWeight", FieldRole::harmless},
    {ApiObject::update, "BlkioWeightDevice", FieldRole::harmless},
    {ApiObject::update, "CpuCount", FieldRole::harmless},
    {ApiObject::update, "CpuPercent", FieldRole::harmless},
    {ApiObject::update, "CpuPeriod", FieldRole::harmless},
    {ApiObject::update, "CpuQuota", FieldRole::harmless},
    {ApiObject::update, "CpuRealtimePeriod", FieldRole::harmless},
    {ApiObject::update, "CpuRealtimeRuntime", FieldRole::harmless},
    {ApiObject::update, "CpuShares", FieldRole::harmless},
    {ApiObject::update, "CpusetCpus", FieldRole::harmless},
    {ApiObject::update, "CpusetMems", FieldRole::harmless},
    {ApiObject::update, "IOMaximumBandwidth", FieldRole::harmless},
    {ApiObject::update, "IOMaximumIOps", FieldRole::harmless},
    {ApiObject::update, "KernelMemory", FieldRole::harmless},
    {ApiObject::update, "KernelMemoryTCP", FieldRole::harmless},
    {ApiObject::update, "Memory", FieldRole::harmless},
    {ApiObject::update, "MemoryReservation", FieldRole::harmless},
    {ApiObject::update, "MemorySwap", FieldRole::harmless},
    {ApiObject::update, "MemorySwappiness", FieldRole::harmless},
    {ApiObject::update, "NanoCpus", FieldRole::harmless},
    {ApiObject::update, "OomKillDisable", FieldRole::harmless},
    {ApiObject::update, "PidsLimit", FieldRole::harmless},
    {ApiObject::update, "Ulimits", FieldRole::harmless},
    // exec
    {ApiObject::exec, "Privileged", FieldRole::judged},
    {ApiObject::exec, "WorkingDir", FieldRole::judged},
    {ApiObject::exec, "AttachStderr", FieldRole::harmless},
    {ApiObject::exec, "AttachStdin", FieldRole::harmless},
    {ApiObject::exec, "AttachStdout", FieldRole::harmless},
    {ApiObject::exec, "Cmd", FieldRole::harmless},
    {ApiObject::exec, "ConsoleSize", FieldRole::harmless},
    {ApiObject::exec, "Detach", FieldRole::harmless},
    {ApiObject::exec, "DetachKeys", FieldRole::harmless},
    {ApiObject::exec, "Env", FieldRole::harmless},
    {ApiObject::exec, "Tty", FieldRole::harmless},
    {ApiObject::exec, "User", FieldRole::harmless},
    // mount
    {ApiObject::mount, "Source", FieldRole::judged},
    {ApiObject::mount, "VolumeOptions", FieldRole::judged},
    {ApiObject::mount, "BindOptions", FieldRole::judged},
    {ApiObject::mount, "TmpfsOptions", FieldRole::judged},
    {ApiObject::mount, "ImageOptions", FieldRole::judged},
    {ApiObject::mount, "ClusterOptions", FieldRole::harmless},
    {ApiObject::mount, "Consistency", FieldRole::harmless},
    {ApiObject::mount, "ReadOnly", FieldRole::harmless},
    {ApiObject::mount, "Target", FieldRole::harmless},
    {ApiObject::mount, "Type", FieldRole::harmless},
    // bind_options
    {ApiObject::bind_options, "CreateMountpoint", FieldRole::harmless},
    {ApiObject::bind_options, "NonRecursive", FieldRole::harmless},
    {ApiObject::bind_options, "Propagation", FieldRole::harmless},
    {ApiObject::bind_options, "ReadOnlyForceRecursive", FieldRole::harmless},
    {ApiObject::bind_options, "ReadOnlyNonRecursive", FieldRole::harmless},
    // volume_options
    {ApiObject::volume_options, "DriverConfig", FieldRole::judged},
    {ApiObject::volume_options, "Labels", FieldRole::harmless},
    {ApiObject::volume_options, "NoCopy", FieldRole::harmless},
    {ApiObject::volume_options, "Subpath", FieldRole::harmless},
    // volume_driver
    {ApiObject::volume_driver, "Name", FieldRole::judged},
    {ApiObject::volume_driver, "Options", FieldRole::judged},
    // tmpfs_options
    {ApiObject::tmpfs_options, "Mode", FieldRole::harmless},
    {ApiObject::tmpfs_options, "Options", FieldRole::harmless},
    {ApiObject::tmpfs_options, "SizeBytes", FieldRole::harmless},
    // image_options
    {ApiObject::image_options, "Subpath", FieldRole::harmless},
    // device_request
    {ApiObject::device_request, "Capabilities", FieldRole::judged},
    {ApiObject::device_request, "Count", FieldRole::judged},
    {ApiObject::device_request, "DeviceIDs", FieldRole::judged},
    {ApiObject::device_request, "Driver", FieldRole::judged},
    {ApiObject::device_request, "Options", FieldRole::judged},
    // volume_create
    {ApiObject::volume_create, "Driver", FieldRole::judged},
    {ApiObject::volume_create, "DriverOpts", FieldRole::judged},
    {ApiObject::volume_create, "ClusterVolumeSpec", FieldRole::harmless},
    {ApiObject::volume_create, "Labels", FieldRole::harmless},
    {ApiObject::volume_create, "Name", FieldRole::harmless},
};

constexpr std::array kObjectNames = {
    std::string_view("the create body"),
    std::string_view("HostConfig"),
    std::string_view("the update body"),
    std::string_view("the exec body"),
    std::string_view("Mounts[]"),
    std::string_view("Mounts[].BindOptions"),
    std::string_view("Mounts[].VolumeOptions"),
    std::string_view("Mounts[].VolumeOptions.DriverConfig"),
    std::string_view("Mounts[].TmpfsOptions"),
    std::string_view("Mounts[].ImageOptions"),
    std::string_view("DeviceRequests[]"),
    std::string_view("the volume body"),
};

// Each object's names as Go folds them, sorted; a create body also takes HostConfig's.
std::vector<std::string> folded_names(ApiObject object) {
  std::vector<std::string> names;
  for (const auto& f : kFields) {
    if (f.object == object || (object == ApiObject::create && f.object == ApiObject::host_config))
      names.push_back(docker::go_fold(f.name));
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

const std::vector<std::string>& known_names(ApiObject object) {
  static const auto all = [] {
    std::array<std::vector<std::string>, kObjectNames.size()> by_object;
    for (size_t i = 0; i < by_object.size(); ++i) by_object[i] = folded_names(static_cast<ApiObject>(i));
    return by_object;
  }();
  return all[static_cast<size_t>(object)];
}

}  // namespace

std::span<const ApiField> api_fields() { return kFields; }

std::string_view api_object_name(ApiObject object) { return kObjectNames[static_cast<size_t>(object)]; }

Refusal check_known_fields(const docker::GoValue& value, ApiObject object) {
  const auto unknown = value.first_unknown(known_names(object));
  if (!unknown) return std::nullopt;
  return "refused: " + std::string(api_object_name(object)) + " sets \"" + std::string(*unknown) +
         "\", a field the gate does not know (it knows Docker's API up to " + std::string(kNewestApiKnown) +
         "); leave it unset, or ask an operator to upgrade rediacc-gpu.";
}

}  // namespace rgpu::admission
