// Layer 6 from the record: the last canary of each repository's names, as its timer left it.

#include "canary/record.h"
#include "core/time_text.h"
#include "doctor/doctor.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::container};
// The timer runs hourly: a result older than two runs means it stopped.
constexpr auto kStaleAfter = std::chrono::hours(2);

Check judged(const canary::CanaryResult& c, std::chrono::system_clock::time_point now) {
  const std::string what = c.repo + " with " + c.device + " in " + c.image;
  const std::string again = "rediacc-gpu canary --repo " + c.repo + " --device " + c.device;
  if (!c.ok) {
    const auto why = canary::diagnose_canary(c);
    return kCheck.fail("canary", what + " failed at " + c.stage + " (" + c.at + "): " + c.detail,
                       "a container of " + c.repo + " cannot get this GPU through its own chain now" +
                           (c.last_success ? " (last success " + *c.last_success + ")" : " (never succeeded)") + ": " +
                           why.meaning,
                       why.decision + "; then `" + again + "`");
  }
  const auto at = parse_rfc3339_utc(c.at);
  if (!at || now - *at > kStaleAfter)
    return kCheck.warn("canary", what + " succeeded, but last ran at " + c.at,
                       "its hourly timer has stopped: a later fault goes unseen",
                       "systemctl enable --now rediacc-gpu-canary@" + c.repo + ".timer");
  return kCheck.ok("canary", what + ": the devices were there inside at " + c.at + " (" + c.detail + ")",
                   Evidence(canary::canary_record_path(c.repo) + ", as the last canary run left it"));
}

}  // namespace

std::vector<Check> canary_checks(const Facts& f) {
  std::vector<Check> out;
  const auto now = std::chrono::system_clock::now();
  for (const auto& [repo, results] : f.canaries) {
    if (!results) {
      out.push_back(kCheck.warn("canary", results.error().message, "the canary's last results cannot be read",
                                "move the file aside; the next canary writes it anew"));
      out.back().subject = repo;
      continue;
    }
    for (const auto& c : *results) {
      out.push_back(judged(c, now));
      out.back().subject = repo;
    }
  }
  if (out.empty())
    out.push_back(kCheck.skip("canary",
                              "no canary has run (rediacc-gpu canary --repo REPO, or "
                              "systemctl enable --now rediacc-gpu-canary@REPO.timer)"));
  return out;
}

}  // namespace rgpu::doctor
