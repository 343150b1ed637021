#include "admission/authz_request.h"

#include <simdjson.h>
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace rgpu::admission {

namespace {

// The envelope is parsed with simdjson's DOM, one parser per thread reused (its buffers stay
// allocated): the base64 body is the bulk of the envelope, read straight out of the parser.
simdjson::dom::parser& envelope_parser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

std::string string_member(simdjson::dom::object envelope, std::string_view key) {
  std::string_view value;
  if (envelope[key].get(value) != simdjson::SUCCESS) return "";
  return std::string(value);
}

}  // namespace

Result<AuthzRequest> parse_authz_request(std::string_view json) {
  simdjson::dom::object envelope;
  if (envelope_parser().parse(json.data(), json.size(), true).get(envelope) != simdjson::SUCCESS)
    return fail("the plugin request is not valid JSON");
  AuthzRequest r;
  r.method = string_member(envelope, "RequestMethod");
  r.uri = string_member(envelope, "RequestUri");
  simdjson::dom::object headers;
  if (envelope["RequestHeaders"].get(headers) == simdjson::SUCCESS) {
    for (auto [key, value] : headers) {
      std::string_view text;
      if (value.get(text) == simdjson::SUCCESS) r.headers[std::string(key)] = std::string(text);
    }
  }
  std::string_view body64;
  if (envelope["RequestBody"].get(body64) == simdjson::SUCCESS) {
    auto body = base64_decode(body64);
    if (!body) return tl::unexpected(body.error());
    r.body = std::move(*body);
  }
  if (r.method.empty() || r.uri.empty()) return fail("the plugin request has no RequestMethod or RequestUri");
  return r;
}

std::string authz_response(const Decision& d) {
  if (d.allow) return R"({"Allow":true})";
  // Most refusals are printable ASCII without quotes or backslashes: written as they are.
  const bool plain = std::all_of(d.msg.begin(), d.msg.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u < 0x7F && c != '"' && c != '\\';
  });
  if (plain) return R"({"Allow":false,"Msg":")" + d.msg + R"("})";
  nlohmann::ordered_json j = {{"Allow", d.allow}};
  if (!d.allow) j["Msg"] = d.msg;
  // A message can quote bytes of the request that are not UTF-8 (a percent-decoded path):
  // they become U+FFFD rather than an exception that would leave the request unanswered.
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
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
