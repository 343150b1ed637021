#include "installers/dpkg_status.h"

namespace rgpu::installers {

std::optional<std::string> dpkg_installed_version(const RootFs& fs, const std::string& package) {
  const auto status = fs.read_optional(kDpkgStatus);
  if (!status || !*status) return std::nullopt;
  return dpkg_installed_version_in(**status, package);
}

std::optional<std::string> dpkg_installed_version_in(const std::string& text, const std::string& package) {
  // Stanzas are separated by a blank line; the first line of each is its Package field.
  const std::string head = "Package: " + package + "\n";
  size_t at = text.rfind(head, 0) == 0 ? 0 : text.find("\n\n" + head);
  if (at == std::string::npos) return std::nullopt;
  if (at != 0) at += 2;
  const auto end = text.find("\n\n", at);
  const std::string stanza = text.substr(at, end == std::string::npos ? std::string::npos : end - at) + "\n";
  if (stanza.find("\nStatus: install ok installed\n") == std::string::npos) return std::nullopt;
  const auto v = stanza.find("\nVersion: ");
  if (v == std::string::npos) return std::nullopt;
  return stanza.substr(v + 10, stanza.find('\n', v + 10) - (v + 10));
}

}  // namespace rgpu::installers
