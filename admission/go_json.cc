#include "admission/go_json.h"

#include <sys/random.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <memory>
#include <vector>

#include "core/hex_digit.h"

namespace rgpu::admission {
namespace {

namespace dom = simdjson::dom;

constexpr size_t kMaxDepth = 64;
constexpr size_t kPooledParsers = 4;
constexpr size_t kPairwiseKeys = 16;

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

// Go's fold of two ASCII keys of the same length: letters compare without case, other bytes as
// they are ('@' and '`' differ only in the bit that case flips, and do not match).
inline bool ascii_folded_equal(std::string_view a, std::string_view b) {
  for (size_t i = 0; i < a.size(); ++i) {
    const unsigned char x = static_cast<unsigned char>(a[i]);
    const unsigned char y = static_cast<unsigned char>(b[i]);
    if (x == y) continue;
    const unsigned char lx = x | 0x20;
    if (lx != (y | 0x20) || lx < 'a' || lx > 'z') return false;
  }
  return true;
}

bool folded_equal(std::string_view a, std::string_view b) {
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (fold_next(a, i) != fold_next(b, j)) return false;
  }
  return i == a.size() && j == b.size();
}

// This process's hash key, from the kernel's random pool: keys crafted so that their hashes
// collide cannot be computed ahead, so no body makes the table's probes (and a decision) quadratic.
uint64_t hash_seed() {
  static const uint64_t seed = [] {
    uint64_t s = 0x243F6A8885A308D3ull;
    uint64_t r = 0;
    if (::getrandom(&r, sizeof r, 0) == sizeof r) s ^= r;
    return s;
  }();
  return seed;
}

__extension__ typedef unsigned __int128 Wide;  // GCC and clang both have it; __extension__: not ISO

// The 128-bit product folded to 64 bits: every input bit reaches every output bit.
inline uint64_t mix(uint64_t a, uint64_t b) {
  const Wide product = static_cast<Wide>(a) * b;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
}

// A seeded hash of every byte of the key with bit 5 cleared (upper-casing letters, and merging a
// few other bytes), equal for keys Go folds to the same name: keys Go tells apart may share it,
// which is why equal hashes are then compared with folded_equal.
uint64_t folded_hash(std::string_view key, bool ascii) {
  std::string folded;
  if (!ascii && !all_ascii(key)) {  // rare: fold the runes first, so the hash sees what Go compares
    folded.reserve(key.size());
    for (size_t i = 0; i < key.size();) folded += fold_next(key, i);
    key = folded;
  }
  constexpr uint64_t kMask = 0xDFDFDFDFDFDFDFDFull;
  constexpr uint64_t kOdd = 0x9E3779B97F4A7C15ull;
  uint64_t h = hash_seed() ^ (key.size() * kOdd);
  size_t i = 0;
  for (; i + 8 <= key.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, key.data() + i, 8);
    h = mix(h ^ (word & kMask), kOdd);
  }
  if (i < key.size()) {
    uint64_t word = 0;
    std::memcpy(&word, key.data() + i, key.size() - i);
    h = mix(h ^ (word & kMask), kOdd);
  }
  return h;
}

// An object's keys by the name Go folds them to, in an open-addressing table: on the stack up to
// kInlineKeys keys, on the heap past that; linear in the keys, whatever they are.
class FoldedKeys {
 public:
  static constexpr size_t kInlineKeys = 96;
  FoldedKeys(size_t n, bool ascii);
  FoldedKeys(const FoldedKeys&) = delete;
  FoldedKeys& operator=(const FoldedKeys&) = delete;
  /// Adds a key; false when a key Go folds to the same name is there already.
  bool insert(std::string_view key);

 private:
  struct Entry {
    uint64_t hash;
    std::string_view key;
  };
  bool ascii_;
  size_t slots_;
  size_t count_ = 0;
  Entry* entries_;
  uint32_t* table_;  // entry index + 1; 0 is an empty slot
  union {            // left uninitialised: an entry is written before it is read
    Entry inline_entries_[kInlineKeys];
  };
  uint32_t inline_table_[std::bit_ceil(2 * kInlineKeys)];
  std::vector<Entry> heap_entries_;
  std::vector<uint32_t> heap_table_;
};

FoldedKeys::FoldedKeys(size_t n, bool ascii) : ascii_(ascii), slots_(std::bit_ceil(2 * std::max<size_t>(n, 1))) {
  if (n > kInlineKeys) {
    heap_entries_.resize(n);
    heap_table_.resize(slots_);
    entries_ = heap_entries_.data();
    table_ = heap_table_.data();
  } else {
    entries_ = inline_entries_;
    table_ = inline_table_;
  }
  std::fill_n(table_, slots_, 0u);
}

bool FoldedKeys::insert(std::string_view key) {
  const uint64_t h = folded_hash(key, ascii_);
  size_t slot = h & (slots_ - 1);
  for (; table_[slot] != 0; slot = (slot + 1) & (slots_ - 1)) {
    const Entry& other = entries_[table_[slot] - 1];
    if (other.hash == h && folded_equal(other.key, key)) return false;
  }
  std::construct_at(&entries_[count_], Entry{h, key});
  table_[slot] = ++count_;
  return true;
}

// In an ASCII document, a small object's keys are compared pairwise, but only at equal lengths:
// cheaper than hashing them for the few keys most objects have.
std::optional<std::string> small_folded_duplicate(dom::object object) {
  std::string_view keys[kPairwiseKeys];
  size_t count = 0;
  for (auto [key, value] : object) {
    for (size_t i = 0; i < count; ++i) {
      if (keys[i].size() == key.size() && ascii_folded_equal(keys[i], key)) return std::string(key);
    }
    keys[count++] = key;
  }
  return std::nullopt;
}

// Each key is folded once, into a hash, and put in an open-addressing table; only keys with equal
// hashes are compared for real. Linear in the number of keys, so a body of many keys cannot make
// the check quadratic.
std::optional<std::string> folded_duplicate(dom::object object, bool ascii) {
  const size_t n = object.size();
  if (n < 2) return std::nullopt;
  if (ascii && n <= kPairwiseKeys) return small_folded_duplicate(object);
  FoldedKeys keys(n, ascii);
  for (auto [key, value] : object) {
    if (!keys.insert(key)) return std::string(key);
  }
  return std::nullopt;
}

// Every object of the document, at any depth (the depth is bounded by the parser).
std::optional<std::string> find_folded_duplicate(dom::element e, bool ascii) {
  if (e.is_object()) {
    const dom::object object = e.get_object().value_unsafe();
    if (auto dup = folded_duplicate(object, ascii)) return dup;
    for (auto [key, value] : object) {
      if (auto dup = find_folded_duplicate(value, ascii)) return dup;
    }
  } else if (e.is_array()) {
    const dom::array array = e.get_array().value_unsafe();
    for (dom::element item : array) {
      if (auto dup = find_folded_duplicate(item, ascii)) return dup;
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

GoItems GoValue::items() const { return e_.is_array() ? GoItems(e_.get_array().value_unsafe(), ascii_) : GoItems(); }

GoFields GoValue::fields() const {
  return e_.is_object() ? GoFields(e_.get_object().value_unsafe(), ascii_) : GoFields();
}

std::optional<GoValue> GoValue::field(std::string_view name) const {
  if (!e_.is_object()) return std::nullopt;
  const dom::object object = e_.get_object().value_unsafe();
  if (ascii_) {
    for (auto [key, value] : object) {
      if (key.size() == name.size() && ascii_folded_equal(key, name)) return GoValue(value, true);
    }
    return std::nullopt;
  }
  for (auto [key, value] : object) {
    // A folded rune is never shorter than its fold, and `name` is ASCII: a shorter key cannot match.
    if (key.size() >= name.size() && folded_equal(key, name)) return GoValue(value, false);
  }
  return std::nullopt;
}

void GoValue::pick(std::span<const std::string_view> names, std::span<std::optional<GoValue>> out) const {
  for (auto& o : out) o.reset();
  if (!e_.is_object()) return;
  if (!ascii_) {
    for (size_t i = 0; i < names.size(); ++i) out[i] = field(names[i]);
    return;
  }
  // Most keys match no name in length: one bit test each puts them by.
  uint64_t lengths = 0;
  for (const auto name : names) lengths |= name.size() < 64 ? 1ull << name.size() : 0;
  const dom::object object = e_.get_object().value_unsafe();  // a copy: the result holding it is a temporary
  for (auto [key, value] : object) {
    if (key.size() >= 64 || !((lengths >> key.size()) & 1)) continue;
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i].size() == key.size() && ascii_folded_equal(key, names[i])) {
        out[i] = GoValue(value, true);
        break;
      }
    }
  }
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

Result<GoDocument> read_go_json(std::string_view text) {
  GoDocument doc;
  // The parser copies the text into its own padded buffer (reused), so any string_view will do.
  auto parsed = doc.parser_->parse(text.data(), text.size(), true);
  if (parsed.error()) return fail(parse_error(parsed.error()));
  doc.root_ = parsed.value_unsafe();
  doc.ascii_ = ascii_once_unescaped(text);
  if (auto dup = find_folded_duplicate(doc.root_, doc.ascii_)) {
    return fail("an object has two keys that Docker reads as one: \"" + *dup + "\"");
  }
  return doc;
}

}  // namespace rgpu::admission
