#pragma once
// Whether systemd runs the machine as PID 1. Where it does not (WSL2 without [boot] systemd=true,
// a container, a minimal image booted by another init), the units setup writes are never started:
// setup and doctor say so, and how to run those parts from the host's own supervisor.

#include <optional>
#include <string>

#include "core/root_fs.h"

namespace rgpu {

/// What runs as PID 1 ("systemd", "init", a container's command), read from the root's
/// /proc/1/comm; nothing when the root shows no running system (an image being prepared, where
/// units are enabled offline).
std::optional<std::string> pid1_name(const RootFs& fs);

/// pid1_name when it is not systemd; nothing when it is, or there is none.
std::optional<std::string> pid1_not_systemd(const RootFs& fs);

/// What stops on such a host: the parts of setup's units nothing starts there.
std::string without_systemd_meaning();

/// How to run those parts from the host's own supervisor, with the binary at `tool`.
std::string without_systemd_by_hand(const std::string& tool);

}  // namespace rgpu
