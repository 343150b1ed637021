#include "facts/package_database.h"

#include "installers/dpkg_status.h"
#include "installers/os_release.h"
#include "installers/package_manager.h"

namespace rgpu::facts {
namespace {

std::optional<installers::PackageFamily> family_of(const RootFs& fs) {
  const auto os_text = fs.read_optional("/etc/os-release");
  if (!os_text || !*os_text) return std::nullopt;
  auto known = installers::package_family(installers::parse_os_release(**os_text), "/etc/os-release");
  if (!known) return std::nullopt;
  return *known;
}

}  // namespace

bool rpm_family(const RootFs& fs) {
  const auto family = family_of(fs);
  return family && *family != installers::PackageFamily::apt;
}

std::optional<std::string> installed_version(const RootFs& fs, CommandRunner& runner,
                                             const std::optional<std::string>& dpkg_status,
                                             const std::string& package) {
  const auto family = family_of(fs);
  if (!family || *family == installers::PackageFamily::apt) {
    if (!dpkg_status) return std::nullopt;
    return installers::dpkg_installed_version_in(*dpkg_status, package);
  }
  return installers::make_package_manager(*family, fs.root().string())->installed_version(fs, runner, package);
}

}  // namespace rgpu::facts
