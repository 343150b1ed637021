#include "grants/hardware.h"

#include <algorithm>

#include "core/joined.h"

namespace rgpu::grants {

Result<std::vector<std::string>> hardware_of(const probe::HardwareReader& reader, const cdi::IndexedDevice& device) {
  auto ids = reader.identities(device.nodes);
  if (!ids) return fail(device.qualified_name + ": " + ids.error().message);
  return ids;
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

std::vector<GrantMove> moved_grants(const probe::HardwareReader& reader, const cdi::SpecIndex& index,
                                    const GrantSet& set) {
  std::vector<GrantMove> out;
  for (const auto& g : set.grants) {
    if (!g.hardware) continue;
    const auto* d = cdi::find_device(index, g.device);
    if (!d) continue;
    auto now = reader.identities(d->nodes);
    if (!now) {
      out.push_back({g, {}, now.error().message});
    } else if (!moved_to(*g.hardware, *now).empty()) {
      out.push_back({g, *now, ""});
    }
  }
  return out;
}

std::string move_warning(const GrantMove& m) {
  const auto& g = m.grant;
  const std::string what = m.unreadable.empty()
                               ? "now reaches other hardware than was granted (" +
                                     move_clause(g.hardware.value_or(std::vector<std::string>{}), m.now) + ")"
                               : "reaches hardware that cannot be told now (" + m.unreadable + ")";
  return "repository \"" + g.repo + "\"'s " + g.device + " " + what +
         ": the gate refuses it and its view leaves it out; re-grant it to accept that (rediacc-gpu grant " + g.repo +
         " --device " + g.device + ") or grant the name keyed by the card (rediacc-gpu list).";
}

std::string move_clause(const std::vector<std::string>& recorded, const std::vector<std::string>& now) {
  const auto list = [](const std::vector<std::string>& ids) {
    return ids.empty() ? std::string("nothing") : joined(ids);
  };
  return "granted on " + list(recorded) + ", now " + list(now);
}

}  // namespace rgpu::grants
