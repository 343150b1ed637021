#pragma once
// One backend per package-manager family, producing command plans: NVIDIA's repository set up
// the way NVIDIA documents it, then one pinned package.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/command_runner.h"
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
  /// The query whose output is the installed version ("1.20.0-1"); it fails when not installed.
  virtual Argv installed_version_command(const std::string& package) const = 0;
  /// NVIDIA's repository definition for this family.
  virtual RepoFile repository() const = 0;
  /// Machine path of the signing key the repository needs on disk, when the family keeps one (apt).
  virtual std::optional<std::string> key_path() const { return std::nullopt; }
  /// Commands that put that key in place; run only while it is missing. They leave the key as
  /// downloaded at state::kDownloadedKey, for the caller to remove.
  virtual std::vector<Argv> fetch_key_commands() const { return {}; }
  /// Commands that install exactly `package` at `version` (the package's "-1" release).
  virtual std::vector<Argv> install_commands(const std::string& package, const std::string& version) const = 0;
};

/// The backend for a family. `host_root` is the root as a host path: "/" on a live machine,
/// else the package managers are pointed at it (apt -o Dir=, dnf --installroot, zypper --root).
std::unique_ptr<PackageManager> make_package_manager(PackageFamily family, const std::string& host_root);

inline constexpr const char* kNvidiaRepoBase = "https://nvidia.github.io/libnvidia-container";

}  // namespace rgpu::installers
