#include "canary/record.h"

#include <algorithm>

#include "core/state_paths.h"

namespace rgpu::canary {

nlohmann::ordered_json canary_json(const CanaryResult& c) {
  return {{"device", c.device},   {"image", c.image},
          {"ok", c.ok},           {"stage", c.stage},
          {"detail", c.detail},   {"at", c.at},
          {"seconds", c.seconds}, {"last_success", c.last_success ? nlohmann::ordered_json(*c.last_success) : nullptr}};
}

std::string canary_record_path(const std::string& repo) {
  return std::string(state::kCanaryDir) + "/" + repo + ".json";
}

Result<std::vector<CanaryResult>> read_canary_results(const RootFs& fs, const std::string& repo) {
  const auto path = canary_record_path(repo);
  RGPU_TRY_ASSIGN(auto text, fs.read_optional(path));
  std::vector<CanaryResult> out;
  if (!text) return out;
  const auto doc = nlohmann::json::parse(*text, nullptr, false);
  if (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array())
    return fail(fs.host_path(path).string() +
                " does not parse as a canary record; move it aside (the next canary "
                "writes it anew)");
  for (const auto& j : doc["results"]) {
    if (!j.is_object()) continue;
    CanaryResult c;
    c.repo = repo;
    c.device = j.value("device", "");
    c.image = j.value("image", "");
    c.ok = j.value("ok", false);
    c.stage = j.value("stage", "");
    c.detail = j.value("detail", "");
    c.at = j.value("at", "");
    c.seconds = j.value("seconds", 0.0);
    if (j.contains("last_success") && j["last_success"].is_string()) c.last_success = j["last_success"];
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<std::string> canary_repos(const RootFs& fs) {
  std::vector<std::string> out;
  const auto names = fs.list_dir(state::kCanaryDir);
  for (const auto& name : names ? *names : std::vector<std::string>{}) {
    if (name.size() > 5 && name.ends_with(".json")) out.push_back(name.substr(0, name.size() - 5));
  }
  return out;
}

std::vector<RepoRecord> read_canary_records(const RootFs& fs) {
  std::vector<RepoRecord> out;
  for (auto& repo : canary_repos(fs)) {
    auto results = read_canary_results(fs, repo);
    out.push_back({std::move(repo), std::move(results)});
  }
  return out;
}

Result<std::vector<CanaryResult>> record_canary(FileSink& sink, const RootFs& fs, const std::string& repo,
                                                std::vector<CanaryResult> results) {
  RGPU_TRY_ASSIGN(auto all, read_canary_results(fs, repo));
  for (auto& r : results) {
    auto same = std::find_if(all.begin(), all.end(), [&](const CanaryResult& k) { return k.device == r.device; });
    if (same == all.end()) {
      all.push_back(std::move(r));
      continue;
    }
    if (!r.last_success) r.last_success = same->last_success;
    *same = std::move(r);
  }
  std::sort(all.begin(), all.end(), [](const CanaryResult& a, const CanaryResult& b) { return a.device < b.device; });
  nlohmann::ordered_json doc = {{"schema", 1}, {"repository", repo}, {"results", nlohmann::ordered_json::array()}};
  for (const auto& c : all) doc["results"].push_back(canary_json(c));
  RGPU_TRY(sink.write(canary_record_path(repo), doc.dump(2) + "\n"));
  return all;
}

}  // namespace rgpu::canary
