#include "admission/authz_request.h"

#include <simdjson.h>

#include <nlohmann/json.hpp>

#include "admission/envelope_scan.h"
#include "core/ascii_case.h"

namespace rgpu::admission {

namespace {

// The envelope is parsed with simdjson's DOM, one parser per thread reused (its buffers stay
// allocated): the base64 body is the bulk of the envelope, read straight out of the parser.
simdjson::dom::parser& envelope_parser() {
  thread_local simdjson::dom::parser parser;
  return parser;
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

Result<AuthzRequest> request_of(std::string_view method, std::string_view uri, std::string_view content_type,
                                std::string body, std::optional<std::string_view> content_length) {
  if (method.empty() || uri.empty()) return fail("the plugin request has no RequestMethod or RequestUri");
  AuthzRequest out{std::string(method), std::string(uri), std::string(content_type), std::move(body)};
  if (content_length) out.content_length = std::string(*content_length);
  return out;
}

}  // namespace

Result<AuthzRequest> parse_authz_request_tree(std::string_view json) {
  simdjson::dom::object envelope;
  if (envelope_parser().parse(json.data(), json.size(), true).get(envelope) != simdjson::SUCCESS)
    return fail("the plugin request is not valid JSON");
  std::string_view method;
  std::string_view uri;
  std::string_view body64;
  std::string_view content_type;
  std::optional<std::string_view> content_length;
  for (auto [key, value] : envelope) {
    std::string_view text;
    if (key == "RequestMethod") {
      if (value.get(text) == simdjson::SUCCESS) method = text;
    } else if (key == "RequestUri") {
      if (value.get(text) == simdjson::SUCCESS) uri = text;
    } else if (key == "RequestBody") {
      if (value.get(text) == simdjson::SUCCESS) body64 = text;
    } else if (key == "RequestHeaders") {
      simdjson::dom::object headers;
      if (value.get(headers) != simdjson::SUCCESS) continue;
      for (auto [name, header] : headers) {
        if (ascii_iequal(name, "Content-Type") && header.get(text) == simdjson::SUCCESS) content_type = text;
        if (ascii_iequal(name, "Content-Length") && header.get(text) == simdjson::SUCCESS) content_length = text;
      }
    }
  }
  RGPU_TRY_ASSIGN(auto body, base64_decode(body64));  // "" for no body
  return request_of(method, uri, content_type, std::move(body), content_length);
}

Result<AuthzRequest> parse_authz_request(std::string_view json) {
  // A call the plugin cannot read is refused like any unreadable one, never the end of the process.
  try {
    // dockerd's envelopes are read without a tree; the tree reads whatever else comes, and the body
    // when the scan's text is not base64 (then it may not have been all of the string).
    const auto f = scan_envelope(json);
    if (!f) return parse_authz_request_tree(json);
    auto body = base64_decode(f->body64);
    if (!body) return parse_authz_request_tree(json);
    return request_of(f->method, f->uri, f->content_type, std::move(*body), f->content_length);
  } catch (const std::exception& e) {
    return fail(std::string("the plugin request could not be read (") + e.what() + ")");
  }
}

void append_authz_response(const Decision& d, std::string& out) {
  if (d.allow) {
    out += R"({"Allow":true})";
    return;
  }
  // Refusals are ASCII, most quoting what they refuse: escaped here without a JSON tree.
  const size_t start = out.size();
  out += R"({"Allow":false,"Msg":")";
  if (escape_ascii(d.msg, out)) {
    out += "\"}";
    return;
  }
  out.resize(start);
  nlohmann::ordered_json j = {{"Allow", false}, {"Msg", d.msg}};
  // A message can quote bytes of the request that are not UTF-8 (a percent-decoded path):
  // they become U+FFFD rather than an exception that would leave the request unanswered.
  out += j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string authz_response(const Decision& d) {
  std::string out;
  append_authz_response(d, out);
  return out;
}

}  // namespace rgpu::admission
