#pragma once
// Where the machine's own systemd or dockerd would find a program by name.

#include <optional>
#include <string>

#include "core/root_fs.h"

namespace rgpu {

/// On a live machine, where this process's PATH finds it (tests put recording fakes first);
/// under --root, in the root's own bin directories (the host's PATH says nothing about that
/// machine). Absent when it is in none of them.
std::optional<std::string> machine_program(const RootFs& fs, const std::string& name);

}  // namespace rgpu
