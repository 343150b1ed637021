#include "grants/apply.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/file_lock.h"
#include "core/joined.h"
#include "core/state_paths.h"
#include "core/structured_text.h"
#include "grants/hardware.h"
#include "grants/views.h"

namespace rgpu::grants {
namespace {

using nlohmann::json;

// Every object's keys are checked, so a misspelt "exclusiv" is an error, not a shared GPU.
Result<void> known_keys(const json& object, const std::string& at, const std::vector<std::string>& keys) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      return fail(at + " has the field \"" + key + "\", which is not one of " + joined(keys));
  }
  return {};
}

Result<bool> flag(const json& object, const std::string& at, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return false;
  if (!it->is_boolean()) return fail(at + "." + key + " is not true or false");
  return it->get<bool>();
}

Result<DesiredGrant> desired_grant(const json& g, const std::string& at) {
  if (g.is_string()) return DesiredGrant{g.get<std::string>(), false, {}};
  if (!g.is_object()) return fail(at + " is neither a CDI name nor an object with \"device\"");
  RGPU_TRY(known_keys(g, at, {"device", "exclusive", "allow_hooks", "allow_net_devices"}));
  auto device = g.find("device");
  if (device == g.end() || !device->is_string() || device->get<std::string>().empty())
    return fail(at + ".device is missing or not a CDI name");
  DesiredGrant out{device->get<std::string>(), false, {}};
  auto exclusive = flag(g, at, "exclusive");
  auto hooks = flag(g, at, "allow_hooks");
  auto nets = flag(g, at, "allow_net_devices");
  for (const auto* f : {&exclusive, &hooks, &nets}) {
    if (!*f) return tl::unexpected(f->error());
  }
  out.exclusive = *exclusive;
  out.review = {*hooks, *nets};
  return out;
}

Result<DesiredRepository> desired_repository(const json& r, const std::string& at, const std::string& hostname) {
  if (!r.is_object()) return fail(at + " is not an object with \"name\" and \"grants\"");
  RGPU_TRY(known_keys(r, at, {"name", "grants"}));
  auto name = r.find("name");
  if (name == r.end() || !name->is_string()) return fail(at + ".name is missing or not a string");
  auto repo = parse_repo(name->get<std::string>(), hostname);
  if (!repo) return fail(at + ": " + repo.error().message);
  DesiredRepository out{*repo, {}};
  auto grants = r.find("grants");
  if (grants == r.end() || grants->is_null()) return out;
  if (!grants->is_array()) return fail(at + ".grants is not a list");
  std::set<std::string> seen;
  for (size_t i = 0; i < grants->size(); ++i) {
    const std::string where = at + ".grants[" + std::to_string(i) + "]";
    RGPU_TRY_ASSIGN(auto g, desired_grant((*grants)[i], where));
    if (!seen.insert(g.device).second) return fail(where + " lists " + g.device + " a second time for " + *repo);
    out.grants.push_back(std::move(g));
  }
  return out;
}

Result<json> document(std::string_view text, std::string_view where) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') return parse_json(text, where);
  return parse_yaml(text, where);
}

// "exclusive now", …: what an update changes, for the report.
std::string why_updated(const Grant& before, const Grant& after) {
  if (before.exclusive != after.exclusive) return after.exclusive ? "exclusive now" : "no longer exclusive";
  if (before.hardware != after.hardware)
    return "reaches other hardware now (" +
           move_clause(before.hardware.value_or(std::vector<std::string>{}),
                       after.hardware.value_or(std::vector<std::string>{})) +
           ")";
  if (before.reached != after.reached) return "reaches other nodes now";
  return "reviewed again";
}

bool same_grant(const Grant& a, const Grant& b) {
  return a.exclusive == b.exclusive && a.reached == b.reached && a.hardware == b.hardware &&
         a.reviewed.value_or(std::vector<std::string>{}) == b.reviewed.value_or(std::vector<std::string>{});
}

struct Listed {
  std::map<std::string, const DesiredRepository*> repos;
  bool has(const Grant& g) const {
    auto it = repos.find(g.repo);
    if (it == repos.end()) return false;
    return std::any_of(it->second->grants.begin(), it->second->grants.end(),
                       [&](const DesiredGrant& d) { return d.device == g.device; });
  }
};

// Each wanted grant against every other repository's grant as the set would be: a pair is
// reported once, with the way out that fits who holds the other name.
void refuse_conflicts(const GrantSet& after, const std::vector<Grant>& wanted, const Listed& listed,
                      const cdi::ReachMap& reach, std::vector<GrantRefusal>& refused) {
  std::set<std::pair<std::string, std::string>> reported;
  const auto key = [](const Grant& g) { return g.repo + "\n" + g.device; };
  for (const auto& w : wanted) {
    for (const auto& other : after.grants) {
      if (other.repo == w.repo) continue;
      // Both ways at once: `other` reserved, or `w` reserving what `other` reaches.
      const auto why =
          exclusivity_conflict(other, w.device, w.exclusive, w.hardware.value_or(std::vector<std::string>{}), reach);
      if (why.empty()) continue;
      auto pair = std::make_pair(key(w), key(other));
      if (pair.second < pair.first) std::swap(pair.first, pair.second);
      if (!reported.insert(std::move(pair)).second) continue;
      std::string way_out = "; revoke it there first.";
      if (listed.has(other)) {
        way_out = "; this file lists both: change one of them.";
      } else if (listed.repos.count(other.repo)) {
        way_out = "; this file does not list that grant of " + other.repo + ": apply with --prune to revoke it.";
      }
      refused.push_back({w.repo, w.device, why + way_out});
    }
  }
}

}  // namespace

Result<DesiredGrants> parse_desired_grants(std::string_view text, std::string_view where, const std::string& hostname) {
  RGPU_TRY_ASSIGN(auto doc, document(text, where));
  const std::string at(where);
  if (!doc.is_object()) return fail(at + " is not a grants file: an object with \"schema\" and \"repositories\"");
  RGPU_TRY(known_keys(doc, at, {"schema", "repositories"}));
  auto schema = doc.find("schema");
  if (schema == doc.end() || !schema->is_number_integer())
    return fail(at + " has no \"schema\": add \"schema\": " + std::to_string(kDesiredGrantsSchema));
  if (schema->get<long long>() != kDesiredGrantsSchema) {
    return fail(at + " has schema " + std::to_string(schema->get<long long>()) + "; this rediacc-gpu reads schema " +
                std::to_string(kDesiredGrantsSchema) + " (upgrade rediacc-gpu for a newer one)");
  }
  auto repos = doc.find("repositories");
  if (repos == doc.end() || !repos->is_array()) return fail(at + ".repositories is missing or not a list");
  DesiredGrants out;
  std::set<std::string> seen;
  for (size_t i = 0; i < repos->size(); ++i) {
    const std::string here = at + ": repositories[" + std::to_string(i) + "]";
    RGPU_TRY_ASSIGN(auto repo, desired_repository((*repos)[i], here, hostname));
    if (!seen.insert(repo.name).second) return fail(here + " lists repository " + repo.name + " a second time");
    out.repositories.push_back(std::move(repo));
  }
  return out;
}

Result<ApplyOutcome> apply_grants(const RootFs& fs, FileSink& sink, const cdi::SpecIndex& index,
                                  const DesiredGrants& desired, bool prune, SystemTime now, bool accept_moves) {
  ApplyOutcome outcome;
  const probe::HardwareReader reader(fs);
  Listed listed;
  std::vector<Grant> wanted;
  for (const auto& r : desired.repositories) {
    listed.repos[r.name] = &r;
    for (const auto& d : r.grants) {
      auto device = grantable(index, d.device);
      auto reviewed =
          device.and_then([&](const cdi::IndexedDevice* found) { return accepted_review(fs, *found, d.review); });
      auto hardware = reviewed.and_then([&](const auto&) { return hardware_of(reader, **device); });
      if (!hardware) {
        outcome.refused.push_back({r.name, d.device, hardware.error().message});
        continue;
      }
      wanted.push_back(
          {r.name, d.device, d.exclusive, format_rfc3339_utc(now), reached_nodes(**device), *reviewed, *hardware});
    }
  }
  RGPU_TRY_ASSIGN(auto lock, FileLock::acquire(fs, state::kGrantsLock));
  RGPU_TRY_ASSIGN(auto before, load_grants(fs));

  GrantSet after;
  for (const auto& g : before.grants) {
    if (listed.repos.count(g.repo) && !listed.has(g)) {
      (prune ? outcome.revoked : outcome.unchanged).push_back(g);
      if (prune) continue;
    }
    if (!listed.has(g)) after.grants.push_back(g);
  }
  for (auto& w : wanted) {
    const Grant* existing = before.find(w.repo, w.device);
    if (existing && same_grant(*existing, w)) {
      outcome.unchanged.push_back(*existing);
      after.grants.push_back(*existing);
      continue;
    }
    if (existing && !accept_moves && existing->hardware &&
        !moved_to(*existing->hardware, w.hardware.value_or(std::vector<std::string>{})).empty()) {
      outcome.refused.push_back({w.repo, w.device,
                                 w.device + " now reaches other hardware than was granted to " + w.repo + " (" +
                                     move_clause(*existing->hardware, *w.hardware) +
                                     "); apply with --accept-moves to record the new hardware, or list the name "
                                     "keyed by the card instead (rediacc-gpu list)."});
      after.grants.push_back(*existing);
      continue;
    }
    if (existing) {
      outcome.updated.push_back({w, why_updated(*existing, w)});
    } else {
      outcome.added.push_back(w);
    }
    after.grants.push_back(w);
  }
  sort_grants(after);
  for (auto* list : {&outcome.added, &outcome.revoked, &outcome.unchanged}) {
    GrantSet sorted{std::move(*list)};
    sort_grants(sorted);
    *list = std::move(sorted.grants);
  }
  refuse_conflicts(after, wanted, listed, machine_reach(fs, index), outcome.refused);
  outcome.change = {Change::Kind::unchanged, state::kGrantsPath, "the grants are as listed"};
  if (!outcome.refused.empty()) return outcome;
  if (outcome.changed()) {
    RGPU_TRY_ASSIGN(auto written, sink.write(state::kGrantsPath, grants_text(after), 0644));
    outcome.change = written;
  }
  // The views follow (also when unchanged: a view left stale by an earlier failure is mended).
  if (auto views = write_views(fs, sink, index, outcome.changed() ? after : before)) {
    outcome.views = std::move(*views);
  } else {
    outcome.views_error = views_not_updated(views.error().message);
  }
  return outcome;
}

}  // namespace rgpu::grants
