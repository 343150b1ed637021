#include "core/host_policy.h"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

#include "core/state_paths.h"

namespace rgpu {
namespace {

bool under(std::string_view path, std::string_view dir) {
  return path.substr(0, dir.size()) == dir && (path.size() == dir.size() || path[dir.size()] == '/');
}

// The host's own programs, libraries, configuration and kernel: no root lies under one. Every
// other directory of the FHS holds some of them, or the state of the host's services, below it:
// no root may be one of those or hold one.
constexpr std::array<std::string_view, 13> kSystem = {"/bin",    "/boot", "/dev",  "/etc",  "/lib", "/lib32", "/lib64",
                                                      "/libx32", "/proc", "/root", "/sbin", "/sys", "/usr"};
constexpr std::array<std::string_view, 9> kSystemParents = {
    "/", "/opt", "/run", "/var", "/var/lib", "/var/run", "/var/log", "/var/spool", "/var/cache"};

// The first component of `path` that names a placeholder but is not one of ours as a whole.
bool placeholders_whole(std::string_view path) {
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const auto part = path.substr(start, end - start);
    const bool brace = part.find_first_of("{}") != std::string_view::npos;
    if (brace && part != "{repo}" && part != "{id}" && part != "{mount}") return false;
    if (part == "{mount}" && start != 1) return false;  // the mount is a whole path
    start = end + 1;
  }
  return true;
}

bool clean_absolute(std::string_view p) {
  if (p.empty() || p.front() != '/') return false;
  if (p.size() > 1 && p.back() == '/') return false;
  return p.find("//") == std::string_view::npos && p.find("/./") == std::string_view::npos &&
         p.find("/../") == std::string_view::npos && !p.ends_with("/.") && !p.ends_with("/..");
}

std::shared_ptr<const BindRoots> make_roots(BindRoots roots) {
  return std::make_shared<const BindRoots>(std::move(roots));
}

}  // namespace

const std::shared_ptr<const BindRoots>& default_bind_roots(HostPolicy policy) {
  static const auto strict = make_roots({{.path = "/srv/rediacc-gpu/{repo}"}});
  // What renet binds for a service (the project under the repository's mount, the repository's
  // secrets, the proxy's certificates read-only).
  static const auto rediacc = make_roots({{.path = "{mount}"},
                                          {.path = "/run/rediacc/secrets/{id}"},
                                          {.path = "/opt/rediacc/proxy/letsencrypt", .read_only = true}});
  return policy == HostPolicy::rediacc ? rediacc : strict;
}

Result<BindRoot> parse_bind_root(std::string_view written) {
  BindRoot root{.path = std::string(written)};
  if (written.ends_with(":ro")) {
    root.path.resize(root.path.size() - 3);
    root.read_only = true;
  }
  const auto bad = [&](const std::string& why) {
    return fail("bind root \"" + std::string(written) + "\" " + why +
                "; name a directory of your tenants' data, as /srv/rediacc-gpu/{repo} or /srv/data:ro.");
  };
  if (root.path == "{mount}") return root;
  if (!clean_absolute(root.path)) return bad("is not an absolute, clean path");
  if (!placeholders_whole(root.path))
    return bad("uses a placeholder other than a whole {repo} or {id}, or a leading {mount}");
  for (const auto dir : kSystem) {
    if (under(root.path, dir) || under(dir, root.path))
      return bad("is or holds a system directory (" + std::string(dir) + ")");
  }
  for (const auto dir : kSystemParents) {
    if (root.path == dir) return bad("is a system directory");
  }
  return root;
}

std::string bind_root_text(const BindRoot& root) { return root.path + (root.read_only ? ":ro" : ""); }

PolicyRules rules_of(HostPolicy policy) {
  if (policy == HostPolicy::strict) return {};
  return {.host_network = true,
          .host_user_namespace = true,
          .checkpoint_capabilities = true,
          .apparmor_unconfined = true,
          .tun_device = true,
          .checkpoints = true,
          .bind_roots = default_bind_roots(HostPolicy::rediacc)};
}

PolicyRules rules_of(const RecordedPolicy& recorded) {
  auto rules = rules_of(recorded.policy);
  if (recorded.bind_roots) rules.bind_roots = make_roots(*recorded.bind_roots);
  return rules;
}

std::string_view to_string(HostPolicy policy) { return policy == HostPolicy::rediacc ? "rediacc" : "strict"; }

std::optional<HostPolicy> parse_host_policy(std::string_view word) {
  if (word == "strict") return HostPolicy::strict;
  if (word == "rediacc") return HostPolicy::rediacc;
  return std::nullopt;
}

std::string host_policy_text(const RecordedPolicy& recorded) {
  nlohmann::json doc = {{"policy", to_string(recorded.policy)}, {"reason", recorded.reason}};
  if (recorded.bind_roots) {
    doc["bind_roots"] = nlohmann::json::array();
    for (const auto& r : *recorded.bind_roots) doc["bind_roots"].push_back(bind_root_text(r));
    doc["bind_roots_named"] = recorded.bind_roots_named;
  }
  return doc.dump(2) + "\n";
}

Result<std::optional<RecordedPolicy>> read_host_policy(const RootFs& fs) {
  RGPU_TRY_ASSIGN(const auto text, fs.read_optional(state::kHostPolicyPath));
  if (!text) return std::optional<RecordedPolicy>{};
  const auto doc = nlohmann::json::parse(*text, nullptr, false);
  const auto bad = [&](const std::string& what) {
    return fail(fs.host_path(state::kHostPolicyPath).string() + " is not a host policy setup wrote (" + what +
                "); remove it, then run rediacc-gpu setup (--host-policy=auto|rediacc|strict) to record one");
  };
  if (!doc.is_object() || !doc.contains("policy") || !doc["policy"].is_string()) return bad("no policy");
  const auto policy = parse_host_policy(doc["policy"].get<std::string>());
  if (!policy) return bad("an unknown policy");
  RecordedPolicy out{.policy = *policy, .reason = ""};
  if (doc.contains("reason") && doc["reason"].is_string()) out.reason = doc["reason"].get<std::string>();
  if (doc.contains("bind_roots")) {
    if (!doc["bind_roots"].is_array()) return bad("bind_roots is not a list");
    out.bind_roots.emplace();
    for (const auto& r : doc["bind_roots"]) {
      if (!r.is_string()) return bad("a bind root that is not a string");
      auto root = parse_bind_root(r.get<std::string>());
      if (!root) return bad(root.error().message);
      out.bind_roots->push_back(std::move(*root));
    }
    out.bind_roots_named = doc.contains("bind_roots_named") && doc["bind_roots_named"] == true;
  }
  return std::optional<RecordedPolicy>{out};
}

PolicyRules effective_rules(const RootFs& fs) { return effective_rules(read_host_policy(fs)); }

PolicyRules effective_rules(const Result<std::optional<RecordedPolicy>>& recorded) {
  if (!recorded || !*recorded) return {};
  return rules_of(**recorded);
}

}  // namespace rgpu
