#include "admission/grants.h"

#include <algorithm>
#include <cctype>

#include "core/structured_text.h"

namespace rgpu::admission {
namespace {

using nlohmann::json;

bool valid_repo_name(std::string_view name) {
  if (name.empty() || name.size() > 128 || !std::isalnum(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

}  // namespace

const Grant* GrantSet::find(const std::string& repo, const std::string& device) const {
  for (const auto& g : grants) {
    if (g.repo == repo && g.device == device) return &g;
  }
  return nullptr;
}

std::vector<const Grant*> GrantSet::holders(const std::string& device) const {
  std::vector<const Grant*> out;
  for (const auto& g : grants) {
    if (g.device == device) out.push_back(&g);
  }
  return out;
}

std::string grants_text(const GrantSet& set) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& g : set.grants) {
    list.push_back({{"repo", g.repo}, {"device", g.device}, {"exclusive", g.exclusive}, {"granted_at", g.granted_at}});
    if (g.reached) list.back()["reached"] = *g.reached;
    if (g.reviewed && !g.reviewed->empty()) list.back()["reviewed"] = *g.reviewed;
  }
  nlohmann::ordered_json doc = {{"schema", kGrantsSchema}, {"grants", list}};
  return doc.dump(2) + "\n";
}

Result<GrantSet> parse_grants(std::string_view text, std::string_view where) {
  const std::string advice = "; fix or move it away: rediacc-gpu never overwrites a grants file it cannot read.";
  auto doc = parse_json(text, where);
  if (!doc) return fail(std::string(where) + " is not valid JSON" + advice);
  try {
    if (doc->at("schema").get<int>() > kGrantsSchema) {
      return fail(std::string(where) + " was written by a newer rediacc-gpu" + advice);
    }
    GrantSet set;
    for (const auto& g : doc->at("grants")) {
      Grant grant{g.at("repo").get<std::string>(), g.at("device").get<std::string>(), g.at("exclusive").get<bool>(),
                  g.at("granted_at").get<std::string>(), std::nullopt};
      if (auto it = g.find("reached"); it != g.end()) grant.reached = it->get<std::vector<std::string>>();
      if (auto it = g.find("reviewed"); it != g.end()) grant.reviewed = it->get<std::vector<std::string>>();
      set.grants.push_back(std::move(grant));
    }
    return set;
  } catch (const json::exception& e) {
    return fail(std::string(where) + " is not a grants file (" + e.what() + ")" + advice);
  }
}

Result<std::string> parse_repo(std::string_view written, const std::string& hostname) {
  const auto at = written.find('@');
  const std::string name(written.substr(0, at));
  if (!valid_repo_name(name)) {
    return fail("repository \"" + std::string(written) +
                "\" is not a valid name: use letters, digits, '.', '_' and '-', starting with a letter or digit.");
  }
  if (at != std::string_view::npos) {
    const std::string machine(written.substr(at + 1));
    if (machine != hostname) {
      return fail("repository \"" + std::string(written) + "\" names machine \"" + machine + "\", but this is \"" +
                  hostname + "\"; run the command on that machine.");
    }
  }
  return name;
}

}  // namespace rgpu::admission
