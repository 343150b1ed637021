// Layer 5, the grants against the specs and the hardware now: every granted name still defined,
// grantable and reaching the card it was granted on, and every reservation held alone.

#include <algorithm>
#include <map>

#include "cdi/reach_rules.h"
#include "core/joined.h"
#include "core/state_paths.h"
#include "doctor/doctor.h"
#include "grants/hardware.h"
#include "grants/store.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::policy};

// The hardware each granted name reaches now, as read once per name for this run.
class LiveHardware {
 public:
  explicit LiveHardware(const Facts& f) : read_(f.policy.grant_reach) {}

  const grants::ReachNow& reach(const std::string& device) const {
    // Every granted name is read with the facts; a name no grant holds has nothing read.
    static const grants::ReachNow kUnread = fail("its hardware was not read");
    auto it = read_.find(device);
    return it == read_.end() ? kUnread : it->second;
  }

  /// What it reaches now: nothing when no spec defines it; absent when that cannot be read.
  std::optional<std::vector<std::string>> of(const std::string& device) const {
    const auto& r = reach(device);
    if (!r) return std::nullopt;
    return *r ? (*r)->identities : std::vector<std::string>{};
  }

 private:
  const std::map<std::string, grants::ReachNow>& read_;
};

std::string revoke_command(const std::string& repo, const std::string& device) {
  return "rediacc-gpu revoke " + repo + " --device " + device;
}

// "team-a holds nvidia.com/gpu=0, which now reaches other hardware than was granted (granted on
// GPU-a…, now GPU-b…)", or that its hardware cannot be told now.
std::string hardware_moved(const grants::GrantMove& m) {
  const auto& g = m.grant;
  if (!m.unreadable.empty())
    return g.repo + " holds " + g.device + ", whose hardware cannot be told now: " + m.unreadable;
  return g.repo + " holds " + g.device + ", which now reaches other hardware than was granted (" +
         grants::move_clause(*g.hardware, m.now) + ")";
}

Check moved(const grants::Grant& g, const std::string& why) {
  const std::string regrant = "re-grant to accept it (rediacc-gpu grant " + g.repo + " --device " + g.device + ")";
  return kCheck.fail("grants", why,
                     "the gate refuses the name, and a container made before the change keeps the hardware it was "
                     "given until it is recreated",
                     "check what " + g.repo + " should have, then " + regrant +
                         (cdi::is_hardware_keyed(g.device)
                              ? ""
                              : ", or grant the name keyed by the card (rediacc-gpu list) and revoke this one (" +
                                    revoke_command(g.repo, g.device) + ")"));
}

Check undefined(const grants::Grant& g) {
  return kCheck.warn(
      "grants",
      g.repo + " holds " + g.device + ", which no spec defines now" +
          (g.hardware && !g.hardware->empty() ? " (it reached " + joined(*g.hardware) + " when granted)" : ""),
      "the gate refuses the repository's containers asking for it",
      "revoke it (" + revoke_command(g.repo, g.device) +
          ") or bring the device back; after a re-partition or MIG change, grant the name that now reaches that "
          "hardware");
}

// What is wrong with one grant's name as the specs define it now (grants::grant_move, as the gate
// judges it); a grant that recorded no hardware is added to `unpinned`.
std::vector<Check> name_findings(const Facts& f, const grants::Grant& g, const LiveHardware& live,
                                 std::vector<std::string>& unpinned) {
  const auto move = grants::grant_move(g, live.reach(g.device));
  if (move && move->stale_kind == grants::GrantMove::Stale::undefined) return {undefined(g)};
  std::vector<Check> out;
  const auto* def = cdi::find_device(f.specs, g.device);
  if (auto why = def ? cdi::ungrantable_reason(*def) : ""; !why.empty()) {
    out.push_back(kCheck.fail("grants", g.repo + " holds " + g.device, why,
                              "revoke it (" + revoke_command(g.repo, g.device) + ")"));
  }
  if (move && move->stale_kind == grants::GrantMove::Stale::key_elsewhere) {
    out.push_back(kCheck.fail("grants",
                              g.repo + " holds " + g.device + ", which is keyed by " + move->elsewhere->key +
                                  " but maps " + move->elsewhere->maps + " now",
                              "the gate refuses the name: its spec was written before the cards moved",
                              std::string(grants::kStaleSpecs)));
    return out;
  }
  if (!g.hardware) {
    unpinned.push_back(g.repo + ": " + g.device);
  } else if (move) {
    out.push_back(moved(g, hardware_moved(*move)));
  }
  return out;
}

// Another repository's names that reach a reserved GPU: by the names alone for a reservation that
// recorded no hardware, by the card each name reaches now for one that did (the names may have
// moved, the reserving one included, and would blame the wrong grant).
std::vector<Check> reservation_findings(const Facts& f, const grants::Grant& g, const cdi::ReachMap& reach,
                                        const LiveHardware& live) {
  std::vector<Check> out;
  if (!g.hardware) {
    for (const auto& h : grants::alias_holders(*f.grants, reach, g.repo, g.device)) {
      out.push_back(kCheck.fail(
          "grants",
          g.repo + " holds " + g.device + " exclusively, and " + h.repo + " holds " + h.alias +
              ", which reaches the same GPU",
          "the GPU is reserved for one repository, yet both repositories' containers can use it (granted before the "
          "specs changed, or by an older rediacc-gpu)",
          "revoke it (" + revoke_command(h.repo, h.alias) + ") if the GPU is to be " + g.repo + "'s alone"));
    }
    return out;
  }
  for (const auto& other : f.grants->grants) {
    if (other.repo == g.repo) continue;
    const auto now = live.of(other.device);
    if (!now) continue;
    if (auto id = grants::shared_hardware(*g.hardware, *now); !id.empty()) {
      out.push_back(kCheck.fail(
          "grants",
          g.repo + " reserved " + id + " through " + g.device + ", and " + other.repo + "'s " + other.device +
              " reaches it now",
          "the gate refuses " + other.repo +
              "'s name, and a container made before the change reaches the reserved card until it is recreated",
          "revoke it (" + revoke_command(other.repo, other.device) + ") or grant " + other.repo +
              " a name keyed by the card it should have"));
    }
  }
  return out;
}

Check unpinned_grants(const std::vector<std::string>& unpinned) {
  return kCheck.warn(
      "grant-hardware",
      std::to_string(unpinned.size()) +
          " grants were written before rediacc-gpu recorded the hardware a grant reaches: " + joined(unpinned),
      "the gate cannot tell whether these names moved to another card since",
      "grant each again to record the card it reaches now (rediacc-gpu grant REPO --device NAME), "
      "after checking that it is the card the repository should have");
}

Check all_grants_hold(const Facts& f, size_t exclusive, size_t unpinned) {
  const size_t total = f.grants->grants.size();
  return kCheck.ok("grants",
                   std::to_string(total) + " grants (" + std::to_string(exclusive) +
                       " exclusive), each naming a defined device" +
                       (unpinned < total ? " and reaching the hardware it was granted on" : ""),
                   Evidence("grants.json, the CDI specs in /etc/cdi, each node's card read now in /sys"));
}

}  // namespace

std::vector<Check> grant_checks(const Facts& f) {
  if (!f.grants) {
    return {kCheck.fail("grants", f.grants.error().message,
                        "every grant command refuses, and requests naming CDI devices are refused",
                        std::string("fix ") + state::kGrantsPath +
                            " by hand (rediacc-gpu grants lists them once it parses), or move it aside (mv) and grant "
                            "again: rediacc-gpu grant REPO --device NAME")};
  }
  if (f.grants->grants.empty()) return {kCheck.skip("grants", "no repository holds a grant")};
  const cdi::ReachMap reach(f.specs, f.fresh);
  const LiveHardware live(f);
  std::vector<Check> out;
  std::vector<std::string> unpinned;
  size_t exclusive = 0;
  for (const auto& g : f.grants->grants) {
    auto found = name_findings(f, g, live, unpinned);
    if (g.exclusive) {
      ++exclusive;
      auto reserved = reservation_findings(f, g, reach, live);
      found.insert(found.end(), reserved.begin(), reserved.end());
    }
    // Every finding of a grant is about its repository: scripts group by subject.
    for (auto& c : found) out.push_back(std::move(c).about(g.repo));
  }
  if (!unpinned.empty()) out.push_back(unpinned_grants(unpinned));
  if (std::none_of(out.begin(), out.end(), [](const Check& c) { return c.id == "grants"; }))
    out.push_back(all_grants_hold(f, exclusive, unpinned.size()));
  return out;
}

}  // namespace rgpu::doctor
