// Layer 3, the running daemons as they say they are: which spec directories they read, which
// devices their CDI driver sees (GET /info), and whether they attach CDI devices at all.

#include "core/joined.h"
#include "core/version.h"
#include "docker/cdi_spec_dirs.h"
#include "doctor/runtime/runtime_checks.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kRuntime{Layer::runtime};

}  // namespace

Check daemon_spec_dirs(const Facts& f) {
  const auto& asked = f.answers;
  if (asked.empty()) return kRuntime.skip("daemon-cdi-dirs", "no running dockerd answered on a unix socket");
  std::vector<std::string> bad, rootless, seen, writable;
  for (const auto& w : f.chain.docker.spec_dir_writers)
    writable.push_back(w.label + " reads specs in " + w.dir + ", where " + w.writer);
  for (const auto& a : asked) {
    const std::string version = answer_text(a.version, "Version");
    const auto reported = docker::reported_spec_dirs(a.info);
    if (!reported) {
      seen.push_back(a.label + " (" + (version.empty() ? "?" : version) +
                     ") reports no CDISpecDirs (API before 1.44): its daemon.json is what tells");
      continue;
    }
    const auto& dirs = reported->dirs;
    const auto other = reported->besides_etc_cdi();
    std::string line = a.label + " reads " + (dirs.empty() ? "no spec directory" : joined(dirs));
    if (a.info.contains("DiscoveredDevices") && a.info["DiscoveredDevices"].is_array())
      line += ", its CDI driver sees " + std::to_string(a.info["DiscoveredDevices"].size()) + " devices";
    seen.push_back(line);
    if (!other.empty()) bad.push_back(a.label + " also reads " + joined(other));
    if (a.rootless && compare_versions(version, "28.2.0") >= 0)
      rootless.push_back(a.label + " is rootless Docker " + version +
                         ", which also reads $XDG_CONFIG_HOME/cdi and $XDG_RUNTIME_DIR/cdi: its user can write specs "
                         "there");
  }
  if (!writable.empty()) {
    return kRuntime.fail(
        "daemon-cdi-dirs", joined(writable, "; "),
        "someone other than root can write a CDI spec there, and a spec there can define a granted name anew: the "
        "daemon then hands its tenant whatever device that spec names",
        "set \"cdi-spec-dirs\": [\"/etc/cdi\"] in the daemon's daemon.json and restart it (a rootless Docker 29.2 "
        "or later reads its user's $XDG_CONFIG_HOME/cdi and $XDG_RUNTIME_DIR/cdi by default)");
  }
  if (!bad.empty() || !rootless.empty()) {
    std::vector<std::string> all = bad;
    all.insert(all.end(), rootless.begin(), rootless.end());
    return kRuntime.with(
        bad.empty() ? Status::warn : Status::fail, "daemon-cdi-dirs", joined(all, "; "),
        "a spec directory other than /etc/cdi can be written by others than root (DRA drivers, the user of a "
        "rootless daemon), and a spec there can define a granted name anew",
        "set \"cdi-spec-dirs\": [\"/etc/cdi\"] in the daemon's daemon.json and restart it");
  }
  return kRuntime.ok("daemon-cdi-dirs", joined(seen, "; "), Evidence("GET /info of each daemon"));
}

// Whether each daemon attaches CDI devices, from what it says of itself: before 25.0 it cannot;
// from 25.0 it does only with the feature on (off by default before 28.2), which /info shows as a
// CDISpecDirs list. Asked here, so a Docker without CDI is found at layer 3, not by a container.
Check daemon_cdi(const Facts& f) {
  if (f.answers.empty()) return kRuntime.skip("daemon-cdi", "no daemon answered GET /version");
  std::vector<std::string> without, with;
  for (const auto& a : f.answers) {
    const std::string version = answer_text(a.version, "Version");
    const std::string seen = a.label + " (Docker " + (version.empty() ? "?" : version) + ")";
    if (!version.empty() && compare_versions(version, "25.0.0") < 0) {
      without.push_back(seen + " predates CDI");
    } else if (!docker::reported_spec_dirs(a.info)) {
      without.push_back(seen + " has CDI off (GET /info lists no CDISpecDirs)");
    } else {
      with.push_back(seen);
    }
  }
  if (!without.empty()) {
    return kRuntime.fail(
        "daemon-cdi", joined(without, "; "),
        "the daemon cannot attach CDI devices: every container asking for a granted name fails at create",
        "use Docker 25 or later; on 25.0 to 28.1 set \"features\": {\"cdi\": true} in daemon.json and restart it");
  }
  return kRuntime.ok("daemon-cdi", joined(with, "; ") + " attach CDI devices",
                     Evidence("GET /version and GET /info (CDISpecDirs) of each daemon"));
}

}  // namespace rgpu::doctor
