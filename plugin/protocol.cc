#include "plugin/protocol.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace rgpu::plugin {
namespace {

std::string json_text(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

PluginReply error_reply(int status, const std::string& err) {
  return {status, json_text({{"Allow", false}, {"Err", err}})};
}

// Escapes what would break a journal line: control characters and the quote around the value.
std::string printable(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += hex;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string refusal_line(const std::string& repo, const admission::AuthzRequest& request, const std::string& reason) {
  return "refused repo=" + printable(repo) + " route=\"" + printable(request.method) + " " + printable(request.uri) +
         "\" reason=\"" + printable(reason) + "\"";
}

PluginReply authz_reply(const Result<admission::AuthzRequest>& request, const grants::GrantsSource& grants,
                        const PluginSettings& settings, const RefusalLog& log) {
  if (!request) {
    if (log) log("refused repo=" + printable(settings.repo) + " reason=\"" + printable(request.error().message) + "\"");
    return error_reply(200, request.error().message);
  }
  admission::DecideOptions options = settings.options;
  if (settings.policy) options.policy = settings.policy();
  const admission::Decision decision = admission::decide_or_refuse(grants, settings.repo, *request, options);
  if (!decision.allow && log)
    log(refusal_line(settings.repo, *request, decision.msg) +
        (decision.detail.empty() ? "" : " detail=\"" + printable(decision.detail) + "\""));
  return {200, admission::authz_response(decision)};
}

PluginReply plugin_reply(std::string_view path, std::string_view body, const grants::GrantsSource& grants,
                         const PluginSettings& settings, const RefusalLog& log) {
  if (path == "/Plugin.Activate") return {200, R"({"Implements":["authz"]})"};
  if (path == "/AuthZPlugin.AuthZRes") return {200, R"({"Allow":true})"};
  if (path != "/AuthZPlugin.AuthZReq") return error_reply(404, "unknown plugin call " + std::string(path));
  return authz_reply(admission::parse_authz_request(body), grants, settings, log);
}

}  // namespace rgpu::plugin
