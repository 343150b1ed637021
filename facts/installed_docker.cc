#include "facts/installed_docker.h"

#include "core/version.h"
#include "facts/package_database.h"
#include "installers/dpkg_status.h"

namespace rgpu::facts {

std::optional<InstalledDocker> read_installed_docker(const RootFs& fs, CommandRunner& runner,
                                                     const std::optional<std::string>& dpkg_status,
                                                     const std::vector<DaemonAnswer>& answers) {
  if (dpkg_status) {
    for (const char* package : {"docker-ce", "docker.io", "moby-engine"}) {
      if (auto v = installers::dpkg_installed_version_in(*dpkg_status, package))
        return InstalledDocker{package, *v, "dpkg's status"};
    }
  }
  // The oldest running daemon decides: a check that needs a version must hold for each.
  std::optional<InstalledDocker> oldest;
  for (const auto& a : answers) {
    const auto v = answer_text(a.version, "Version");
    if (v.empty() || read_version(v).numbers.empty()) continue;
    if (!oldest || compare_versions(v, oldest->version) < 0) oldest = InstalledDocker{a.label, v, "GET /version"};
  }
  if (oldest) return oldest;
  if (!rpm_family(fs)) return std::nullopt;
  for (const char* package : {"docker-ce", "moby-engine", "docker"}) {
    if (auto v = installed_version(fs, runner, dpkg_status, package)) return InstalledDocker{package, *v, "rpm"};
  }
  return std::nullopt;
}

}  // namespace rgpu::facts
