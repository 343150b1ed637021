#include "admission/authz_request.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

namespace rgpu::admission {

Result<std::string> base64_decode(std::string_view text) {
  static const std::string kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  if (text.size() % 4 != 0) return fail("RequestBody is not base64");
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    unsigned v = 0;
    int pad = 0;
    for (size_t j = 0; j < 4; ++j) {
      const char c = text[i + j];
      if (c == '=' && i + 4 == text.size() && j >= 2) {
        ++pad;
        v <<= 6;
        continue;
      }
      const auto pos = kAlphabet.find(c);
      if (pos == std::string::npos || pad > 0) return fail("RequestBody is not base64");
      v = (v << 6) | static_cast<unsigned>(pos);
    }
    out += static_cast<char>((v >> 16) & 0xff);
    if (pad < 2) out += static_cast<char>((v >> 8) & 0xff);
    if (pad < 1) out += static_cast<char>(v & 0xff);
  }
  return out;
}

Result<AuthzRequest> parse_authz_request(std::string_view json) {
  try {
    const auto j = nlohmann::json::parse(json);
    AuthzRequest r;
    r.method = j.value("RequestMethod", "");
    r.uri = j.value("RequestUri", "");
    if (auto h = j.find("RequestHeaders"); h != j.end() && h->is_object()) {
      for (const auto& [k, v] : h->items()) {
        if (v.is_string()) r.headers[k] = v.get<std::string>();
      }
    }
    if (auto b = j.find("RequestBody"); b != j.end() && b->is_string()) {
      auto body = base64_decode(b->get<std::string>());
      if (!body) return tl::unexpected(body.error());
      r.body = std::move(*body);
    }
    if (r.method.empty() || r.uri.empty()) return fail("the plugin request has no RequestMethod or RequestUri");
    return r;
  } catch (const nlohmann::json::exception& e) {
    return fail(std::string("the plugin request is not valid JSON (") + e.what() + ")");
  }
}

std::string authz_response(const Decision& d) {
  nlohmann::ordered_json j = {{"Allow", d.allow}};
  if (!d.allow) j["Msg"] = d.msg;
  return j.dump();
}

std::string header(const AuthzRequest& request, std::string_view name) {
  for (const auto& [k, v] : request.headers) {
    if (k.size() == name.size() && std::equal(k.begin(), k.end(), name.begin(),
                                              [](char a, char b) { return std::tolower(a) == std::tolower(b); })) {
      return v;
    }
  }
  return "";
}

}  // namespace rgpu::admission
