#include "admission/go_json.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <vector>

namespace rgpu::admission {
namespace {

namespace dom = simdjson::dom;

constexpr size_t kMaxDepth = 64;
constexpr size_t kPooledParsers = 4;
constexpr size_t kStackKeys = 128;

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

bool folded_equal(std::string_view a, std::string_view b) {
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (fold_next(a, i) != fold_next(b, j)) return false;
  }
  return i == a.size() && j == b.size();
}

// A hash equal for keys Go folds to the same name, made of the length and the first and last
// eight bytes with bit 5 cleared (upper-casing letters, and merging a few other bytes): keys
// Go tells apart may share it, which is why equal hashes are then compared with folded_equal.
uint64_t folded_hash(std::string_view key) {
  unsigned char high = 0;
  for (const char c : key) high |= static_cast<unsigned char>(c);
  std::string folded;
  if (high >= 0x80) {  // rare: fold the runes first, so the hash sees what Go compares
    folded.reserve(key.size());
    for (size_t i = 0; i < key.size();) folded += fold_next(key, i);
    key = folded;
  }
  const size_t n = key.size();
  const size_t w = std::min<size_t>(n, 8);
  uint64_t first = 0;
  uint64_t last = 0;
  std::memcpy(&first, key.data(), w);
  std::memcpy(&last, key.data() + n - w, w);
  constexpr uint64_t kMask = 0xDFDFDFDFDFDFDFDFull;
  uint64_t h = ((first & kMask) * 0x9E3779B97F4A7C15ull) ^ ((last & kMask) * 0xFF51AFD7ED558CCDull) ^ n;
  h ^= h >> 29;  // the products' low bits see only the low bytes: mix before a table uses them
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 32);
}

// Each key is folded once, into a hash, and put in an open-addressing table; only keys with equal
// hashes are compared for real. Linear in the number of keys, so a body of many keys cannot make
// the check quadratic; objects of up to kStackKeys keys use tables on the stack.
std::optional<std::string> folded_duplicate(dom::object object) {
  const size_t n = object.size();
  if (n < 2) return std::nullopt;
  using Key = std::pair<uint64_t, std::string_view>;
  std::array<Key, kStackKeys> stack_keys;
  std::array<uint32_t, 2 * kStackKeys> stack_table;
  std::vector<Key> heap_keys;
  std::vector<uint32_t> heap_table;
  const size_t slots = std::bit_ceil(2 * n);
  Key* keys = stack_keys.data();
  uint32_t* table = stack_table.data();  // key index + 1; 0 is an empty slot
  if (n > kStackKeys) {
    heap_keys.resize(n);
    heap_table.resize(slots);
    keys = heap_keys.data();
    table = heap_table.data();
  }
  std::fill_n(table, slots, 0u);
  uint32_t count = 0;
  for (auto [key, value] : object) {
    const uint64_t h = folded_hash(key);
    size_t slot = h & (slots - 1);
    for (; table[slot] != 0; slot = (slot + 1) & (slots - 1)) {
      const Key& other = keys[table[slot] - 1];
      if (other.first == h && folded_equal(other.second, key)) return std::string(key);
    }
    keys[count] = {h, key};
    table[slot] = ++count;
  }
  return std::nullopt;
}

// Every object of the document, at any depth (the depth is bounded by the parser).
std::optional<std::string> find_folded_duplicate(dom::element e) {
  if (e.is_object()) {
    const dom::object object = e.get_object().value_unsafe();
    if (auto dup = folded_duplicate(object)) return dup;
    for (auto [key, value] : object) {
      if (auto dup = find_folded_duplicate(value)) return dup;
    }
  } else if (e.is_array()) {
    const dom::array array = e.get_array().value_unsafe();
    for (dom::element item : array) {
      if (auto dup = find_folded_duplicate(item)) return dup;
    }
  }
  return std::nullopt;
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

GoItems GoValue::items() const { return e_.is_array() ? GoItems(e_.get_array().value_unsafe()) : GoItems(); }

GoFields GoValue::fields() const { return e_.is_object() ? GoFields(e_.get_object().value_unsafe()) : GoFields(); }

std::optional<GoValue> GoValue::field(std::string_view name) const {
  if (!e_.is_object()) return std::nullopt;
  const dom::object object = e_.get_object().value_unsafe();
  for (auto [key, value] : object) {
    // A folded rune is never shorter than its fold, and `name` is ASCII: a shorter key cannot match.
    if (key.size() >= name.size() && folded_equal(key, name)) return GoValue(value);
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

std::optional<GoValue> GoItems::front() const {
  if (empty()) return std::nullopt;
  return GoValue(*a_.begin());
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

Result<GoDocument> read_go_json(std::string_view text) {
  GoDocument doc;
  // The parser copies the text into its own padded buffer (reused), so any string_view will do.
  auto parsed = doc.parser_->parse(text.data(), text.size(), true);
  if (parsed.error()) return fail(parse_error(parsed.error()));
  doc.root_ = parsed.value_unsafe();
  if (auto dup = find_folded_duplicate(doc.root_)) {
    return fail("an object has two keys that Docker reads as one: \"" + *dup + "\"");
  }
  return doc;
}

}  // namespace rgpu::admission
