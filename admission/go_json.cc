#include "admission/go_json.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace rgpu::admission {
namespace {

constexpr size_t kMaxDepth = 64;

GoValue of(GoValue::Kind kind) {
  GoValue v;
  v.kind = kind;
  return v;
}

// Builds GoValue trees from nlohmann's SAX events.
class Builder final : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool null() override { return put(GoValue{}); }
  bool boolean(bool b) override {
    GoValue v = of(GoValue::Kind::boolean);
    v.boolean = b;
    return put(std::move(v));
  }
  bool number_integer(number_integer_t n) override { return number(static_cast<double>(n)); }
  bool number_unsigned(number_unsigned_t n) override { return number(static_cast<double>(n)); }
  bool number_float(number_float_t n, const string_t&) override { return number(n); }
  bool string(string_t& s) override {
    GoValue v = of(GoValue::Kind::string);
    v.text = std::move(s);
    return put(std::move(v));
  }
  bool binary(binary_t&) override { return fail_with("binary values are not JSON"); }
  bool start_object(std::size_t) override { return open(GoValue::Kind::object); }
  bool key(string_t& k) override {
    auto& keys = folded_.back();
    std::string folded = go_fold(k);
    if (std::find(keys.begin(), keys.end(), folded) != keys.end()) {
      return fail_with("an object has two keys that Docker reads as one: \"" + k + "\"");
    }
    keys.push_back(std::move(folded));
    pending_key_ = std::move(k);
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(GoValue::Kind::array); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception&) override {
    return fail_with("not valid JSON at byte " + std::to_string(position));
  }

  std::string error;
  GoValue root;

 private:
  bool number(double n) {
    GoValue v = of(GoValue::Kind::number);
    v.number = n;
    return put(std::move(v));
  }
  bool fail_with(std::string message) {
    if (error.empty()) error = std::move(message);
    return false;
  }
  bool open(GoValue::Kind kind) {
    if (stack_.size() >= kMaxDepth) return fail_with("nested deeper than " + std::to_string(kMaxDepth) + " levels");
    stack_.push_back(of(kind));
    keys_.push_back(std::move(pending_key_));
    folded_.emplace_back();
    return true;
  }
  bool close() {
    GoValue done = std::move(stack_.back());
    stack_.pop_back();
    pending_key_ = std::move(keys_.back());
    keys_.pop_back();
    folded_.pop_back();
    return put(std::move(done));
  }
  bool put(GoValue v) {
    if (stack_.empty()) {
      root = std::move(v);
      return true;
    }
    auto& parent = stack_.back();
    if (parent.kind == GoValue::Kind::array) {
      parent.items.push_back(std::move(v));
    } else {
      parent.fields.push_back(GoField{std::move(pending_key_), std::move(v)});
    }
    return true;
  }

  std::vector<GoValue> stack_;
  std::vector<std::string> keys_;
  std::vector<std::vector<std::string>> folded_;  // objects are small: a scan beats a set
  std::string pending_key_;
};

}  // namespace

std::string go_fold(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (size_t i = 0; i < key.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(key[i]);
    if (c == 0xC5 && i + 1 < key.size() && static_cast<unsigned char>(key[i + 1]) == 0xBF) {  // U+017F
      out += 'S';
      ++i;
    } else if (c == 0xE2 && i + 2 < key.size() && static_cast<unsigned char>(key[i + 1]) == 0x84 &&
               static_cast<unsigned char>(key[i + 2]) == 0xAA) {  // U+212A
      out += 'K';
      i += 2;
    } else {
      out += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : static_cast<char>(c);
    }
  }
  return out;
}

const GoValue* GoValue::field(std::string_view name) const {
  if (kind != Kind::object) return nullptr;
  const std::string wanted = go_fold(name);
  for (const auto& [k, v] : fields) {
    if (go_fold(k) == wanted) return &v;
  }
  return nullptr;
}

bool GoValue::is_empty() const {
  switch (kind) {
    case Kind::null: return true;
    case Kind::boolean: return !boolean;
    case Kind::number: return number == 0;
    case Kind::string: return text.empty();
    case Kind::array: return items.empty();
    case Kind::object: return fields.empty();
  }
  return true;
}

Result<GoValue> read_go_json(std::string_view text) {
  Builder builder;
  const bool ok = nlohmann::json::sax_parse(text.begin(), text.end(), &builder, nlohmann::json::input_format_t::json,
                                            true /* strict: nothing may follow the value */);
  if (!ok) return fail(builder.error.empty() ? "the body is not valid JSON" : builder.error);
  return std::move(builder.root);
}

}  // namespace rgpu::admission
