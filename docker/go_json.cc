#include "docker/go_json.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <vector>

#include "core/hex_digit.h"

namespace rgpu::docker {
namespace {

namespace dom = simdjson::dom;

constexpr size_t kMaxDepth = 64;
constexpr size_t kPooledParsers = 4;

// Parsers keep their buffers between bodies; one pool per thread, so no locking.
std::vector<std::unique_ptr<dom::parser>>& parser_pool() {
  thread_local std::vector<std::unique_ptr<dom::parser>> pool;
  return pool;
}

// The folded byte at key[i], advancing i past the rune it came from.
inline char fold_next(std::string_view key, size_t& i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(key[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) {
    ++i;
    return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : static_cast<char>(c);
  }
  if (c == 0xC5 && i + 1 < key.size() && byte(i + 1) == 0xBF) {  // U+017F
    i += 2;
    return 'S';
  }
  if (c == 0xE2 && i + 2 < key.size() && byte(i + 1) == 0x84 && byte(i + 2) == 0xAA) {  // U+212A
    i += 3;
    return 'K';
  }
  ++i;
  return static_cast<char>(c);
}

// No byte above 0x7F: then no key holds a rune Go folds to ASCII (U+017F, U+212A).
bool all_ascii(std::string_view text) {
  uint64_t high = 0;
  size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    high |= word;
  }
  for (; i < text.size(); ++i) high |= static_cast<unsigned char>(text[i]);
  return (high & 0x8080808080808080ull) == 0;
}

// True when every key of the document is ASCII once unescaped: no byte above 0x7F in the text,
// and every \u escape below U+0080 ("\u017f" is ASCII text for the rune Go folds to 'S'). The
// text is valid JSON already, so a backslash only ever starts an escape.
bool ascii_once_unescaped(std::string_view text) {
  if (!all_ascii(text)) return false;
  for (size_t i = text.find('\\'); i != std::string_view::npos; i = text.find('\\', i)) {
    if (i + 1 < text.size() && text[i + 1] != 'u') {
      i += 2;  // \" \\ \/ \b \f \n \r \t
      continue;
    }
    if (i + 5 >= text.size() || text[i + 2] != '0' || text[i + 3] != '0') return false;
    const int high = hex_digit(text[i + 4]);
    if (high < 0 || high > 7) return false;
    i += 6;
  }
  return true;
}

// Go's fold of two ASCII keys of the same length, byte by byte: letters compare without case, other
// bytes as they are ('@' and '`' differ only in the bit that case flips, and do not match).
bool ascii_folded_bytes(std::string_view a, std::string_view b) {
  for (size_t i = 0; i < a.size(); ++i) {
    const unsigned char x = static_cast<unsigned char>(a[i]);
    const unsigned char y = static_cast<unsigned char>(b[i]);
    if (x == y) continue;
    const unsigned char lx = x | 0x20;
    if (lx != (y | 0x20) || lx < 'a' || lx > 'z') return false;
  }
  return true;
}

// pick()'s hash of a non-empty ASCII key: the same for every spelling Go folds together.
constexpr unsigned kPickSlots = 128;
inline unsigned pick_slot(std::string_view key) {
  const unsigned head = static_cast<unsigned char>(key.front()) | 0x20u;
  const unsigned tail = static_cast<unsigned char>(key.back()) | 0x20u;
  return (static_cast<unsigned>(key.size()) * 37u + head * 11u + tail) % kPickSlots;
}

template <typename Word>
Word load(const char* p) {
  Word w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

// The same, a word at a time: two bytes Go folds together differ at most in bit 0x20, so words
// that differ in another bit do not match, and words equal as they are do. Only a key spelled in
// another case than the name is compared byte by byte (a byte loop here was a tenth of admit).
inline bool ascii_folded_equal(std::string_view a, std::string_view b) {
  constexpr uint64_t kCaseBits = 0x2020202020202020ull;
  const size_t n = a.size();
  uint64_t loose = 0;
  uint64_t exact = 0;
  const auto word = [&](auto x, auto y, uint64_t case_bits) {
    loose |= static_cast<uint64_t>(x ^ y) & ~case_bits;
    exact |= static_cast<uint64_t>(x ^ y);
  };
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8) word(load<uint64_t>(a.data() + i), load<uint64_t>(b.data() + i), kCaseBits);
    word(load<uint64_t>(a.data() + n - 8), load<uint64_t>(b.data() + n - 8), kCaseBits);
  } else if (n >= 4) {
    word(load<uint32_t>(a.data()), load<uint32_t>(b.data()), 0x20202020u);
    word(load<uint32_t>(a.data() + n - 4), load<uint32_t>(b.data() + n - 4), 0x20202020u);
  } else {
    return ascii_folded_bytes(a, b);
  }
  if (loose != 0) return false;
  return exact == 0 || ascii_folded_bytes(a, b);
}

bool folded_equal(std::string_view a, std::string_view b) {
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (fold_next(a, i) != fold_next(b, j)) return false;
  }
  return i == a.size() && j == b.size();
}

std::string parse_error(simdjson::error_code code) {
  switch (code) {
    case simdjson::DEPTH_ERROR: return "nested deeper than " + std::to_string(kMaxDepth) + " levels";
    case simdjson::UTF8_ERROR: return "not valid JSON: a string is not valid UTF-8";
    default: return std::string("not valid JSON: ") + simdjson::error_message(code);
  }
}

}  // namespace

GoValue::Kind GoValue::kind() const {
  switch (e_.type()) {
    case dom::element_type::NULL_VALUE: return Kind::null;
    case dom::element_type::BOOL: return Kind::boolean;
    case dom::element_type::STRING: return Kind::string;
    case dom::element_type::ARRAY: return Kind::array;
    case dom::element_type::OBJECT: return Kind::object;
    default: return Kind::number;
  }
}

bool GoValue::boolean() const { return e_.is_bool() && e_.get_bool().value_unsafe(); }

std::string_view GoValue::text() const { return e_.is_string() ? e_.get_string().value_unsafe() : std::string_view{}; }

GoItems GoValue::items() const { return e_.is_array() ? GoItems(e_.get_array().value_unsafe(), ascii_) : GoItems(); }

GoFields GoValue::fields() const {
  return e_.is_object() ? GoFields(e_.get_object().value_unsafe(), ascii_) : GoFields();
}

std::optional<GoValue> GoValue::field(std::string_view name) const {
  if (!e_.is_object()) return std::nullopt;
  const dom::object object = e_.get_object().value_unsafe();
  std::optional<GoValue> found;
  // Every key is looked at: a second one Go reads as the same field would be merged into it.
  for (auto [key, value] : object) {
    // A folded rune is never shorter than its fold, and `name` is ASCII: a shorter key cannot match.
    const bool match = ascii_ ? key.size() == name.size() && ascii_folded_equal(key, name)
                              : key.size() >= name.size() && folded_equal(key, name);
    if (!match) continue;
    if (found) throw FoldedDuplicate(key);
    found.emplace(value, ascii_);
  }
  return found;
}

void GoValue::pick(std::span<const std::string_view> names, std::span<std::optional<GoValue>> out) const {
  for (auto& o : out) o.reset();
  if (!e_.is_object()) return;
  if (!ascii_) {
    for (size_t i = 0; i < names.size(); ++i) out[i] = field(names[i]);
    return;
  }
  // The names hashed on length and first and last letter, case folded: a key is compared only with
  // the names of its slot, and most keys (those the gate does not read) find an empty one.
  // first[slot] is the slot's first name + 1, next[i] the one after name i, + 1.
  std::array<uint8_t, kPickSlots> first{};
  std::array<uint8_t, 64> next{};
  if (names.size() >= next.size()) throw std::length_error("GoValue::pick: too many names");
  for (size_t i = names.size(); i-- > 0;) {
    if (names[i].empty()) continue;
    const unsigned slot = pick_slot(names[i]);
    next[i] = first[slot];
    first[slot] = static_cast<uint8_t>(i + 1);
  }
  const dom::object object = e_.get_object().value_unsafe();  // a copy: the result holding it is a temporary
  for (auto [key, value] : object) {
    if (key.empty()) continue;
    for (size_t i = first[pick_slot(key)]; i != 0; i = next[i - 1]) {
      if (key.size() == names[i - 1].size() && ascii_folded_equal(key, names[i - 1])) {
        if (out[i - 1]) throw FoldedDuplicate(key);
        out[i - 1] = GoValue(value, true);
        break;
      }
    }
  }
}

std::optional<std::string_view> GoValue::first_unknown(std::span<const std::string> known) const {
  if (!e_.is_object()) return std::nullopt;
  const dom::object object = e_.get_object().value_unsafe();  // a copy: the result holding it is a temporary
  std::string folded;
  for (auto [key, value] : object) {
    // Most members carry the zero value the CLI sends for every field it knows: no lookup.
    if (GoValue(value, ascii_).is_empty()) continue;
    folded.clear();
    for (size_t i = 0; i < key.size();) folded += fold_next(key, i);
    if (!std::binary_search(known.begin(), known.end(), folded)) return key;
  }
  return std::nullopt;
}

bool GoValue::is_empty() const {
  switch (e_.type()) {
    case dom::element_type::NULL_VALUE: return true;
    case dom::element_type::BOOL: return !e_.get_bool().value_unsafe();
    case dom::element_type::INT64: return e_.get_int64().value_unsafe() == 0;
    case dom::element_type::UINT64: return e_.get_uint64().value_unsafe() == 0;
    case dom::element_type::DOUBLE: return e_.get_double().value_unsafe() == 0;
    case dom::element_type::STRING: return e_.get_string().value_unsafe().empty();
    case dom::element_type::ARRAY: return e_.get_array().value_unsafe().size() == 0;
    case dom::element_type::OBJECT: return e_.get_object().value_unsafe().size() == 0;
  }
  return true;
}

bool GoValue::is_negative() const {
  switch (e_.type()) {
    case dom::element_type::INT64: return e_.get_int64().value_unsafe() < 0;
    case dom::element_type::DOUBLE: return e_.get_double().value_unsafe() < 0;
    default: return false;
  }
}

std::optional<GoValue> GoItems::front() const {
  if (empty()) return std::nullopt;
  return GoValue(*a_.begin(), ascii_);
}

GoDocument::GoDocument() {
  auto& pool = parser_pool();
  if (!pool.empty()) {
    parser_ = std::move(pool.back());
    pool.pop_back();
  } else {
    parser_ = std::make_unique<dom::parser>();
    // allocate() fixes the depth limit; later parses grow the capacity and keep it.
    if (parser_->allocate(4096, kMaxDepth) != simdjson::SUCCESS) throw std::bad_alloc();
  }
}

GoDocument::GoDocument(GoDocument&&) noexcept = default;
GoDocument& GoDocument::operator=(GoDocument&&) noexcept = default;

GoDocument::~GoDocument() {
  if (!parser_) return;
  auto& pool = parser_pool();
  if (pool.size() < kPooledParsers) pool.push_back(std::move(parser_));
}

std::string go_fold(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (size_t i = 0; i < key.size();) out += fold_next(key, i);
  return out;
}

bool go_fold_equal(std::string_view key, std::string_view name) { return folded_equal(key, name); }

FoldedDuplicate::FoldedDuplicate(std::string_view key)
    : std::runtime_error("an object has two keys that Docker reads as one: \"" + std::string(key) + "\"") {}

Result<GoDocument> read_go_json(std::string_view text) {
  GoDocument doc;
  // The parser copies the text into its own padded buffer (reused), so any string_view will do.
  auto parsed = doc.parser_->parse(text.data(), text.size(), true);
  if (parsed.error()) return fail(parse_error(parsed.error()));
  doc.root_ = parsed.value_unsafe();
  doc.ascii_ = ascii_once_unescaped(text);
  return doc;
}

}  // namespace rgpu::docker
