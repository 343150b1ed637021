#include "admission/device_checks.h"

#include <algorithm>
#include <array>

#include "admission/api_fields.h"
#include "admission/capabilities.h"
#include "admission/confinement_checks.h"
#include "admission/host_paths.h"
#include "admission/mount_checks.h"
#include "admission/mount_spec.h"
#include "admission/security_options.h"
#include "cdi/device_name.h"
#include "cdi/reach_rules.h"
#include "cdi/spec_index.h"
#include "core/edit_distance.h"
#include "core/joined.h"
#include "grants/hardware.h"
#include "grants/store.h"

namespace rgpu::admission {

using docker::go_fold_equal;
using docker::GoValue;
using docker::read_go_json;

namespace {

bool qualified_cdi_name(const std::string& name) { return cdi::parse_device_name(name).has_value(); }

// A name whose spec now runs a hook or moves a net device its grant did not review: the spec
// changed after the grant (or the grant predates the review).
Refusal check_reviewed(const grants::Grant& grant, CheckContext& context) {
  const auto now = context.world.review_items(grant.device);
  if (now.empty()) return std::nullopt;
  // The views leave such a name out by the same rule (grants::unreviewed).
  std::string added;
  bool net = false, hook = false;
  for (const auto& item : grants::unreviewed(grant, now)) {
    added += (added.empty() ? "" : ", ") + item;
    (item.starts_with("net device") ? net : hook) = true;
  }
  if (added.empty()) return std::nullopt;
  return "refused: the spec of " + grant.device + " changed after it was granted to repository \"" + grant.repo +
         "\": it now carries " + added +
         ", which the grant did not review; an operator can review it and grant it "
         "again: rediacc-gpu grant " +
         grant.repo + " --device " + grant.device + (hook ? " --allow-hooks" : "") +
         (net ? " --allow-net-devices" : "");
}

// A granted name must still reach the hardware its grant recorded (a renumbering moves numbered
// names onto other cards), and nothing another repository reserved, whatever name it holds.
Refusal check_hardware(const grants::Grant& grant, const grants::GrantSet& set, CheckContext& context) {
  const auto known = context.world.reach(grant.device);
  if (!known) return std::nullopt;
  const auto& reach = *known;
  // Judged as doctor and the views judge a grant (grants::grant_move); only the words are the gate's.
  const auto move = grants::grant_move(grant, reach);
  if (move && !move->unreadable.empty()) {
    context.detail = move->unreadable;
    return "refused: the gate cannot tell which hardware " + grant.device +
           " reaches now, so it gives it to no container; ask an operator (rediacc-gpu doctor names what is wrong).";
  }
  // Left to dockerd, a name no spec defines fails with the daemon's own words, and a view or spec
  // that comes back later would hand out whatever it maps then, unjudged by this request.
  if (move && move->stale_kind == grants::GrantMove::Stale::undefined) {
    return "refused: no CDI spec on this machine defines " + grant.device + ", which repository \"" + grant.repo +
           "\" was granted; the device is gone or " + std::string(grants::kStaleSpecs) +
           " (an operator; rediacc-gpu doctor names what is wrong).";
  }
  if (move && move->stale_kind == grants::GrantMove::Stale::key_elsewhere) {
    context.detail = move->stale;
    return "refused: " + move->stale + "; " + std::string(grants::kStaleSpecs) + " (an operator).";
  }
  const auto& now = (*reach)->identities;
  const grants::Grant* holder = grants::reserved_by_other(set, grant.repo, now);
  if (move) {
    // Re-granting accepts the move: never the advice when the card is another repository's now.
    const std::string way_out =
        holder
            ? "; the card it reaches now is reserved by another repository, so an operator grants the name keyed "
              "by the card it should have (rediacc-gpu list) instead"
            : "; an operator re-grants it to accept that (rediacc-gpu grant " + grant.repo + " --device " +
                  grant.device + ")" +
                  (cdi::is_hardware_keyed(grant.device) ? ""
                                                        : " or grants the name keyed by the card (rediacc-gpu list)");
    if (holder) context.detail = "reserved by repository \"" + holder->repo + "\" through " + holder->device;
    return "refused: " + grant.device + " now reaches other hardware than was granted to repository \"" + grant.repo +
           "\" (" + grants::move_clause(*grant.hardware, now) + ")" + way_out + ".";
  }
  if (holder) {
    context.detail = "reserved by repository \"" + holder->repo + "\" through " + holder->device;
    return "refused: " + grant.device + " now reaches " + grants::shared_hardware(*holder->hardware, now) +
           ", which another repository reserved; ask an operator (rediacc-gpu doctor names the grants).";
  }
  return std::nullopt;
}

// What a world that does not know the machine's names gives held_names: no filter.
const std::vector<std::string> kNoNames;

// The names the repository holds that this machine still defines, sorted.
std::vector<std::string> held_names(const grants::GrantSet& set, const std::string& repo,
                                    const std::vector<std::string>& defined) {
  std::vector<std::string> out;
  for (const auto& g : set.grants) {
    if (g.repo == repo && (defined.empty() || std::binary_search(defined.begin(), defined.end(), g.device)))
      out.push_back(g.device);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A name the repository does not hold: suggest only names this machine defines, the
// repository's own first; never a grant command for a name no spec defines.
std::string no_grant(const std::string& name, const grants::GrantSet& set, CheckContext& context) {
  const auto known = context.world.defined_names();
  const std::vector<std::string>& defined = known ? *known : kNoNames;
  const auto held = held_names(set, context.repo, defined);
  const std::string repo = "repository \"" + context.repo + "\"";
  const std::string holds = held.empty() ? "" : "; " + repo + " holds " + joined(held);
  if (known && !std::binary_search(defined.begin(), defined.end(), name)) {
    // The closest names only when the repository holds none to name instead: edit distances over
    // every defined name were a tenth of a refused CDI request's time, for a list never shown.
    const auto near = held.empty() ? closest(name, defined, 3) : std::vector<std::string>{};
    return "refused: no CDI spec on this machine defines " + name +
           (!held.empty()   ? holds
            : !near.empty() ? "; names this machine defines: " + joined(near) + " (an operator can grant one)"
                            : "; this machine defines no CDI names") +
           ".";
  }
  return "refused: " + repo + " has no grant for " + name + (held.empty() ? "" : "; it holds " + joined(held)) +
         "; an operator can grant it with: rediacc-gpu grant " + context.repo + " --device " + name;
}

Refusal check_cdi_request(const GoValue& req, CheckContext& context) {
  LazyGrants& grants = context.grants;
  const std::string& repo = context.repo;
  const auto count = req.field("Count");
  const auto options = req.field("Options");
  const auto ids = req.field("DeviceIDs");
  if (count && !count->is_empty())
    return "refused: a CDI device request with a Count; name the devices instead: --device VENDOR/CLASS=NAME.";
  if (options && !options->is_empty()) return "refused: a CDI device request with Options, which CDI does not take.";
  if (!ids || ids->kind() != GoValue::Kind::array || ids->items().empty())
    return "refused: a CDI device request that names no device.";
  for (const GoValue id : ids->items()) {
    const std::string name(id.text());
    if (id.kind() != GoValue::Kind::string || !qualified_cdi_name(name)) {
      return "refused: \"" + name + "\" is not a qualified CDI name (vendor.com/class=name).";
    }
    // CDI kinds are matched exactly, so this prefix is the management spec's every spelling.
    if (name.starts_with("management.")) {
      return "refused: " + name +
             " is a management device (every GPU's capability nodes); it is never given to a "
             "tenant, whatever the grants say.";
    }
    const auto& set = grants.get();
    if (!set) {
      // The tenant learns what to do; the path and the parser's words go to the plugin's log.
      context.detail = set.error().message;
      return std::string(
          "refused: this machine's grants cannot be read, so no CDI name can be given; ask an "
          "operator (rediacc-gpu doctor names what is wrong).");
    }
    const grants::Grant* grant = (*set)->find(repo, name);
    if (!grant) return no_grant(name, **set, context);
    if (auto bad = check_reviewed(*grant, context)) return bad;
    if (auto bad = check_hardware(*grant, **set, context)) return bad;
  }
  return std::nullopt;
}

}  // namespace

// What a tenant that asked for devices another way is told to do: ask by a name its repository
// holds, or, holding none, have an operator grant one. Never a name it does not hold.
std::string cdi_form(CheckContext& context) {
  const auto& set = context.grants.get();
  const auto known = context.world.defined_names();
  const auto held = set ? held_names(**set, context.repo, known ? *known : kNoNames) : std::vector<std::string>{};
  const std::string repo = "repository \"" + context.repo + "\"";
  if (held.empty())
    return "devices are asked for by CDI name, and " + repo +
           " holds none: an operator grants one with rediacc-gpu grant " + context.repo +
           " --device NAME (rediacc-gpu cdi list names them)";
  return "ask for devices by CDI name: docker run --device " + held.front() + " (Compose: devices: [" + held.front() +
         "]); " + repo + " holds " + joined(held);
}

namespace {

// Docker 29.2 and later turn an NVIDIA --gpus into CDI names by number (29.3 an AMD one too),
// names no grant keys to one card; the tenant reads why, and the names it can ask for instead.
std::string driver_refusal(const std::string& driver, CheckContext& context) {
  std::string out = "refused: a device request with driver \"" + driver +
                    "\" (docker run --gpus, Compose gpus: or deploy.resources.reservations.devices); Docker 29.2 "
                    "and later turn --gpus into numbered names (--gpus 2 is nvidia.com/gpu=0 and nvidia.com/gpu=1), "
                    "and a number can name another card after a reboot; ";
  return out + cdi_form(context) + ".";
}

}  // namespace

Refusal check_device_requests(const Fields& hc, CheckContext& context) {
  const auto& requests = hc[kDeviceRequests];
  if (!requests || requests->is_null()) return std::nullopt;
  if (requests->kind() != GoValue::Kind::array) return "refused: DeviceRequests is not a list.";
  for (const GoValue req : requests->items()) {
    const auto driver = req.field("Driver");
    if (req.kind() != GoValue::Kind::object || !driver || driver->kind() != GoValue::Kind::string ||
        driver->text() != "cdi")
      return driver_refusal(driver ? std::string(driver->text()) : std::string(), context);
    if (auto bad = check_cdi_request(req, context)) return bad;
    if (auto bad = check_known_fields(req, ApiObject::device_request)) return bad;
  }
  return std::nullopt;
}

namespace {

// The TUN device a WireGuard container opens, where the policy allows it: the host path must be
// /dev/net/tun once cleaned and, on the machine, resolve to itself and be the TUN character device
// (10:200), never a link or a node renamed there.
bool allowed_tun(const GoValue& device, GateWorld& world, const PolicyRules& policy) {
  if (!policy.tun_device) return false;
  const auto host = device.field("PathOnHost");
  if (!host || host->kind() != GoValue::Kind::string || clean_path(host->text()) != kTunDevice) return false;
  return world.is_tun_device(kTunDevice);
}

}  // namespace

Refusal check_devices(const Fields& hc, GateWorld& world, const PolicyRules& policy) {
  const auto& devices = hc[kDevices];
  if (!devices || devices->is_empty()) return std::nullopt;
  std::string path = "a device";
  bool refused = false;
  for (const GoValue d : devices->items()) {
    if (allowed_tun(d, world, policy)) continue;
    refused = true;
    const auto host = d.field("PathOnHost");
    const std::string written(host ? host->text() : "");
    if (qualified_cdi_name(written)) {
      return "refused: \"" + written +
             "\" came as a raw device path, which is how Compose before 2.30 sends devices: [" + written +
             "]; upgrade Docker Compose to 2.30 or later (docker compose version), which asks for it as a CDI device "
             "the gate checks against your grants.";
    }
    if (path == "a device" && host) path = written;
  }
  if (!refused) return std::nullopt;
  return "refused: raw device \"" + path + "\"; ask for it by CDI name: " + world.cdi_form(path) + ".";
}

}  // namespace rgpu::admission
