#pragma once
// The request dockerd sends an authorization plugin (AuthZPlugin.AuthZReq), and its answer.

#include <optional>
#include <string>
#include <string_view>

#include "admission/base64.h"
#include "core/result.h"

namespace rgpu::admission {

struct AuthzRequest {
  std::string method;        ///< RequestMethod
  std::string uri;           ///< RequestUri: raw, as the client sent it
  std::string content_type;  ///< RequestHeaders' Content-Type (the name in any case)
  std::string body;          ///< RequestBody, base64-decoded
  /// RequestHeaders' Content-Length as the client sent it; absent when it sent none, or sent the
  /// body chunked (which dockerd does not tell a plugin). "0" is the only proof of no body.
  std::optional<std::string> content_length = std::nullopt;
};

struct Decision {
  bool allow = false;
  std::string msg;  ///< why, for a refusal: what was refused and the CDI form to use instead
  /// For the operator's log only, never the tenant: the path and parser error behind a refusal.
  std::string detail = {};
};

/// Reads the plugin request's JSON (fields spelled exactly as dockerd's Go tags: RequestUri).
Result<AuthzRequest> parse_authz_request(std::string_view json);

/// The same, always through a JSON tree: the judge of the scan parse_authz_request tries first.
Result<AuthzRequest> parse_authz_request_tree(std::string_view json);

/// {"Allow":true} or {"Allow":false,"Msg":"..."}.
std::string authz_response(const Decision& decision);

/// The same, appended to `out` (admit --jsonl writes answers straight into its output buffer).
void append_authz_response(const Decision& decision, std::string& out);

}  // namespace rgpu::admission
