#pragma once
// Layer 3's checks, shared by the files that make them and runtime.cc, which lists them in order.

#include <optional>
#include <string>

#include "doctor/check.h"
#include "doctor/facts.h"

namespace rgpu::doctor {

// nvidia_toolkit.cc
Check toolkit(const Facts& facts);
Check nvidia_spec(const Facts& facts);
/// A /var/run/cdi/nvidia.yaml, which takes precedence over /etc/cdi's.
Check shadowing_spec(const Facts& facts);
/// Whether nvidia-cdi-refresh writes /etc/cdi/nvidia.yaml, as its drop-in's environment file says.
Check refresh_wired(const Facts& facts);

// driver_update.cc
/// No running container holds another driver's libraries than the loaded module's.
Check containers_driver(const Facts& facts);

// docker_config.cc
/// No daemon configuration adds the nvidia runtime or makes another runtime the default.
Check docker_daemon(const Facts& facts);
/// The machine's Docker (its package, or a running daemon's version) attaches CDI devices (its version, features.cdi).
Check docker_cdi(const Facts& facts);
/// Each daemon configuration limits cdi-spec-dirs to /etc/cdi, and no other directory redefines our names.
Check spec_dirs(const Facts& facts);

// daemon_answers.cc
/// What each reachable daemon reports it reads (GET /info CDISpecDirs, DiscoveredDevices).
Check daemon_spec_dirs(const Facts& facts);
/// Whether each reachable daemon attaches CDI devices (its version, CDISpecDirs in /info).
Check daemon_cdi(const Facts& facts);
/// What each reachable daemon's Docker release does with GPUs, and whether it reads every spec it
/// is served (its CDI library's newest cdiVersion) and applies their additionalGids (29.5).
Check daemon_gpu_path(const Facts& facts);

}  // namespace rgpu::doctor
