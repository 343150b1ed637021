#include "doctor/policy/known_escapes.h"

#include "core/version.h"

namespace rgpu::doctor {

// Sources (shared with docs/decisions.md): the projects' own advisories.
// runc: GHSA-9493-h29p-rfm2 (CVE-2025-31133), GHSA-qw9x-cqr3-wc7r (CVE-2025-52565),
// GHSA-cgrx-mc8f-2prm (CVE-2025-52881), published 2025-11-05 with runc 1.2.8, 1.3.3 and
// 1.4.0-rc.3; GHSA-xr7r-f8xq-vfvv (CVE-2024-21626), runc 1.1.12 (2024-01-31).
// Docker: GHSA-v23v-6jw2-98fq (CVE-2024-41110), fixed in 25.0.6, 26.1.5, 27.1.1, and per the Go
// vulnerability database (GO-2024-3005) in 20.10.28, 23.0.15, 24.0.10; GHSA-x744-4wpc-v9h2
// (CVE-2026-34040), fixed in 29.3.1 (moby pkg/authorization/authz.go: maxBodySize 4 MiB, refused
// above it).
const std::vector<KnownEscape>& known_escapes() {
  static const std::vector<KnownEscape> kTable = {
      {Component::runc,
       "CVE-2025-31133",
       "a container that races runc's /dev/null mount of masked paths writes host files",
       {"1.2.8", "1.3.3", "1.4.0-rc.3"},
       "GHSA-9493-h29p-rfm2"},
      {Component::runc,
       "CVE-2025-52565",
       "a /dev/console mount race lets a container write host procfs files",
       {"1.2.8", "1.3.3", "1.4.0-rc.3"},
       "GHSA-qw9x-cqr3-wc7r"},
      {Component::runc,
       "CVE-2025-52881",
       "procfs writes redirected through shared mounts escape the container",
       {"1.2.8", "1.3.3", "1.4.0-rc.3"},
       "GHSA-cgrx-mc8f-2prm"},
      {Component::runc,
       "CVE-2024-21626",
       "a working directory through /proc/self/fd reaches the host's filesystem",
       {"1.1.12"},
       "GHSA-xr7r-f8xq-vfvv"},
      {Component::docker,
       "CVE-2024-41110",
       "requests reach authorization plugins without their body",
       {"20.10.28", "23.0.15", "24.0.10", "25.0.6", "26.1.5", "27.1.1"},
       "GHSA-v23v-6jw2-98fq",
       "the gate refuses every route it judges when the body is missing"},
      {Component::docker,
       "CVE-2026-34040",
       "bodies over 1 MiB reach authorization plugins empty",
       {"29.3.1"},
       "GHSA-x744-4wpc-v9h2",
       "the gate refuses every route it judges when the body is missing"},
  };
  return kTable;
}

namespace {

// Two versions of one release line: the same major and minor.
bool same_line(const Version& a, const Version& b) {
  return a.numbers.size() >= 2 && b.numbers.size() >= 2 && a.numbers[0] == b.numbers[0] && a.numbers[1] == b.numbers[1];
}

// A version text carries a distribution's own revision.
bool distribution_build(const std::string& v) {
  return v.find('+') != std::string::npos || v.find("ubuntu") != std::string::npos ||
         v.find("deb") != std::string::npos || v.find(".el") != std::string::npos;
}

}  // namespace

bool affected(const KnownEscape& escape, const std::string& version) {
  const Version v = read_version(version);
  for (const auto& fix : escape.fixed_in) {
    if (same_line(v, read_version(fix))) return compare_versions(version, fix) < 0;
  }
  // No fix on its line: affected when older than every fixed line, fixed when newer.
  return compare_versions(version, escape.fixed_in.front()) < 0;
}

Standing standing(const KnownEscape& escape, const std::string& version, const std::optional<std::string>& changelog) {
  if (!affected(escape, version)) return Standing::fixed;
  if (changelog && changelog->find(escape.cve) != std::string::npos) return Standing::patched_by_distribution;
  if (!changelog && distribution_build(version)) return Standing::unknown;
  return Standing::affected;
}

}  // namespace rgpu::doctor
