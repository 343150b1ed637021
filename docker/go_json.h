#pragma once
// A JSON reader that sees a body the way dockerd's Go decoder does. simdjson's DOM keeps every
// raw key (unescaped), so keys are matched with Go's case folding. Two keys of one object that
// Go reads as the same struct field are merged by Go (the last one winning, objects combined): a
// checker that read one of them would be fooled, so reading such a field throws FoldedDuplicate.
// Only the fields the gate reads are checked: a duplicate in an object it never reads (Labels,
// Env, a map Go keys exactly) cannot change what it decides. simdjson because a decision must
// cost microseconds: it parses a create body several times faster than a tree of nlohmann values
// can be built.

#include <simdjson.h>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "core/result.h"

namespace rgpu::docker {

class GoItems;
class GoFields;

/// A view of one value of a parsed body; valid while the GoDocument it came from lives.
class GoValue {
 public:
  enum class Kind { null, boolean, number, string, array, object };

  /// `ascii`: no key of the document holds a byte above 0x7F once unescaped, so a key matches a
  /// field only at the same length and folding is ASCII's.
  GoValue(simdjson::dom::element e, bool ascii) : e_(e), ascii_(ascii) {}

  Kind kind() const;
  bool boolean() const;
  /// The string's value; empty for any other kind.
  std::string_view text() const;
  /// Array elements; nothing for any other kind.
  GoItems items() const;
  /// Object members with their raw keys, in order; nothing for any other kind.
  GoFields fields() const;
  /// The member Go's decoder would put in field `name` (ASCII), or nothing; throws
  /// FoldedDuplicate when two members would.
  std::optional<GoValue> field(std::string_view name) const;
  /// Several fields in one pass over the keys, as Go's decoder fills a struct: out[i] is what
  /// field(names[i]) is. For a checker that reads many fields of one object (HostConfig).
  void pick(std::span<const std::string_view> names, std::span<std::optional<GoValue>> out) const;
  /// The first member whose key Go would match to none of `known` (names upper-cased, sorted)
  /// and whose value is not empty: a field dockerd may read that the caller does not know.
  std::optional<std::string_view> first_unknown(std::span<const std::string> known) const;
  bool is_null() const { return kind() == Kind::null; }
  /// True for absent-equivalent values: null, false, 0, "", [], {}.
  bool is_empty() const;
  /// True for a number below zero.
  bool is_negative() const;

 private:
  simdjson::dom::element e_;
  bool ascii_;
};

class GoItems {
 public:
  class iterator {
   public:
    iterator(simdjson::dom::array::iterator it, bool live, bool ascii) : it_(it), live_(live), ascii_(ascii) {}
    GoValue operator*() const { return GoValue(*it_, ascii_); }
    iterator& operator++() {
      ++it_;
      return *this;
    }
    bool operator!=(const iterator& other) const { return live_ && it_ != other.it_; }

   private:
    simdjson::dom::array::iterator it_;
    bool live_;
    bool ascii_;
  };
  GoItems() = default;
  GoItems(simdjson::dom::array a, bool ascii) : a_(a), live_(true), ascii_(ascii) {}
  iterator begin() const { return {live_ ? a_.begin() : simdjson::dom::array::iterator{}, live_, ascii_}; }
  iterator end() const { return {live_ ? a_.end() : simdjson::dom::array::iterator{}, live_, ascii_}; }
  bool empty() const { return !live_ || a_.size() == 0; }
  std::optional<GoValue> front() const;

 private:
  simdjson::dom::array a_;
  bool live_ = false;
  bool ascii_ = true;
};

class GoFields {
 public:
  class iterator {
   public:
    iterator(simdjson::dom::object::iterator it, bool live, bool ascii) : it_(it), live_(live), ascii_(ascii) {}
    std::pair<std::string_view, GoValue> operator*() const { return {it_.key(), GoValue(it_.value(), ascii_)}; }
    iterator& operator++() {
      ++it_;
      return *this;
    }
    bool operator!=(const iterator& other) const { return live_ && it_ != other.it_; }

   private:
    simdjson::dom::object::iterator it_;
    bool live_;
    bool ascii_;
  };
  GoFields() = default;
  GoFields(simdjson::dom::object o, bool ascii) : o_(o), live_(true), ascii_(ascii) {}
  iterator begin() const { return {live_ ? o_.begin() : simdjson::dom::object::iterator{}, live_, ascii_}; }
  iterator end() const { return {live_ ? o_.end() : simdjson::dom::object::iterator{}, live_, ascii_}; }

 private:
  simdjson::dom::object o_;
  bool live_ = false;
  bool ascii_ = true;
};

/// One parsed body; owns the memory its GoValues view. Parsers are reused per thread, so a
/// decision allocates nothing for the document once the thread has parsed a body that large.
class GoDocument {
 public:
  GoDocument(GoDocument&&) noexcept;
  GoDocument& operator=(GoDocument&&) noexcept;
  ~GoDocument();
  GoValue root() const { return GoValue(root_, ascii_); }

 private:
  friend Result<GoDocument> read_go_json(std::string_view text);
  GoDocument();
  std::unique_ptr<simdjson::dom::parser> parser_;
  simdjson::dom::element root_;
  bool ascii_ = true;
};

/// Go's key folding for matching struct fields: ASCII letters upper-cased, U+017F (long s) as
/// 'S' and U+212A (Kelvin sign) as 'K', the two non-ASCII runes whose fold reaches ASCII.
std::string go_fold(std::string_view key);

/// True when Go's decoder would match `key` to a field named `name`; no allocation.
bool go_fold_equal(std::string_view key, std::string_view name);

/// Two keys of one object that Go's decoder would put in the same field: the request is refused.
class FoldedDuplicate : public std::runtime_error {
 public:
  explicit FoldedDuplicate(std::string_view key);
};

/// Parses one JSON value; trailing data, invalid UTF-8 and nesting deeper than 64 are errors.
Result<GoDocument> read_go_json(std::string_view text);

}  // namespace rgpu::docker
