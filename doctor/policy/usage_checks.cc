// Layer 5, the grants against what runs: a repository's process on hardware its repository
// holds no grant for, containers no repository daemon owns, and grants nobody uses.

#include <algorithm>

#include "core/joined.h"
#include "core/state_paths.h"
#include "core/time_text.h"
#include "doctor/doctor.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::policy};
constexpr auto kIdleAfter = std::chrono::hours(24);

std::string who(const usage::GpuProcess& p) {
  std::string s = "process " + std::to_string(p.pid) + " (" + p.command + ")";
  if (p.container)
    s += " in container " +
         (p.container_name ? *p.container_name + " (" + p.container->substr(0, 12) + ")" : p.container->substr(0, 12));
  return s;
}

Check stray(const usage::StrayUse& s) {
  const auto& repo = *s.process.repository;
  auto c = kCheck.fail(
      "gpu-use",
      who(s.process) + " of repository " + repo + " holds " + joined(s.process.nodes) + " (" + joined(s.hardware) +
          ") on " + s.gpu + ", and " + repo + " holds no grant that covers it",
      "a container kept its device after a revoke, or reached it another way (a privileged container, a bind "
      "mount of /dev, a device cgroup rule): it uses a GPU outside the grants",
      "stop the container (rediacc-gpu revoke " + repo +
          " --device NAME --stop stops those holding a revoked name); rediacc-gpu doctor's stale-device-containers "
          "and the gate's refusals in the plugin's journal show how it got there");
  c.subject = repo;
  return c;
}

std::vector<Check> use_checks(const Facts& f) {
  if (!f.usage) return {kCheck.skip("gpu-use", "who uses the GPUs was not looked at")};
  if (f.usage->gpus.empty()) return {kCheck.skip("gpu-use", "no GPU whose users to look for")};
  std::vector<Check> out;
  if (f.use) {
    for (const auto& s : f.use->strays) out.push_back(stray(s));
    if (!f.use->unreadable.empty())
      out.push_back(kCheck.warn("gpu-use", "could not tell the hardware of " + joined(f.use->unreadable, "; "),
                                "these processes' GPUs cannot be compared with their repositories' grants",
                                "run rediacc-gpu setup to refresh the inventory, then doctor again"));
  }
  std::vector<std::string> unknown;
  size_t processes = 0;
  for (const auto& use : f.usage->gpus) {
    for (const auto& p : use.processes) {
      ++processes;
      if (p.owner == usage::Owner::unknown) unknown.push_back(who(p) + " on " + usage::gpu_subject(use.gpu));
    }
  }
  if (!unknown.empty())
    out.push_back(kCheck.warn(
        "gpu-use", "no repository daemon lists the container of " + joined(unknown, "; "),
        "a GPU is used from a container outside any repository (another dockerd, podman, or a repository daemon that "
        "did not answer" +
            (f.usage->unanswered.empty() ? std::string() : ": " + joined(f.usage->unanswered, "; ")) + ")",
        "find its daemon from the container id (its cgroup); give GPUs to containers only through repositories"));
  if (f.usage->processes_unreadable > 0)
    out.push_back(kCheck.warn(
        "gpu-use",
        "the open files of " + std::to_string(f.usage->processes_unreadable) + " process(es) could not be read",
        "a GPU those processes hold is not seen: who uses the GPUs is known only in part",
        "run rediacc-gpu doctor (or usage, metrics) as root"));
  if (out.empty())
    out.push_back(kCheck.ok("gpu-use",
                            processes == 0 ? "no process holds a GPU's device nodes open"
                                           : std::to_string(processes) +
                                                 " process(es) hold GPUs, each within its repository's grants or the "
                                                 "machine's own",
                            Evidence("the open files of " + std::to_string(f.usage->processes_read) +
                                     " processes in /proc, by device number")));
  return out;
}

std::string days(std::chrono::system_clock::duration d) {
  const auto h = std::chrono::duration_cast<std::chrono::hours>(d).count();
  return h >= 48 ? std::to_string(h / 24) + " days" : std::to_string(h) + " hours";
}

std::vector<Check> idle_checks(const Facts& f, std::chrono::system_clock::time_point now) {
  if (!f.use || !f.last_use) return {kCheck.skip("grant-idle", "which grants are in use was not looked at")};
  if (!*f.last_use)
    return {kCheck.warn("grant-idle", f.last_use->error().message, "idle grants cannot be told",
                        "move the file aside; the next doctor or metrics run starts it anew")};
  if (f.grants->grants.empty()) return {kCheck.skip("grant-idle", "no repository holds a grant")};
  const auto& record = **f.last_use;
  std::vector<Check> out;
  for (const auto& g : f.grants->grants) {
    if (f.use->in_use.at({g.repo, g.device})) continue;
    // Idle since the last use seen, else since it was granted or the record began, whichever is later.
    auto since = record.since.value_or(now);
    if (auto granted = parse_rfc3339_utc(g.granted_at)) since = std::max(since, *granted);
    if (auto seen = record.seen.find({g.repo, g.device}); seen != record.seen.end()) since = seen->second;
    if (now - since < kIdleAfter) continue;
    auto c = kCheck.warn("grant-idle",
                         g.repo + " holds " + g.device + (g.exclusive ? " (exclusive)" : "") +
                             " and no process of it has used it for " + days(now - since) + " (since " +
                             format_rfc3339_utc(since) + ")",
                         g.exclusive ? "a reserved GPU sits idle: no other repository may use it"
                                     : "granted but idle: expected to be used and not used",
                         "ask " + g.repo + " whether it still needs it; rediacc-gpu revoke " + g.repo + " --device " +
                             g.device + " frees it");
    c.subject = g.repo;
    out.push_back(std::move(c));
  }
  if (out.empty())
    out.push_back(kCheck.ok("grant-idle", "every grant was used within the last day, or is younger than a day",
                            Evidence(std::string(state::kGrantUseRecord) + ", grants.json, the processes in /proc")));
  return out;
}

}  // namespace

std::vector<Check> usage_checks(const Facts& f) {
  auto out = use_checks(f);
  auto idle = idle_checks(f, std::chrono::system_clock::now());
  out.insert(out.end(), idle.begin(), idle.end());
  return out;
}

}  // namespace rgpu::doctor
