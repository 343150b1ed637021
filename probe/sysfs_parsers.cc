#include "probe/sysfs_parsers.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "core/ascii_case.h"
#include "core/split.h"

namespace rgpu::probe {

std::string trim(std::string_view s) {
  const char* ws = " \t\r\n";
  auto first = s.find_first_not_of(ws);
  if (first == std::string_view::npos) return "";
  auto last = s.find_last_not_of(ws);
  return std::string(s.substr(first, last - first + 1));
}

std::optional<std::uint32_t> parse_hex_attribute(std::string_view text) {
  std::string t = ascii_lowered(trim(text));
  if (t.rfind("0x", 0) == 0) t.erase(0, 2);
  if (t.empty() || t.size() > 8 || !std::all_of(t.begin(), t.end(), ::isxdigit)) return std::nullopt;
  return static_cast<std::uint32_t>(std::stoul(t, nullptr, 16));
}

std::optional<std::uint64_t> parse_decimal_attribute(std::string_view text) {
  std::string t = trim(text);
  if (t.empty() || t.size() > 19 || !std::all_of(t.begin(), t.end(), ::isdigit)) return std::nullopt;
  return std::stoull(t);
}

std::map<std::string, std::string> parse_space_pairs(std::string_view text) {
  std::map<std::string, std::string> out;
  for (const auto& line : split(text, '\n', EmptyFields::keep)) {
    std::string l = trim(line);
    auto space = l.find_first_of(" \t");
    if (space == std::string::npos) continue;
    std::string value = trim(std::string_view(l).substr(space));
    if (!value.empty()) out[l.substr(0, space)] = value;
  }
  return out;
}

std::map<std::string, std::string> parse_colon_pairs(std::string_view text) {
  std::map<std::string, std::string> out;
  for (const std::string_view line : split(text, '\n', EmptyFields::keep)) {
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string key = trim(line.substr(0, colon));
    if (!key.empty()) out[key] = trim(line.substr(colon + 1));
  }
  return out;
}

std::optional<std::string> parse_nvidia_version(std::string_view text) {
  std::string first_line(text.substr(0, text.find('\n')));
  if (first_line.rfind("NVRM version:", 0) != 0) return std::nullopt;
  // The version is the first token shaped like digits and dots after the module's name.
  size_t pos = first_line.find("Module");
  if (pos == std::string::npos) return std::nullopt;
  std::string rest = first_line.substr(pos);
  size_t i = 0;
  while (i < rest.size()) {
    while (i < rest.size() && std::isspace(static_cast<unsigned char>(rest[i]))) ++i;
    size_t j = i;
    while (j < rest.size() && !std::isspace(static_cast<unsigned char>(rest[j]))) ++j;
    std::string token = rest.substr(i, j - i);
    bool versionish = !token.empty() && std::isdigit(static_cast<unsigned char>(token[0])) &&
                      token.find('.') != std::string::npos && std::all_of(token.begin(), token.end(), [](char c) {
                        return std::isdigit(static_cast<unsigned char>(c)) || c == '.';
                      });
    if (versionish) return token;
    i = j;
  }
  return std::nullopt;
}

std::optional<std::string> canonical_pci_address(std::string_view text) {
  std::string t = ascii_lowered(trim(text));
  unsigned long domain = 0;
  unsigned bus = 0, dev = 0, fn = 0;
  int used = 0;
  if (std::sscanf(t.c_str(), "%lx:%x:%x.%x%n", &domain, &bus, &dev, &fn, &used) != 4 ||
      used != static_cast<int>(t.size()) || bus > 0xff || dev > 0x1f || fn > 7 || domain > 0xffffffffUL) {
    return std::nullopt;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04lx:%02x:%02x.%x", domain, bus, dev, fn);
  return std::string(buf);
}

std::string kfd_pci_address(std::uint32_t domain, std::uint32_t location_id) {
  unsigned bus = (location_id >> 8) & 0xff;
  unsigned devfn = location_id & 0xff;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", domain, bus, devfn >> 3, devfn & 7);
  return buf;
}

std::optional<double> parse_link_speed_gts(std::string_view text) {
  std::string t = trim(text);
  if (t.ends_with(" PCIe")) t.resize(t.size() - 5);
  if (!t.ends_with(" GT/s")) return std::nullopt;
  t.resize(t.size() - 5);
  // Digits with at most one dot: "2.5", "16", "16.0"; strtod would also take "inf" or hex.
  if (t.empty() || t.find_first_not_of("0123456789.") != std::string::npos || std::count(t.begin(), t.end(), '.') > 1 ||
      t.front() == '.' || t.back() == '.')
    return std::nullopt;
  return std::strtod(t.c_str(), nullptr);
}

std::optional<unsigned> parse_link_width(std::string_view text) {
  auto v = parse_decimal_attribute(text);
  if (!v || *v == 0 || *v > 64) return std::nullopt;
  return static_cast<unsigned>(*v);
}

std::optional<int> parse_numa_node(std::string_view text) {
  auto v = parse_decimal_attribute(text);  // "-1" is not a decimal attribute: unknown
  if (!v || *v > 4096) return std::nullopt;
  return static_cast<int>(*v);
}

std::map<std::string, unsigned> parse_mig_minors(std::string_view text) {
  std::map<std::string, unsigned> out;
  for (const auto& [name, value] : parse_space_pairs(text)) {
    if (auto minor = parse_decimal_attribute(value); minor && *minor <= 0xfffff)
      out[name] = static_cast<unsigned>(*minor);
  }
  return out;
}

bool is_wsl_kernel_release(std::string_view osrelease) {
  std::string t = ascii_lowered(std::string(osrelease));
  return t.find("microsoft") != std::string::npos || t.find("wsl") != std::string::npos;
}

}  // namespace rgpu::probe
