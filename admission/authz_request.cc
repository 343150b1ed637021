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

namespace {

// Reads the envelope's four fields straight from nlohmann's SAX events: no tree is built for the
// envelope (the base64 body is its bulk), which roughly halves the cost of a decision.
class EnvelopeReader final : public nlohmann::json_sax<nlohmann::json> {
 public:
  AuthzRequest request;
  std::string body64;
  bool has_body = false;

  bool null() override { return done_value(); }
  bool boolean(bool) override { return done_value(); }
  bool number_integer(number_integer_t) override { return done_value(); }
  bool number_unsigned(number_unsigned_t) override { return done_value(); }
  bool number_float(number_float_t, const string_t&) override { return done_value(); }
  bool binary(binary_t&) override { return false; }
  bool string(string_t& s) override {
    if (depth_ == 1) {
      if (key_ == "RequestMethod") request.method = std::move(s);
      if (key_ == "RequestUri") request.uri = std::move(s);
      if (key_ == "RequestBody") {
        body64 = std::move(s);
        has_body = true;
      }
    } else if (depth_ == 2 && in_headers_) {
      request.headers[key_] = std::move(s);
    }
    return true;
  }
  bool start_object(std::size_t) override {
    in_headers_ = depth_ == 1 && key_ == "RequestHeaders";
    ++depth_;
    return true;
  }
  bool end_object() override {
    --depth_;
    if (depth_ <= 1) in_headers_ = false;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth_;
    return true;
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool key(string_t& k) override {
    key_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  bool done_value() { return true; }
  int depth_ = 0;
  bool in_headers_ = false;
  std::string key_;
};

}  // namespace

Result<AuthzRequest> parse_authz_request(std::string_view json) {
  EnvelopeReader reader;
  if (!nlohmann::json::sax_parse(json.begin(), json.end(), &reader))
    return fail("the plugin request is not valid JSON");
  AuthzRequest r = std::move(reader.request);
  if (reader.has_body) {
    auto body = base64_decode(reader.body64);
    if (!body) return tl::unexpected(body.error());
    r.body = std::move(*body);
  }
  if (r.method.empty() || r.uri.empty()) return fail("the plugin request has no RequestMethod or RequestUri");
  return r;
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
