#pragma once
// Making written units take effect: on a live system (--root / with systemd running) reload
// systemd and udev and enable; under another root, enable offline (systemctl --root only
// writes the symlinks), which is how an image gets them.

#include <string>
#include <vector>

#include "core/command_runner.h"
#include "core/root_fs.h"

namespace rgpu::units {

/// True when the root is this machine's own and systemd runs it.
bool is_live_systemd(const RootFs& fs);

/// The commands that make the written units take effect, `enable` naming the units to enable.
std::vector<Argv> activation_commands(const RootFs& fs, const std::vector<std::string>& enable);

/// The commands that disable units about to be removed.
std::vector<Argv> deactivation_commands(const RootFs& fs, const std::vector<std::string>& disable);

}  // namespace rgpu::units
