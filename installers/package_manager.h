#pragma once
// One backend per package-manager family, producing command plans: NVIDIA's repository set up
// the way NVIDIA documents it, then one pinned package.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/command_runner.h"
#include "core/root_fs.h"
#include "installers/os_release.h"

namespace rgpu::installers {

/// A file the backend writes itself (repository definitions are small and known; writing them
/// ourselves avoids downloading them).
struct RepoFile {
  std::string path;  ///< machine path
  std::string content;
};

class PackageManager {
 public:
  virtual ~PackageManager() = default;
  /// The installed version of `package` ("1.20.0-1"), absent when it is not installed, asked
  /// of the root's own package database. `query` runs read-only commands (rpm -q).
  virtual std::optional<std::string> installed_version(const RootFs& fs, CommandRunner& query,
                                                       const std::string& package) const = 0;
  /// NVIDIA's repository definition for this family.
  virtual RepoFile repository() const = 0;
  /// Machine path of the signing key the repository needs on disk, when the family keeps one (apt).
  virtual std::optional<std::string> key_path() const { return std::nullopt; }
  /// Commands that put that key in place; run only while it is missing. They leave the key as
  /// downloaded at state::kDownloadedKey, for the caller to remove.
  virtual std::vector<Argv> fetch_key_commands() const { return {}; }
  /// Commands that install exactly `package` at `version` (the package's "-1" release);
  /// `downgrade`: a newer one is installed and the operator asked for this exact version.
  virtual std::vector<Argv> install_commands(const std::string& package, const std::string& version,
                                             bool downgrade) const = 0;
};

/// The backend for a family. `host_root` is the root as a host path: "/" on a live machine,
/// else the package managers install into it for real: apt runs inside it (chroot: apt -o Dir=
/// would still run this machine's dpkg and scripts), dnf --installroot, zypper --root.
std::unique_ptr<PackageManager> make_package_manager(PackageFamily family, const std::string& host_root);

inline constexpr const char* kNvidiaRepoBase = "https://nvidia.github.io/libnvidia-container";

}  // namespace rgpu::installers
