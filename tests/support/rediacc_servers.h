#pragma once
// The five distributions Rediacc's servers run (its requirements page: Ubuntu 24.04, Debian 13,
// Fedora 43, openSUSE Leap 16.0, Oracle Linux 10), as a fixture machine has them: each one's own
// /etc/os-release, its security module's state (AppArmor on Ubuntu and openSUSE, SELinux
// enforcing on Fedora and Oracle Linux), and Docker as `rdc config machine setup` leaves it,
// recorded in that family's package database (dpkg's status, or the fake rpm database FakeTools'
// rpm reads). A sixth distribution is a new entry here, not new code.

#include <string>
#include <vector>

#include "tests/support/fixture_root.h"

namespace rgpu::test {

struct RediaccServer {
  std::string name;            ///< "Fedora 43"
  std::string os_release;      ///< the file's text
  std::string family;          ///< "apt", "dnf" or "zypper"
  std::string docker_package;  ///< as that family names it
  std::string docker_version;  ///< as that family's database writes it
  bool selinux = false;        ///< SELinux enforcing (else AppArmor on)
};

/// The five, in the order Rediacc's page lists them.
const std::vector<RediaccServer>& rediacc_servers();

/// Makes `root` that server: os-release, the security module's state (on SELinux hosts
/// container-selinux's booleans at their defaults), Docker's package recorded.
void as_server(const FixtureRoot& root, const RediaccServer& server);

}  // namespace rgpu::test
