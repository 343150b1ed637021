#include "core/structured_text.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>

namespace rgpu {
namespace {

bool is_integer(const std::string& text) {
  size_t start = (text[0] == '-' || text[0] == '+') ? 1 : 0;
  return start < text.size() && std::all_of(text.begin() + static_cast<long>(start), text.end(),
                                            [](unsigned char c) { return std::isdigit(c); });
}

nlohmann::json plain_scalar(const std::string& text) {
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (text == "null" || text == "~" || text.empty()) return nullptr;
  if (is_integer(text)) {
    try {
      return std::stoll(text);
    } catch (const std::out_of_range&) {
      return text;
    }
  }
  return text;
}

nlohmann::json to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Sequence: {
      auto out = nlohmann::json::array();
      for (const auto& item : node) out.push_back(to_json(item));
      return out;
    }
    case YAML::NodeType::Map: {
      auto out = nlohmann::json::object();
      for (const auto& kv : node) out[kv.first.as<std::string>()] = to_json(kv.second);
      return out;
    }
    case YAML::NodeType::Scalar:
      // yaml-cpp tags plain scalars "?" and quoted ones "!".
      return node.Tag() == "?" ? plain_scalar(node.Scalar()) : nlohmann::json(node.Scalar());
    default: return nullptr;
  }
}

std::string position_in(std::string_view text, size_t byte) {
  byte = std::min(byte, text.size());
  size_t line = 1, column = 1;
  for (size_t i = 0; i + 1 < byte; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace

std::string without_parser_tag(std::string_view what) {
  if (what.starts_with("[json.exception.")) {
    if (const auto end = what.find("] "); end != std::string_view::npos) what.remove_prefix(end + 2);
  }
  return std::string(what);
}

Result<nlohmann::json> parse_json(std::string_view text, std::string_view where) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // The parser's own words ("[json.exception.parse_error.101] ...") are not for people.
    return fail(std::string(where) + " is not valid JSON at " + position_in(text, e.byte) + "; fix or remove it.");
  } catch (const nlohmann::json::exception&) {
    return fail(std::string(where) + " is not valid JSON; fix or remove it.");
  }
}

Result<nlohmann::json> parse_yaml(std::string_view text, std::string_view where) {
  try {
    return to_json(YAML::Load(std::string(text)));
  } catch (const YAML::Exception& e) {
    return fail(std::string(where) + " is not valid YAML at line " + std::to_string(e.mark.line + 1) + ", column " +
                std::to_string(e.mark.column + 1) + " (" + e.msg + "); fix or remove it.");
  }
}

}  // namespace rgpu
