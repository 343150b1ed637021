#include "admission/authz_request.h"

#include <simdjson.h>
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace rgpu::admission {

namespace {

// One table per position in a quad, each digit already shifted into place, so a quad decodes with
// four loads and three ORs; an invalid character sets bit 24, which no digit reaches.
constexpr uint32_t kNotBase64 = 1u << 24;

constexpr std::array<uint32_t, 256> base64_table(unsigned shift) {
  std::array<uint32_t, 256> t{};
  for (auto& v : t) v = kNotBase64;
  const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (uint32_t i = 0; i < 64; ++i) t[static_cast<unsigned char>(alphabet[i])] = i << shift;
  return t;
}

constexpr std::array<std::array<uint32_t, 256>, 4> kBase64 = {base64_table(18), base64_table(12), base64_table(6),
                                                              base64_table(0)};

uint32_t decode_quad(const unsigned char* q) {
  return kBase64[0][q[0]] | kBase64[1][q[1]] | kBase64[2][q[2]] | kBase64[3][q[3]];
}

}  // namespace

Result<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return fail("RequestBody is not base64");
  if (text.empty()) return std::string();
  const size_t pad = text.back() != '=' ? 0 : text[text.size() - 2] == '=' ? 2 : 1;
  std::string out(text.size() / 4 * 3 - pad, '\0');
  const auto* in = reinterpret_cast<const unsigned char*>(text.data());
  const size_t full = pad ? text.size() - 4 : text.size();
  uint32_t bad = 0;
  size_t o = 0;
  for (size_t i = 0; i < full; i += 4, o += 3) {
    const uint32_t v = decode_quad(in + i);
    bad |= v;
    out[o] = static_cast<char>(v >> 16);
    out[o + 1] = static_cast<char>(v >> 8);
    out[o + 2] = static_cast<char>(v);
  }
  if (pad) {
    // The last quad: '=' stands for zero bits, and only in the padded positions.
    const unsigned char zero = 'A';
    const unsigned char last[4] = {in[full], in[full + 1], pad == 2 ? zero : in[full + 2], zero};
    const uint32_t v = decode_quad(last);
    bad |= v;
    out[o] = static_cast<char>(v >> 16);
    if (pad == 1) out[o + 1] = static_cast<char>(v >> 8);
  }
  if (bad & kNotBase64) return fail("RequestBody is not base64");
  return out;
}

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
