#pragma once
// Which package manager a machine uses, from /etc/os-release.

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace rgpu::installers {

struct OsRelease {
  std::string id;                    ///< "debian", "rhel", "opensuse-leap"
  std::vector<std::string> id_like;  ///< "rhel fedora" split
  std::string version_id;            ///< "12", "2023"
  std::string pretty_name;
};

enum class PackageFamily { apt, dnf, yum, zypper };

/// Parses os-release text (KEY=value lines, values optionally quoted).
OsRelease parse_os_release(std::string_view text);

/// apt for Debian and Ubuntu, dnf for RHEL, Rocky, Alma, CentOS, Fedora and Amazon Linux 2023,
/// yum for Amazon Linux 2, zypper for SUSE; ID_LIKE decides for derivatives. `where` names the
/// file in the error for anything else.
Result<PackageFamily> package_family(const OsRelease& os, std::string_view where);

const char* to_string(PackageFamily family);

}  // namespace rgpu::installers
