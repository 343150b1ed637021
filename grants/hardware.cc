#include "grants/hardware.h"

#include <algorithm>
#include <optional>

#include "cdi-gen/reach_rules.h"
#include "core/joined.h"

namespace rgpu::grants {

namespace {

// "pci-0000-01-00.0-cpx3" -> {"0000:01:00.0", "cpx3"}; absent for any other device name.
std::optional<std::pair<std::string, std::string>> pci_key(std::string_view device) {
  constexpr std::string_view kPrefix = "pci-";
  constexpr size_t kAddress = 12;  // "0000-01-00.0"
  if (!device.starts_with(kPrefix) || device.size() < kPrefix.size() + kAddress) return std::nullopt;
  std::string address(device.substr(kPrefix.size(), kAddress));
  if (address[4] != '-' || address[7] != '-' || address[10] != '.') return std::nullopt;
  address[4] = address[7] = ':';
  const auto rest = device.substr(kPrefix.size() + kAddress);
  if (!rest.empty() && (rest.front() != '-' || rest.size() == 1)) return std::nullopt;
  return std::pair{address, std::string(rest.empty() ? rest : rest.substr(1))};
}

}  // namespace

std::string stale_key(std::string_view qualified_name, const probe::Reach& now) {
  const auto eq = qualified_name.find('=');
  if (eq == std::string_view::npos) return "";
  const auto device = qualified_name.substr(eq + 1);
  const auto reaches = [&] { return now.identities.empty() ? std::string("nothing") : joined(now.identities); };
  if (const auto key = pci_key(device)) {
    const std::string& address = key->first;
    const std::string& part = key->second;
    const bool card_ok = !now.cards.empty() && std::all_of(now.cards.begin(), now.cards.end(),
                                                           [&](const std::string& c) { return c == address; });
    const bool part_ok = part.empty() || std::all_of(now.identities.begin(), now.identities.end(),
                                                     [&](const std::string& id) { return id == address + "/" + part; });
    if (card_ok && part_ok && !now.identities.empty()) return "";
    return std::string(qualified_name) + " is keyed by " + address + (part.empty() ? "" : "/" + part) + " but maps " +
           (now.cards.empty() ? reaches() : joined(now.cards)) + " now";
  }
  if (device.starts_with("GPU-")) {
    const std::string uuid(device);
    if (!now.identities.empty() && std::all_of(now.identities.begin(), now.identities.end(),
                                               [&](const auto& id) { return probe::identity_covers(uuid, id); }))
      return "";
    return std::string(qualified_name) + " is keyed by " + uuid + " but maps " + reaches() + " now";
  }
  return "";  // numbered names have no key; MIG UUIDs are not in /proc to check them against
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
  if (auto stale = stale_key(grant.device, reach); !stale.empty())
    return GrantMove{.grant = grant,
                     .now = reach.identities,
                     .stale_kind = GrantMove::Stale::key_elsewhere,
                     .stale = std::move(stale)};
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
