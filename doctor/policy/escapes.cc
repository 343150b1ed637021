// Layer 5, the daemons against the known escapes: the Docker and runc versions they run (GET
// /version, the runtime of GET /info, `runc --version`) against known_escapes.cc, a fix the
// distribution patched in counting as fixed (its changelog names the CVE).

#include <nlohmann/json.hpp>
#include <set>

#include "core/joined.h"
#include "doctor/doctor.h"
#include "doctor/policy/known_escapes.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kPolicy{Layer::policy};

// The package's changelog as the distribution ships it (Debian's names every CVE it patches),
// read with the facts for each package whose version was said.
std::optional<std::string> changelog(const Facts& f, const std::string& package) {
  const auto& logs = f.policy.runtimes.changelogs;
  const auto log = logs.find(package);
  return log == logs.end() ? std::nullopt : log->second;
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

Check runc_escapes(const Facts& f) {
  const auto& read = f.policy.runtimes;
  if (!read.programs_run) return kPolicy.skip("runc-escapes", "no program is run in this mode");
  Findings found;
  for (const auto& [path, runtime] : read.runtimes) {
    const auto& who = runtime.users;
    const bool machine_only = who.size() == 1 && who.front() == "this machine";
    const std::string label = path + (machine_only ? " on this machine" : " (run by " + joined(who) + ")");
    if (!runtime.found || !runtime.ran) {
      if (machine_only) return kPolicy.skip("runc-escapes", "no runc on this machine and no dockerd answered");
      found.warning.push_back(label + ": not found on the machine");
      continue;
    }
    const auto& ran = *runtime.ran;
    if (!ran || ran->exit_code != 0) {
      found.warning.push_back(label + ": " +
                              (ran ? "--version exited " + std::to_string(ran->exit_code) : ran.error().message));
      continue;
    }
    if (runtime.version.empty()) {
      found.warning.push_back(label + " did not say its version");
      continue;
    }
    judge(f, Component::runc, label, runtime.version, "runc", found);
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
    const std::string version = answer_text(a.version, "Version");
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

std::vector<Check> escape_checks(const Facts& f) { return {docker_escapes(f, f.answers), runc_escapes(f)}; }

}  // namespace rgpu::doctor
