#include "installers/os_release.h"

#include <optional>
#include <sstream>

namespace rgpu::installers {
namespace {

std::string unquote(std::string v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) v = v.substr(1, v.size() - 2);
  return v;
}

bool is_any(const std::string& id, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (id == n) return true;
  }
  return false;
}

std::optional<PackageFamily> family_of(const std::string& id, const std::string& version) {
  if (is_any(id, {"debian", "ubuntu"})) return PackageFamily::apt;
  if (id == "amzn") return version == "2" ? PackageFamily::yum : PackageFamily::dnf;
  if (is_any(id, {"rhel", "centos", "fedora", "rocky", "almalinux", "ol"})) return PackageFamily::dnf;
  if (is_any(id, {"suse", "sles", "opensuse", "opensuse-leap", "opensuse-tumbleweed"})) return PackageFamily::zypper;
  return std::nullopt;
}

}  // namespace

OsRelease parse_os_release(std::string_view text) {
  OsRelease os;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    auto eq = line.find('=');
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq);
    const std::string value = unquote(line.substr(eq + 1));
    if (key == "ID") os.id = value;
    if (key == "VERSION_ID") os.version_id = value;
    if (key == "PRETTY_NAME") os.pretty_name = value;
    if (key == "ID_LIKE") {
      std::istringstream words(value);
      for (std::string w; words >> w;) os.id_like.push_back(w);
    }
  }
  return os;
}

Result<PackageFamily> package_family(const OsRelease& os, std::string_view where) {
  if (auto f = family_of(os.id, os.version_id)) return *f;
  for (const auto& like : os.id_like) {
    if (auto f = family_of(like, "")) return *f;
  }
  return fail(std::string(where) + " names \"" + (os.pretty_name.empty() ? os.id : os.pretty_name) +
              "\", which is not a Debian, Ubuntu, RHEL-family, Fedora, Amazon Linux or SUSE system; install the "
              "NVIDIA Container Toolkit by hand or run setup with --install-nvidia-toolkit=false.");
}

const char* to_string(PackageFamily family) {
  switch (family) {
    case PackageFamily::apt: return "apt";
    case PackageFamily::dnf: return "dnf";
    case PackageFamily::yum: return "yum";
    case PackageFamily::zypper: return "zypper";
  }
  return "unknown";
}

}  // namespace rgpu::installers
