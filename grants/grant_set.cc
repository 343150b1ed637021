#include "grants/grant_set.h"

#include <algorithm>
#include <cctype>

#include "core/structured_text.h"
#include "docker/repo_plugin.h"

namespace rgpu::grants {
namespace {

using nlohmann::json;

// Its length is bounded by its plugin's socket path (docker::plugin_socket_too_long), not here.
bool valid_repo_name(std::string_view name) {
  if (name.empty() || !std::isalnum(static_cast<unsigned char>(name[0]))) return false;
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
    if (g.hardware) list.back()["hardware"] = *g.hardware;
  }
  nlohmann::ordered_json doc = {{"schema", kGrantsSchema}, {"grants", list}};
  return doc.dump(2) + "\n";
}

namespace {

// Each field checked by hand, so the message names the grant and field at fault, never the
// parser's exception text.
Result<Grant> grant_of(const json& g, size_t i) {
  const std::string at = "grants[" + std::to_string(i) + "]";
  if (!g.is_object()) return fail(at + " is not an object");
  const auto text = [&](const char* key) -> Result<std::string> {
    auto it = g.find(key);
    if (it == g.end() || !it->is_string()) return fail(at + "." + key + " is missing or not a string");
    return it->get<std::string>();
  };
  const auto strings = [&](const char* key) -> Result<std::optional<std::vector<std::string>>> {
    auto it = g.find(key);
    if (it == g.end()) return std::optional<std::vector<std::string>>{};
    if (!it->is_array() || !std::all_of(it->begin(), it->end(), [](const json& v) { return v.is_string(); }))
      return fail(at + "." + key + " is not a list of strings");
    return std::optional<std::vector<std::string>>(it->get<std::vector<std::string>>());
  };
  RGPU_TRY_ASSIGN(auto repo, text("repo"));
  RGPU_TRY_ASSIGN(auto device, text("device"));
  RGPU_TRY_ASSIGN(auto granted_at, text("granted_at"));
  auto exclusive = g.find("exclusive");
  if (exclusive == g.end() || !exclusive->is_boolean()) return fail(at + ".exclusive is missing or not true/false");
  RGPU_TRY_ASSIGN(auto reached, strings("reached"));
  RGPU_TRY_ASSIGN(auto reviewed, strings("reviewed"));
  RGPU_TRY_ASSIGN(auto hardware, strings("hardware"));
  return Grant{repo, device, exclusive->get<bool>(), granted_at, reached, reviewed, hardware};
}

}  // namespace

Result<GrantSet> parse_grants(std::string_view text, std::string_view where) {
  const std::string advice = "; fix or move it away: rediacc-gpu never overwrites a grants file it cannot read.";
  auto doc = parse_json(text, where);
  if (!doc) {
    std::string why = doc.error().message;  // "WHERE is not valid JSON at line L, column C; fix or remove it."
    if (auto cut = why.find("; fix or remove it."); cut != std::string::npos) why.resize(cut);
    return fail(why + advice);
  }
  const auto schema = doc->is_object() ? doc->find("schema") : doc->end();
  if (!doc->is_object() || schema == doc->end() || !schema->is_number_integer() || !doc->contains("grants") ||
      !(*doc)["grants"].is_array())
    return fail(std::string(where) + " is not a grants file (an object with \"schema\" and a \"grants\" list)" +
                advice);
  if (schema->get<long long>() > kGrantsSchema) {
    return fail(std::string(where) + " was written by a newer rediacc-gpu (schema " +
                std::to_string(schema->get<long long>()) + "; this one reads up to " + std::to_string(kGrantsSchema) +
                "): upgrade rediacc-gpu; it is never overwritten by an older one.");
  }
  GrantSet set;
  const auto& list = (*doc)["grants"];
  for (size_t i = 0; i < list.size(); ++i) {
    auto grant = grant_of(list[i], i);
    if (!grant) return fail(std::string(where) + ": " + grant.error().message + advice);
    set.grants.push_back(std::move(*grant));
  }
  return set;
}

Result<std::string> parse_repo(std::string_view written, const std::string& hostname) {
  const auto at = written.find('@');
  const std::string name(written.substr(0, at));
  if (!valid_repo_name(name)) {
    return fail("repository \"" + std::string(written) +
                "\" is not a valid name: use letters, digits, '.', '_' and '-', starting with a letter or digit.");
  }
  if (auto too_long = docker::plugin_socket_too_long(name)) return fail(*too_long);
  if (at != std::string_view::npos) {
    const std::string machine(written.substr(at + 1));
    if (machine != hostname) {
      return fail("repository \"" + std::string(written) + "\" names machine \"" + machine + "\", but this is \"" +
                  hostname + "\"; run the command on that machine.");
    }
  }
  return name;
}

}  // namespace rgpu::grants
