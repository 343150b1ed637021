#pragma once
// Docker's authorization-plugin protocol, without the transport: which answer each plugin call
// gets. dockerd calls POST /Plugin.Activate once, then AuthZPlugin.AuthZReq before every API
// request and AuthZPlugin.AuthZRes after it.

#include <functional>
#include <string>
#include <string_view>

#include "admission/decide.h"

namespace rgpu::plugin {

inline constexpr const char* kPluginMediaType = "application/vnd.docker.plugins.v1.2+json";

struct PluginSettings {
  std::string repo;  ///< the repository whose daemon asks
  admission::DecideOptions options;
  /// The machine's policy now (LiveGate::policy, which follows setup's record); absent: options.policy.
  std::function<PolicyRules()> policy = {};
};

/// Receives one line per refusal (repository, route, reason), meant for the journal.
using RefusalLog = std::function<void(const std::string& line)>;

struct PluginReply {
  int status = 200;
  std::string body;  ///< JSON
};

/// The answer to a plugin call at `path` with `body`. A request the plugin cannot read is
/// refused with Err (dockerd then denies the API request); an unknown call gets 404.
PluginReply plugin_reply(std::string_view path, std::string_view body, const grants::GrantsSource& grants,
                         const PluginSettings& settings, const RefusalLog& log);

/// The answer to an AuthZReq already read (plugin_reply reads it, then calls this): the server
/// reads each call once, and answers one that asks the daemon for a stored container
/// (asks_the_daemon) off its event loop.
PluginReply authz_reply(const Result<admission::AuthzRequest>& request, const grants::GrantsSource& grants,
                        const PluginSettings& settings, const RefusalLog& log);

/// The one line logged for a refusal: control characters of the request are escaped.
std::string refusal_line(const std::string& repo, const admission::AuthzRequest& request, const std::string& reason);

}  // namespace rgpu::plugin
