#pragma once
// The machine's own package database, asked as setup asks it: dpkg's status file on the apt family
// (a file, read once by the caller), rpm through the runner on the dnf and zypper families.

#include <optional>
#include <string>

#include "core/command_runner.h"
#include "core/root_fs.h"

namespace rgpu::facts {

/// Whether the machine's /etc/os-release names a family whose database rpm keeps (dnf, zypper).
bool rpm_family(const RootFs& fs);

/// `package`'s installed version ("1.20.0-1"), from `dpkg_status` on the apt family (and where
/// os-release names no family), else from rpm; absent when it is not installed or cannot be told.
std::optional<std::string> installed_version(const RootFs& fs, CommandRunner& runner,
                                             const std::optional<std::string>& dpkg_status, const std::string& package);

}  // namespace rgpu::facts
