#pragma once
// AuthZReq envelopes as dockerd sends them to a plugin, for tests that feed admit or the plugin.

#include <string>

namespace rgpu::test {

/// Standard base64 with padding.
std::string base64(const std::string& bytes);

/// One AuthZReq line: POST `uri` with a JSON `body` (base64 in RequestBody).
std::string authz_post(const std::string& uri, const std::string& body);

}  // namespace rgpu::test
