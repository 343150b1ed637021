#pragma once
// JSON and YAML documents are parsed into nlohmann::json; third-party exceptions become errors
// that name the file.

#include <nlohmann/json.hpp>
#include <string_view>

#include "core/result.h"

namespace rgpu {

/// Parses JSON text; `where` (a path) names the document in the error.
Result<nlohmann::json> parse_json(std::string_view text, std::string_view where);

/// An exception's text without a parser's "[json.exception.type_error.302] " tag: what a person
/// may read of it.
std::string without_parser_tag(std::string_view what);

/// Parses YAML text into the same tree: plain scalars that read as integers, booleans or null
/// become those; everything quoted stays a string.
Result<nlohmann::json> parse_yaml(std::string_view text, std::string_view where);

}  // namespace rgpu
