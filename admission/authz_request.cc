#include "admission/authz_request.h"

#include <simdjson.h>

#include <nlohmann/json.hpp>

namespace rgpu::admission {

namespace {

// The envelope is parsed with simdjson's DOM, one parser per thread reused (its buffers stay
// allocated): the base64 body is the bulk of the envelope, read straight out of the parser.
simdjson::dom::parser& envelope_parser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

bool ascii_iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    const char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
    if (x != y) return false;
  }
  return true;
}

// JSON's escapes for an ASCII message, as nlohmann writes them (a test holds the two equal);
// false for a message with a byte above 0x7F, which may not be UTF-8.
bool escape_ascii(std::string_view text, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  size_t plain = 0;  // start of the run of bytes written as they are, appended in one go
  for (size_t i = 0; i < text.size(); ++i) {
    const auto u = static_cast<unsigned char>(text[i]);
    if (u >= 0x80) return false;
    if (u >= 0x20 && u != '"' && u != '\\') continue;
    out.append(text, plain, i - plain);
    plain = i + 1;
    switch (u) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        out += "\\u00";
        out += kHex[u >> 4];
        out += kHex[u & 0xF];
    }
  }
  out.append(text, plain);
  return true;
}

}  // namespace

Result<AuthzRequest> parse_authz_request(std::string_view json) {
  simdjson::dom::object envelope;
  if (envelope_parser().parse(json.data(), json.size(), true).get(envelope) != simdjson::SUCCESS)
    return fail("the plugin request is not valid JSON");
  AuthzRequest r;
  std::string_view body64;
  for (auto [key, value] : envelope) {
    std::string_view text;
    if (key == "RequestMethod") {
      if (value.get(text) == simdjson::SUCCESS) r.method = text;
    } else if (key == "RequestUri") {
      if (value.get(text) == simdjson::SUCCESS) r.uri = text;
    } else if (key == "RequestBody") {
      if (value.get(text) == simdjson::SUCCESS) body64 = text;
    } else if (key == "RequestHeaders") {
      simdjson::dom::object headers;
      if (value.get(headers) != simdjson::SUCCESS) continue;
      for (auto [name, header] : headers) {
        if (ascii_iequal(name, "Content-Type") && header.get(text) == simdjson::SUCCESS) r.content_type = text;
      }
    }
  }
  if (!body64.empty()) {
    auto body = base64_decode(body64);
    if (!body) return tl::unexpected(body.error());
    r.body = std::move(*body);
  }
  if (r.method.empty() || r.uri.empty()) return fail("the plugin request has no RequestMethod or RequestUri");
  return r;
}

std::string authz_response(const Decision& d) {
  if (d.allow) return R"({"Allow":true})";
  // Refusals are ASCII, most quoting what they refuse: escaped here without a JSON tree.
  std::string out = R"({"Allow":false,"Msg":")";
  out.reserve(out.size() + d.msg.size() + 16);
  if (escape_ascii(d.msg, out)) return out += "\"}";
  nlohmann::ordered_json j = {{"Allow", false}, {"Msg", d.msg}};
  // A message can quote bytes of the request that are not UTF-8 (a percent-decoded path):
  // they become U+FFFD rather than an exception that would leave the request unanswered.
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace rgpu::admission
