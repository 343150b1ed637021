#include "admission/envelope_scan.h"

#include <array>
#include <cstring>

#include "core/ascii_case.h"

namespace rgpu::admission {
namespace {

// Bytes a plain string holds as they are: printable ASCII but the quote and the backslash.
constexpr std::array<bool, 256> plain_bytes() {
  std::array<bool, 256> t{};
  for (int c = 0x20; c < 0x80; ++c) t[static_cast<size_t>(c)] = c != '"' && c != '\\';
  return t;
}
constexpr std::array<bool, 256> kPlain = plain_bytes();

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

  // A string of printable ASCII without escapes, from its opening quote; its text. (Results are
  // out-parameters: an optional<string_view> returned through the stack stalled on every string.)
  bool plain_string(std::string_view& text) {
    if (!take('"')) return false;
    const char* start = p_;
    while (p_ < end_ && kPlain[static_cast<unsigned char>(*p_)]) ++p_;
    if (p_ == end_ || *p_ != '"') return false;
    text = std::string_view(start, static_cast<size_t>(p_ - start));
    ++p_;
    return true;
  }

  // The body's string up to the next quote, unchecked: base64 has no quote, backslash, control or
  // non-ASCII byte, so a text the decoder then accepts was all of the string (and the caller falls
  // back to the tree when it does not).
  bool raw_string(std::string_view& text) {
    if (!take('"')) return false;
    const void* quote = std::memchr(p_, '"', static_cast<size_t>(end_ - p_));
    if (quote == nullptr) return false;
    const char* close = static_cast<const char*>(quote);
    text = std::string_view(p_, static_cast<size_t>(close - p_));
    p_ = close + 1;
    return true;
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

  // A string, null, true or false; `is_string` and its text when it is a string.
  bool flat_value(std::string_view& text, bool& is_string) {
    is_string = peek() == '"';
    return is_string ? plain_string(text) : scalar();
  }

  // {"name": flat value, ...}; `on_member` sees each name and string value.
  template <typename OnMember>
  bool flat_object(OnMember&& on_member) {
    if (!take('{')) return false;
    skip_ws();
    if (take('}')) return true;
    while (true) {
      std::string_view name;
      if (!plain_string(name)) return false;
      skip_ws();
      if (!take(':')) return false;
      skip_ws();
      std::string_view text;
      bool is_string = false;
      if (!flat_value(text, is_string)) return false;
      if (is_string) on_member(name, text);
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
      std::string_view key;
      if (!s.plain_string(key)) return std::nullopt;
      s.skip_ws();
      if (!s.take(':')) return std::nullopt;
      s.skip_ws();
      if (key == "RequestBody" && s.peek() == '"') {
        if (body_seen || !s.raw_string(f.body64)) return std::nullopt;
        body_seen = true;
      } else if (s.peek() == '{') {
        const bool headers = key == "RequestHeaders";
        const bool ok = s.flat_object([&](std::string_view name, std::string_view value) {
          if (headers && ascii_iequal(name, "Content-Type")) f.content_type = value;
          if (headers && ascii_iequal(name, "Content-Length")) f.content_length = value;
        });
        if (!ok) return std::nullopt;
      } else {
        std::string_view text;
        bool is_string = false;
        if (!s.flat_value(text, is_string)) return std::nullopt;
        if (is_string && key == "RequestMethod") f.method = text;
        if (is_string && key == "RequestUri") f.uri = text;
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
