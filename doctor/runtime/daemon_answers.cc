// Layer 3, the running daemons as they say they are: which spec directories they read, which
// devices their CDI driver sees (GET /info), and whether they attach CDI devices at all.

#include <algorithm>
#include <map>
#include <set>

#include "cdi/spec_version.h"
#include "core/joined.h"
#include "core/version.h"
#include "docker/cdi_spec_dirs.h"
#include "docker/engine_gpu_features.h"
#include "doctor/runtime/runtime_checks.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kRuntime{Layer::runtime};

// The names a daemon is served: a repository's daemon reads its view (the names it holds, each
// spec raised to 0.6.0 for the BuildKit annotation, cdi/repo_views.cc); any other all of /etc/cdi.
struct Served {
  const cdi::IndexedDevice* device;
  int version;
};

std::vector<Served> served_to(const Facts& f, const DaemonAnswer& a) {
  std::vector<Served> out;
  for (const auto& d : f.specs.devices) {
    if (a.repo.empty()) {
      out.push_back({&d, d.spec_version});
    } else if (f.grants && f.grants->find(a.repo, d.qualified_name)) {
      out.push_back({&d, std::max(d.spec_version, cdi::kAnnotationsVersion)});
    }
  }
  return out;
}

// "--gpus asks NVIDIA's hook" or the CDI names it becomes, as this release does.
std::string gpus_becomes(const docker::EngineGpuFeatures& e) {
  if (!e.gpus_to_cdi_nvidia) return "--gpus asks NVIDIA's runtime hook";
  return std::string("--gpus becomes numbered CDI names (nvidia.com/gpu=N") +
         (e.gpus_to_cdi_amd ? ", amd.com/gpu=N" : "") + ")";
}

}  // namespace

// Issue 60's Docker upgrade: a daemon upgraded (or left behind) changes what it does with GPUs.
// Each reachable daemon is told apart by its own version: the specs it is served that its CDI
// library cannot read (a spec declaring a later cdiVersion is refused whole, every name in it
// fails at create), the additionalGids it drops (before 29.5), what --gpus becomes (the gate
// refuses it either way).
Check daemon_gpu_path(const Facts& f) {
  constexpr const char* kId = "daemon-gpu-path";
  if (f.answers.empty()) return kRuntime.skip(kId, "no daemon answered GET /version");
  std::vector<std::string> seen, unreadable, dropped;
  std::string needed_release;
  for (const auto& a : f.answers) {
    const std::string version = answer_text(a.version, "Version");
    const auto e = docker::engine_gpu_features(version);
    if (!e || e->newest_spec == 0) continue;  // daemon-cdi names a Docker without CDI
    std::map<std::string, int> too_new;       // spec file -> its cdiVersion
    std::set<std::string> gid_names;
    for (const auto& s : served_to(f, a)) {
      if (s.version > e->newest_spec) too_new[s.device->spec_path] = s.version;
      if (s.device->additional_gids && !e->applies_additional_gids) gid_names.insert(s.device->qualified_name);
    }
    const std::string who = a.label + " (Docker " + version + ")";
    seen.push_back(who + " reads CDI specs up to " + cdi::spec_version_text(e->newest_spec) + ", " + gpus_becomes(*e) +
                   " (refused by the gate), " + (e->applies_additional_gids ? "applies" : "drops") +
                   " CDI additionalGids");
    for (const auto& [spec, v] : too_new) {
      unreadable.push_back(who + " cannot read " + spec + " (cdiVersion " + cdi::spec_version_text(v) + ")");
      const auto release = docker::EngineGpuFeatures::first_release_reading(v);
      if (compare_versions(release, needed_release) > 0) needed_release = release;
    }
    if (!gid_names.empty()) {
      std::vector<std::string> names(gid_names.begin(), gid_names.end());
      if (names.size() > 3) names.resize(3), names.push_back("...");
      dropped.push_back(who + " drops the additionalGids of " + joined(names));
    }
  }
  if (seen.empty()) return kRuntime.skip(kId, "no daemon that attaches CDI devices said its version");
  if (!unreadable.empty())
    return kRuntime.fail(kId, joined(unreadable, "; "),
                         "a daemon's CDI library refuses a spec whose cdiVersion it does not know, whole: every "
                         "name in that file fails at create on that daemon",
                         "upgrade that daemon's Docker to " + needed_release +
                             " or later (the NVIDIA toolkit writes cdiVersion 0.7.0 from 1.19.1)");
  if (!dropped.empty())
    return kRuntime.warn(kId, joined(dropped, "; "),
                         "Docker before 29.5 leaves CDI's supplementary groups out: a container not running as root "
                         "cannot open the nodes only that group may (render nodes are 0660)",
                         "run those containers as root or with --group-add for the node's group, or upgrade that "
                         "daemon's Docker to 29.5 or later");
  return kRuntime.ok(kId, joined(seen, "; "), Evidence("GET /version of each daemon, the specs each is served"));
}

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
