#include "grants/hardware.h"

#include <algorithm>
#include <optional>

#include "cdi/device_name.h"
#include "cdi/reach_rules.h"
#include "core/joined.h"

namespace rgpu::grants {

std::optional<KeyElsewhere> key_elsewhere(std::string_view qualified_name, const probe::Reach& now) {
  const auto name = cdi::parse_device_name(qualified_name);
  const auto key = name ? name->key() : std::nullopt;
  if (!key) return std::nullopt;  // numbered names have no key
  const auto reaches = [&] { return now.identities.empty() ? std::string("nothing") : joined(now.identities); };
  switch (key->kind) {
    case cdi::HardwareKey::Kind::pci: {
      const std::string& address = key->id;
      const std::string& part = key->part;
      const bool card_ok = !now.cards.empty() && std::all_of(now.cards.begin(), now.cards.end(),
                                                             [&](const std::string& c) { return c == address; });
      const bool part_ok =
          part.empty() || std::all_of(now.identities.begin(), now.identities.end(),
                                      [&](const std::string& id) { return id == address + "/" + part; });
      if (card_ok && part_ok && !now.identities.empty()) return std::nullopt;
      return KeyElsewhere{address + (part.empty() ? "" : "/" + part),
                          now.cards.empty() ? reaches() : joined(now.cards)};
    }
    case cdi::HardwareKey::Kind::gpu_uuid:
      if (!now.identities.empty() && std::all_of(now.identities.begin(), now.identities.end(),
                                                 [&](const auto& id) { return probe::identity_covers(key->id, id); }))
        return std::nullopt;
      return KeyElsewhere{key->id, reaches()};
    case cdi::HardwareKey::Kind::mig_uuid: return std::nullopt;  // MIG UUIDs are not in /proc to check them against
  }
  return std::nullopt;
}

std::string stale_key(std::string_view qualified_name, const probe::Reach& now) {
  const auto elsewhere = key_elsewhere(qualified_name, now);
  if (!elsewhere) return "";
  return std::string(qualified_name) + " is keyed by " + elsewhere->key + " but maps " + elsewhere->maps + " now";
}

Result<std::vector<std::string>> hardware_of(const probe::HardwareReader& reader, const cdi::IndexedDevice& device) {
  auto now = reader.reach(device.nodes);
  if (!now) return fail(device.qualified_name + ": " + now.error().message);
  if (auto stale = stale_key(device.qualified_name, *now); !stale.empty())
    return fail(stale + "; " + std::string(kStaleSpecs) + ", then grant it again.");
  return std::move(now->identities);
}

std::vector<std::string> moved_to(const std::vector<std::string>& recorded, const std::vector<std::string>& now) {
  std::vector<std::string> out;
  for (const auto& id : now) {
    if (std::none_of(recorded.begin(), recorded.end(),
                     [&](const std::string& r) { return probe::identity_covers(r, id); }))
      out.push_back(id);
  }
  return out;
}

namespace {

// Partitions of one card cut in two modes ("…/cpx1", "…/dpx1") may share its compute dies: a
// reservation made in one mode holds against the other.
bool other_cut_of_same_card(std::string_view a, std::string_view b) {
  const auto sa = a.find('/'), sb = b.find('/');
  if (sa == std::string_view::npos || sb == std::string_view::npos || a.substr(0, sa) != b.substr(0, sb)) return false;
  const auto mode = [](std::string_view part) { return part.substr(0, part.find_first_of("0123456789")); };
  const auto ma = mode(a.substr(sa + 1)), mb = mode(b.substr(sb + 1));
  return !ma.starts_with("gi") && !mb.starts_with("gi") && ma != mb;
}

}  // namespace

std::string shared_hardware(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (const auto& x : a) {
    for (const auto& y : b) {
      if (probe::identity_covers(x, y) || other_cut_of_same_card(x, y)) return y;
      if (probe::identity_covers(y, x)) return x;
    }
  }
  return "";
}

const Grant* reserved_by_other(const GrantSet& set, const std::string& repo, const std::vector<std::string>& now) {
  for (const auto& g : set.grants) {
    if (g.repo != repo && g.exclusive && g.hardware && !shared_hardware(*g.hardware, now).empty()) return &g;
  }
  return nullptr;
}

std::optional<GrantMove> grant_move(const Grant& grant, const ReachNow& now) {
  if (!now) return GrantMove{.grant = grant, .unreadable = now.error().message};
  if (!*now)
    return GrantMove{.grant = grant, .stale_kind = GrantMove::Stale::undefined, .stale = std::string(kUndefined)};
  const auto& reach = **now;
  if (auto elsewhere = key_elsewhere(grant.device, reach))
    return GrantMove{.grant = grant,
                     .now = reach.identities,
                     .stale_kind = GrantMove::Stale::key_elsewhere,
                     .elsewhere = elsewhere,
                     .stale = stale_key(grant.device, reach)};
  if (grant.hardware && !moved_to(*grant.hardware, reach.identities).empty())
    return GrantMove{.grant = grant, .now = reach.identities};
  return std::nullopt;
}

ReachNow reach_now(const probe::HardwareReader& reader, const cdi::SpecIndex& index, const std::string& device) {
  const auto* d = cdi::find_device(index, device);
  if (!d) return std::optional<probe::Reach>();
  RGPU_TRY_ASSIGN(auto reach, reader.reach(d->nodes));
  return std::optional<probe::Reach>(std::move(reach));
}

std::vector<GrantMove> moved_grants(const probe::HardwareReader& reader, const cdi::SpecIndex& index,
                                    const GrantSet& set) {
  std::vector<GrantMove> out;
  for (const auto& g : set.grants) {
    if (auto move = grant_move(g, reach_now(reader, index, g.device))) out.push_back(std::move(*move));
  }
  return out;
}

std::string move_warning(const GrantMove& m) {
  const auto& g = m.grant;
  if (m.stale_kind == GrantMove::Stale::undefined) {
    return "repository \"" + g.repo + "\"'s " + g.device + ": " + m.stale +
           ", so the gate refuses it: if the device is gone for good, revoke it (rediacc-gpu revoke " + g.repo +
           " --device " + g.device + "); else bring it back and run rediacc-gpu setup.";
  }
  if (m.stale_kind == GrantMove::Stale::key_elsewhere) {
    return "repository \"" + g.repo + "\"'s " + g.device + ": " + m.stale +
           "; the gate refuses it and its view leaves it out until " + std::string(kStaleSpecs) + ".";
  }
  const std::string what = m.unreadable.empty()
                               ? "now reaches other hardware than was granted (" +
                                     move_clause(g.hardware.value_or(std::vector<std::string>{}), m.now) + ")"
                               : "reaches hardware that cannot be told now (" + m.unreadable + ")";
  return "repository \"" + g.repo + "\"'s " + g.device + " " + what +
         ": the gate refuses it and its view leaves it out; re-grant it to accept that (rediacc-gpu grant " + g.repo +
         " --device " + g.device + ")" +
         (cdi::is_hardware_keyed(g.device) ? "" : " or grant the name keyed by the card (rediacc-gpu list)") + ".";
}

std::string move_clause(const std::vector<std::string>& recorded, const std::vector<std::string>& now) {
  const auto list = [](const std::vector<std::string>& ids) {
    return ids.empty() ? std::string("nothing") : joined(ids);
  };
  return "granted on " + list(recorded) + ", now " + list(now);
}

}  // namespace rgpu::grants
