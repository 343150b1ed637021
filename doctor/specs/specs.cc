// Layer 4: the CDI specs and the inventory against the hardware present now.

#include <algorithm>

#include "core/joined.h"
#include "core/state_paths.h"
#include "doctor/doctor.h"
#include "probe/inventory_diff.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::specs};

std::vector<Check> specs_parse(const Facts& f) {
  std::vector<Check> out;
  for (const auto& p : f.specs.problems) {
    const bool ours = p.spec_path.find("/rediacc.io-") != std::string::npos;
    out.push_back(kCheck.with(ours ? Status::fail : Status::warn, "specs-parse", p.spec_path + ": " + p.reason,
                              "CDI consumers skip this file: its names cannot be granted or requested",
                              ours ? "run rediacc-gpu cdi generate"
                                   : "fix the file, or remove it (rm " + p.spec_path +
                                         ") if nothing uses it; rediacc-gpu cdi list shows what the specs define"));
  }
  if (out.empty() && f.specs.devices.empty())
    return {kCheck.skip("specs-parse", "no CDI spec in /etc/cdi or /var/run/cdi")};
  if (out.empty()) {
    out.push_back(kCheck.ok("specs-parse", std::to_string(f.specs.devices.size()) + " CDI names, every spec parses",
                            Evidence("the specs in /etc/cdi and /var/run/cdi, read as CDI consumers read them")));
  }
  return out;
}

Check our_specs(const Facts& f) {
  std::string stale;
  for (const auto& spec : f.chain.our_specs) {
    const bool wanted = spec.generated.has_value();
    if (wanted != spec.on_disk.has_value() || (wanted && *spec.on_disk != *spec.generated))
      stale += (stale.empty() ? "" : ", ") + spec.path;
  }
  if (stale.empty())
    return kCheck.ok(check_id::kRediaccSpecs, "rediacc.io specs match the GPUs present",
                     Evidence("the specs on disk against those generated now from a probe of the machine"));
  return kCheck.fail(check_id::kRediaccSpecs, stale + " out of date with the GPUs present",
                     "a granted name may point at a node that is gone, or a present GPU has no name",
                     "run rediacc-gpu cdi generate (setup does it, and the udev rule on hot-plug)");
}

Check inventory(const Facts& f) {
  if (f.recorded_error) {
    return kCheck.fail("inventory", *f.recorded_error, "setup and probe refuse to overwrite it",
                       "move the file away (it may not be ours), then run rediacc-gpu setup");
  }
  if (!f.recorded) {
    return kCheck.warn("inventory", "no /etc/rediacc/gpu/inventory.json", "nothing records what this machine has",
                       "run rediacc-gpu setup");
  }
  if (const auto differences = probe::inventory_differences(*f.recorded, f.fresh); !differences.empty()) {
    constexpr std::size_t kShown = 6;
    std::vector<std::string> shown(differences.begin(),
                                   differences.begin() + static_cast<long>(std::min(kShown, differences.size())));
    if (differences.size() > kShown) shown.push_back(std::to_string(differences.size() - kShown) + " more");
    return kCheck.warn(
        "inventory", "the inventory of " + f.recorded->generated_at + " differs from the machine now: " + joined(shown),
        "what operators and schedulers read of this machine is out of date", "run rediacc-gpu setup");
  }
  return kCheck.ok("inventory", "the inventory of " + f.recorded->generated_at + " matches the machine",
                   Evidence(std::string(state::kInventoryPath) + " against a probe made now"));
}

}  // namespace

std::vector<Check> spec_checks(const Facts& f) {
  auto out = specs_parse(f);
  out.push_back(our_specs(f));
  out.push_back(mig_spec_check(f));
  out.push_back(inventory(f));
  return out;
}

}  // namespace rgpu::doctor
