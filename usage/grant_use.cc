#include "usage/grant_use.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/state_paths.h"
#include "core/time_text.h"
#include "probe/hardware_identity.h"

namespace rgpu::usage {
namespace {

// What each grant covers: its recorded hardware, else what its name reaches now.
std::vector<std::string> covered_by(const probe::HardwareReader& reader, const cdi::SpecIndex& specs,
                                    const grants::Grant& g) {
  if (g.hardware) return *g.hardware;
  const auto* d = cdi::find_device(specs, g.device);
  if (!d) return {};
  auto now = reader.identities(d->nodes);
  return now ? *now : std::vector<std::string>{};
}

bool covers_any(const std::vector<std::string>& granted, const std::string& identity) {
  return std::any_of(granted.begin(), granted.end(),
                     [&](const std::string& g) { return probe::identity_covers(g, identity); });
}

}  // namespace

UseJudgement judge_use(const RootFs& fs, const grants::GrantSet& grants, const cdi::SpecIndex& specs,
                       const UsageReport& usage) {
  UseJudgement out;
  const probe::HardwareReader reader(fs);
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> covers;
  for (const auto& g : grants.grants) {
    out.in_use[{g.repo, g.device}] = false;
    covers[{g.repo, g.device}] = covered_by(reader, specs, g);
  }
  for (const auto& use : usage.gpus) {
    for (const auto& p : use.processes) {
      if (p.owner != Owner::repository || !p.repository) continue;
      // Together, as the grant recorded them: a MIG slice's process holds its parent node too.
      auto held = reader.identities(p.nodes);
      if (!held) {
        out.unreadable.push_back("pid " + std::to_string(p.pid) + ": " + held.error().message);
        continue;
      }
      std::vector<std::string> outside;
      for (const auto& identity : *held) {
        bool covered = false;
        for (const auto& [key, granted] : covers) {
          if (key.first != *p.repository || !covers_any(granted, identity)) continue;
          out.in_use[key] = covered = true;
        }
        if (!covered) outside.push_back(identity);
      }
      if (!outside.empty()) out.strays.push_back({p, gpu_subject(use.gpu), outside});
    }
  }
  return out;
}

Result<LastUse> read_last_use(const RootFs& fs) {
  auto text = fs.read_optional(state::kGrantUseRecord);
  if (!text) return tl::unexpected(text.error());
  LastUse out;
  if (!*text) return out;
  const auto doc = nlohmann::json::parse(**text, nullptr, false);
  if (!doc.is_object() || !doc.contains("grants") || !doc["grants"].is_array())
    return fail(fs.host_path(state::kGrantUseRecord).string() +
                " does not parse as rediacc-gpu's record of grant use; move it aside (it is rebuilt)");
  if (doc.contains("since") && doc["since"].is_string()) out.since = parse_rfc3339_utc(doc["since"].get<std::string>());
  for (const auto& g : doc["grants"]) {
    if (!g.is_object() || !g.value("repo", nlohmann::json()).is_string() ||
        !g.value("device", nlohmann::json()).is_string() || !g.value("last_used", nlohmann::json()).is_string())
      continue;
    if (auto t = parse_rfc3339_utc(g["last_used"].get<std::string>()))
      out.seen[{g["repo"].get<std::string>(), g["device"].get<std::string>()}] = *t;
  }
  return out;
}

UseRecord updated_use(LastUse last, const UseJudgement& judgement, std::chrono::system_clock::time_point now,
                      std::chrono::seconds granularity) {
  bool changed = !last.since;
  if (!last.since) last.since = now;
  for (auto it = last.seen.begin(); it != last.seen.end();) {
    if (!judgement.in_use.count(it->first)) {
      it = last.seen.erase(it);
      changed = true;
    } else {
      ++it;
    }
  }
  for (const auto& [key, used] : judgement.in_use) {
    if (!used) continue;
    auto [it, fresh] = last.seen.try_emplace(key, now);
    if (fresh || now - it->second > granularity) {
      it->second = now;
      changed = true;
    }
  }
  return {std::move(last), changed};
}

Result<Change> write_use_record(FileSink& sink, const LastUse& record) {
  nlohmann::ordered_json doc = {
      {"schema", 1},
      {"since", record.since ? nlohmann::ordered_json(format_rfc3339_utc(*record.since)) : nlohmann::ordered_json()},
      {"grants", nlohmann::ordered_json::array()}};
  for (const auto& [key, t] : record.seen)
    doc["grants"].push_back({{"repo", key.first}, {"device", key.second}, {"last_used", format_rfc3339_utc(t)}});
  return sink.write(state::kGrantUseRecord, doc.dump(2) + "\n");
}

}  // namespace rgpu::usage
