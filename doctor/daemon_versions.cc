// What the running daemons say of themselves: which spec directories they read and which devices
// their CDI driver sees (GET /info), and the Docker and runc versions they run (GET /version, the
// runtime of GET /info, `runc --version`) against the known escapes (known_escapes.cc).

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cdi-gen/spec_index.h"
#include "core/joined.h"
#include "core/machine_paths.h"
#include "core/machine_program.h"
#include "docker/client.h"
#include "doctor/doctor.h"
#include "doctor/known_escapes.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kRuntime{Layer::runtime};
constexpr CheckMaker kPolicy{Layer::policy};

nlohmann::json get(const std::string& address, const std::string& target) {
  auto reply = docker::docker_call_at(address, "GET", target, std::chrono::seconds(5));
  if (!reply || reply->status != 200) return nullptr;
  auto doc = nlohmann::json::parse(reply->body, nullptr, false);
  return doc.is_object() ? doc : nlohmann::json();
}

std::string text_of(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// The package's changelog, as the distribution ships it (Debian's names every CVE it patches).
std::optional<std::string> changelog(const Facts& f, const std::string& package) {
  if (!f.runner) return std::nullopt;
  const auto path = f.fs.host_path("/usr/share/doc/" + package + "/changelog.Debian.gz");
  if (f.fs.kind("/usr/share/doc/" + package + "/changelog.Debian.gz") != NodeKind::file) return std::nullopt;
  auto ran = f.runner->run({"gzip", "-dc", path.string()}, std::chrono::seconds(10));
  if (!ran || ran->exit_code != 0) return std::nullopt;
  return ran->output;
}

struct Findings {
  std::vector<std::string> failing, warning, fine;
};

void judge(const Facts& f, Component component, const std::string& who, const std::string& version,
           const std::string& package, Findings& out) {
  const auto log = changelog(f, package);
  std::vector<std::string> patched;
  bool any = false;
  for (const auto& e : known_escapes()) {
    if (e.component != component) continue;
    const std::string fix = "fixed in " + joined(e.fixed_in, ", ");
    switch (standing(e, version, log)) {
      case Standing::fixed: break;
      case Standing::patched_by_distribution: patched.push_back(e.cve); break;
      case Standing::unknown:
        any = true;
        out.warning.push_back(who + " " + version + ": cannot tell whether the distribution patched " + e.cve + " (" +
                              e.what + "; upstream " + fix + "): no changelog of " + package + " to read");
        break;
      case Standing::affected:
        any = true;
        (e.gate_closes ? out.warning : out.failing)
            .push_back(who + " " + version + " has " + e.cve + " (" + e.what + "; " + e.source + ", " + fix + ")" +
                       (e.gate_closes ? std::string("; ") + e.gate_closes : ""));
        break;
    }
  }
  if (!any)
    out.fine.push_back(who + " " + version +
                       (patched.empty() ? "" : " (the distribution patched " + joined(patched, ", ") + ")"));
}

Check verdict(const char* id, const Findings& found, const std::string& meaning, const std::string& decision,
              const std::string& read) {
  if (!found.failing.empty()) return kPolicy.fail(id, joined(found.failing, "; "), meaning, decision);
  if (!found.warning.empty()) return kPolicy.warn(id, joined(found.warning, "; "), meaning, decision);
  return kPolicy.ok(id, "no known escape: " + joined(found.fine, "; "),
                    Evidence(read + ", the package's changelog, against rediacc-gpu's list of known escapes"));
}

// "runc version 1.1.5+ds1\ncommit: 1.1.5+ds1-1+deb12u1\n...": the commit line carries the
// distribution's package version when there is one.
std::string runc_version(const std::string& output) {
  std::istringstream lines(output);
  std::string version, commit;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("runc version ")) version = line.substr(13);
    if (line.starts_with("commit: ")) commit = line.substr(8);
  }
  if (!commit.empty() && commit.starts_with(version) && commit.size() > version.size()) return commit;
  return version;
}

Check runc_escapes(const Facts& f, const std::vector<DaemonAnswer>& asked) {
  // The runtime each daemon runs by default: its path from GET /info, else runc on PATH.
  std::map<std::string, std::vector<std::string>> users;
  for (const auto& a : asked) {
    const std::string name = text_of(a.info, "DefaultRuntime").empty() ? "runc" : text_of(a.info, "DefaultRuntime");
    std::string path = name;
    if (a.info.contains("Runtimes") && a.info["Runtimes"].contains(name))
      path = text_of(a.info["Runtimes"][name], "path");
    if (path.empty()) path = name;
    users[path].push_back(a.label);
  }
  if (users.empty()) users["runc"].push_back("this machine");
  if (!f.runner) return kPolicy.skip("runc-escapes", "no program is run in this mode");
  Findings found;
  for (const auto& [path, who] : users) {
    // A bare name is found as the machine's dockerd finds it; a path is the machine's.
    const auto where = path.starts_with("/") ? std::optional<std::string>(path) : machine_program(f.fs, path);
    const bool machine_only = who.size() == 1 && who.front() == "this machine";
    const std::string label = path + (machine_only ? " on this machine" : " (run by " + joined(who) + ")");
    if (!where || f.fs.kind(*where) != NodeKind::file) {
      if (machine_only) return kPolicy.skip("runc-escapes", "no runc on this machine and no dockerd answered");
      found.warning.push_back(label + ": not found on the machine");
      continue;
    }
    const std::string program = f.fs.is_host_root() ? *where : f.fs.host_path(*where).string();
    auto ran = f.runner->run({program, "--version"}, std::chrono::seconds(10));
    if (!ran || ran->exit_code != 0) {
      found.warning.push_back(label + ": " +
                              (ran ? "--version exited " + std::to_string(ran->exit_code) : ran.error().message));
      continue;
    }
    const std::string version = runc_version(ran->output);
    if (version.empty()) {
      found.warning.push_back(label + " did not say its version");
      continue;
    }
    judge(f, Component::runc, label, version, "runc", found);
  }
  return verdict("runc-escapes", found,
                 "these escapes happen inside runc while it starts a container; no request the gate could refuse "
                 "prevents them",
                 "upgrade runc to the fixed version (or the distribution's patched package), then restart the daemons",
                 "runc --version");
}

Check docker_escapes(const Facts& f, const std::vector<DaemonAnswer>& asked) {
  if (asked.empty()) return kPolicy.skip("docker-escapes", "no running dockerd answered on a unix socket");
  Findings found;
  for (const auto& a : asked) {
    const std::string version = text_of(a.version, "Version");
    if (version.empty()) {
      found.warning.push_back(a.label + " did not say its version (GET /version)");
      continue;
    }
    judge(f, Component::docker, a.label, version, "docker.io", found);
  }
  return verdict("docker-escapes", found,
                 "these let requests reach authorization plugins without what the gate must judge",
                 "upgrade Docker to the fixed version (or the distribution's patched package)", "GET /version");
}

}  // namespace

Check daemon_spec_dirs(const Facts& f) {
  const auto& asked = f.answers;
  if (asked.empty()) return kRuntime.skip("daemon-cdi-dirs", "no running dockerd answered on a unix socket");
  std::vector<std::string> bad, rootless, seen;
  for (const auto& a : asked) {
    const std::string version = text_of(a.version, "Version");
    if (!a.info.contains("CDISpecDirs") || !a.info["CDISpecDirs"].is_array()) {
      seen.push_back(a.label + " (" + (version.empty() ? "?" : version) +
                     ") reports no CDISpecDirs (API before 1.44): its daemon.json is what tells");
      continue;
    }
    std::vector<std::string> dirs, other;
    for (const auto& d : a.info["CDISpecDirs"]) {
      if (!d.is_string()) continue;
      dirs.push_back(d.get<std::string>());
      if (dirs.back() != paths::kCdiSpecDir) other.push_back(dirs.back());
    }
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
    const std::string version = text_of(a.version, "Version");
    const std::string seen = a.label + " (Docker " + (version.empty() ? "?" : version) + ")";
    if (!version.empty() && compare_versions(version, "25.0.0") < 0) {
      without.push_back(seen + " predates CDI");
    } else if (!a.info.contains("CDISpecDirs") || !a.info["CDISpecDirs"].is_array()) {
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

std::vector<Check> escape_checks(const Facts& f) { return {docker_escapes(f, f.answers), runc_escapes(f, f.answers)}; }

std::vector<DaemonAnswer> ask_daemons(const RootFs& fs, const std::vector<docker::RunningDaemon>& daemons,
                                      const std::vector<std::pair<std::string, std::string>>& also) {
  std::vector<DaemonAnswer> out;
  std::set<std::string> asked, repos;
  const auto ask = [&](const std::string& label, bool rootless, const std::string& address) {
    if (!asked.insert(address).second) return;
    DaemonAnswer a{label, rootless, get(address, "/info"), get(address, "/version")};
    if (!a.info.is_null() || !a.version.is_null()) out.push_back(std::move(a));
  };
  for (const auto& d : daemons) {
    const auto address = docker::daemon_address(fs, d);
    const auto repo = docker::plugin_repo(fs, d);
    if (!address) continue;
    if (repo) repos.insert(*repo);
    ask("dockerd " + d.pid + (repo ? " of repository " + *repo : ""), !d.root_user, *address);
  }
  // Repository daemons that may run outside this root's /proc, as their plugins reach them.
  for (const auto& [repo, address] : docker::repo_daemon_addresses(fs, daemons)) {
    if (!repos.count(repo)) ask("the daemon of repository " + repo, false, address);
  }
  for (const auto& [label, address] : also) ask(label, false, address);
  return out;
}

}  // namespace rgpu::doctor
