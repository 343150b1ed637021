#include "cli/output_format.h"

#include <array>
#include <utility>
#include <vector>

namespace rgpu::cli {
namespace {

constexpr std::array<std::pair<OutputFormat, std::string_view>, 4> kWords = {{
    {OutputFormat::table, "table"},
    {OutputFormat::wide, "wide"},
    {OutputFormat::text, "text"},
    {OutputFormat::json, "json"},
}};

}  // namespace

std::string_view output_word(OutputFormat format) {
  for (const auto& [f, word] : kWords) {
    if (f == format) return word;
  }
  return {};
}

std::optional<OutputFormat> parse_output_format(std::string_view word) {
  for (const auto& [f, w] : kWords) {
    if (w == word) return f;
  }
  return std::nullopt;
}

CLI::Option* add_output_option(CLI::App& sub, OutputFormat& into, std::initializer_list<OutputFormat> accepted,
                               const std::string& help) {
  std::vector<std::string> words;
  for (const auto format : accepted) words.emplace_back(output_word(format));
  // IsMember refuses a word the command does not offer before the callback runs, and its set is
  // what --help shows ("TEXT:{table,json}") and bash completion offers.
  return sub
      .add_option_function<std::string>(
          "-o,--output", [&into](const std::string& word) { into = *parse_output_format(word); }, help)
      ->check(CLI::IsMember(words));
}

}  // namespace rgpu::cli
