#pragma once
// What dpkg records as installed, read from the machine's own status file: the same answer for
// setup and doctor, on a live machine and under --root (no host dpkg is asked about another root).

#include <optional>
#include <string>

#include "core/root_fs.h"

namespace rgpu::installers {

inline constexpr const char* kDpkgStatus = "/var/lib/dpkg/status";

/// The installed version of `package` ("1.20.0-1"); absent when it is not installed (or only
/// half-installed, or the machine has no dpkg).
std::optional<std::string> dpkg_installed_version(const RootFs& fs, const std::string& package);

/// The same from the status file's text, read once by a caller that asks about several packages.
std::optional<std::string> dpkg_installed_version_in(const std::string& status, const std::string& package);

}  // namespace rgpu::installers
