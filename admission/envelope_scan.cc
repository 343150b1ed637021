#include "admission/envelope_scan.h"

#include <cstring>

#include "core/ascii_case.h"

namespace rgpu::admission {
namespace {

class Scanner {
 public:
  explicit Scanner(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  void skip_ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool at_end() const { return p_ == end_; }
  bool take(char c) {
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  char peek() const { return p_ == end_ ? '\0' : *p_; }

  // A string of printable ASCII without escapes, from its opening quote; its text.
  std::optional<std::string_view> plain_string() {
    if (!take('"')) return std::nullopt;
    const char* start = p_;
    for (; p_ < end_; ++p_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        const std::string_view text(start, static_cast<size_t>(p_ - start));
        ++p_;
        return text;
      }
      if (c == '\\' || c < 0x20 || c >= 0x80) return std::nullopt;
    }
    return std::nullopt;
  }

  // The body's string up to the next quote, unchecked: base64 has no quote, backslash, control or
  // non-ASCII byte, so a text the decoder then accepts was all of the string (and the caller falls
  // back to the tree when it does not).
  std::optional<std::string_view> raw_string() {
    if (!take('"')) return std::nullopt;
    const void* quote = std::memchr(p_, '"', static_cast<size_t>(end_ - p_));
    if (quote == nullptr) return std::nullopt;
    const char* close = static_cast<const char*>(quote);
    const std::string_view text(p_, static_cast<size_t>(close - p_));
    p_ = close + 1;
    return text;
  }

  bool literal(std::string_view word) {
    if (static_cast<size_t>(end_ - p_) < word.size() || std::memcmp(p_, word.data(), word.size()) != 0) return false;
    p_ += word.size();
    return true;
  }

  // null, true or false.
  bool scalar() {
    switch (peek()) {
      case 'n': return literal("null");
      case 't': return literal("true");
      case 'f': return literal("false");
      default: return false;
    }
  }

  // A string, null, true or false; the string's text when it is one.
  bool flat_value(std::optional<std::string_view>& text) {
    text.reset();
    if (peek() != '"') return scalar();
    text = plain_string();
    return text.has_value();
  }

  // {"name": flat value, ...}; `on_member` sees each name and string value.
  template <typename OnMember>
  bool flat_object(OnMember&& on_member) {
    if (!take('{')) return false;
    skip_ws();
    if (take('}')) return true;
    while (true) {
      const auto name = plain_string();
      if (!name) return false;
      skip_ws();
      if (!take(':')) return false;
      skip_ws();
      std::optional<std::string_view> text;
      if (!flat_value(text)) return false;
      if (text) on_member(*name, *text);
      skip_ws();
      if (take('}')) return true;
      if (!take(',')) return false;
      skip_ws();
    }
  }

 private:
  const char* p_;
  const char* end_;
};

}  // namespace

std::optional<EnvelopeFields> scan_envelope(std::string_view json) {
  Scanner s(json);
  EnvelopeFields f;
  bool body_seen = false;  // a second body string is left to the tree: only the last one is decoded
  s.skip_ws();
  if (!s.take('{')) return std::nullopt;
  s.skip_ws();
  if (!s.take('}')) {
    while (true) {
      const auto key = s.plain_string();
      if (!key) return std::nullopt;
      s.skip_ws();
      if (!s.take(':')) return std::nullopt;
      s.skip_ws();
      if (*key == "RequestBody" && s.peek() == '"') {
        const auto body = s.raw_string();
        if (!body || body_seen) return std::nullopt;
        body_seen = true;
        f.body64 = *body;
      } else if (s.peek() == '{') {
        const bool headers = *key == "RequestHeaders";
        const bool ok = s.flat_object([&](std::string_view name, std::string_view value) {
          if (headers && ascii_iequal(name, "Content-Type")) f.content_type = value;
        });
        if (!ok) return std::nullopt;
      } else {
        std::optional<std::string_view> text;
        if (!s.flat_value(text)) return std::nullopt;
        if (text && *key == "RequestMethod") f.method = *text;
        if (text && *key == "RequestUri") f.uri = *text;
      }
      s.skip_ws();
      if (s.take('}')) break;
      if (!s.take(',')) return std::nullopt;
      s.skip_ws();
    }
  }
  s.skip_ws();
  if (!s.at_end()) return std::nullopt;
  return f;
}

}  // namespace rgpu::admission
