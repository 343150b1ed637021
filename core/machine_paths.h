#pragma once
// Machine paths other programs own that rediacc-gpu reads or writes, each spelled once (machine
// paths; RootFs maps them under --root). What rediacc-gpu owns itself is in core/state_paths.h.

namespace rgpu::paths {

/// Where CDI specs live that every engine reads; the only directory rediacc-gpu writes specs in.
inline constexpr const char* kCdiSpecDir = "/etc/cdi";
/// The NVIDIA spec nvidia-ctk generates (setup, nvidia-cdi-refresh, our boot unit).
inline constexpr const char* kNvidiaSpec = "/etc/cdi/nvidia.yaml";
/// Docker 25+ also reads this one unless daemon.json sets cdi-spec-dirs, and a spec here wins.
inline constexpr const char* kDockerRunCdiDir = "/var/run/cdi";
/// podman also reads this one.
inline constexpr const char* kPodmanRunCdiDir = "/run/cdi";
/// The machine's dockerd's configuration, and any other dockerd's started without --config-file.
inline constexpr const char* kDockerDaemonConfig = "/etc/docker/daemon.json";
/// The running kernel's release ("5.15.153.1-microsoft-standard-WSL2" under WSL2).
inline constexpr const char* kKernelRelease = "/proc/sys/kernel/osrelease";

}  // namespace rgpu::paths
