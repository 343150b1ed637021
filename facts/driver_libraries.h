#pragma once
// The NVIDIA driver's user-space libraries each running container was given (the bind mounts its
// spec made when it started), against the kernel module loaded now. After a driver update and a
// module reload, a container started before still has the old libcuda and libnvidia-ml: every CUDA
// call inside fails with "Driver/library version mismatch" until the container is restarted and
// its daemon resolves the NVIDIA spec anew.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/root_fs.h"

namespace rgpu::facts {

struct ContainerDriverLibraries {
  std::string container;  ///< Docker's container id (64 hex digits)
  std::string pid;        ///< one of its processes
  std::string version;    ///< its driver libraries' version ("550.54.14")
};

/// The version a driver library's file name carries ("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14"
/// is 550.54.14; libnvidia-ml too); absent for any other file.
std::optional<std::string> driver_library_version(std::string_view path);

/// Each running container (the first of its processes in /proc, by its cgroup) whose mounts hold
/// a driver library of another version than `module_version`, in /proc's order.
std::vector<ContainerDriverLibraries> containers_on_other_driver(const RootFs& fs, const std::string& module_version);

}  // namespace rgpu::facts
