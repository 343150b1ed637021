#pragma once
// A JSON reader that sees a body the way dockerd's Go decoder does. nlohmann's SAX interface
// gives every raw key, so keys are matched with Go's case folding, and an object with two keys
// that fold to the same name is refused (Go would merge them, last one winning: a checker that
// reads the first would be fooled).

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace rgpu::admission {

struct GoField;

struct GoValue {
  enum class Kind { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  bool boolean = false;
  double number = 0;
  std::string text;             ///< string value
  std::vector<GoValue> items;   ///< array elements
  std::vector<GoField> fields;  ///< object members, raw keys in order

  /// The member Go's decoder would put in field `name` (ASCII), or null.
  const GoValue* field(std::string_view name) const;
  bool is_null() const { return kind == Kind::null; }
  /// True for absent-equivalent values: null, false, 0, "", [], {}.
  bool is_empty() const;
};

struct GoField {
  std::string key;  ///< raw, as written
  GoValue value;
};

/// Go's key folding for matching struct fields: ASCII letters upper-cased, U+017F (long s) as
/// 'S' and U+212A (Kelvin sign) as 'K', the two non-ASCII runes whose fold reaches ASCII.
std::string go_fold(std::string_view key);

/// Parses one JSON value; trailing data, folded-duplicate keys and nesting deeper than 64 are errors.
Result<GoValue> read_go_json(std::string_view text);

}  // namespace rgpu::admission
