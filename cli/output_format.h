#pragma once
// -o/--output, one type for every command: the words are spelled here once, and each command
// names the ones it offers (a listing offers wide, a run that reports as it goes offers text).

#include <CLI/CLI.hpp>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace rgpu::cli {

enum class OutputFormat { table, wide, text, json };

/// The word a user types for `format`.
std::string_view output_word(OutputFormat format);

/// The format `word` names; nullopt for a word that names none.
std::optional<OutputFormat> parse_output_format(std::string_view word);

/// Adds -o,--output to `sub`, setting `into` (left at the command's default when not given).
/// `accepted` is what the command offers, in the order a usage error and completion list them; a
/// word outside it is a usage error that lists them.
CLI::Option* add_output_option(CLI::App& sub, OutputFormat& into, std::initializer_list<OutputFormat> accepted,
                               const std::string& help);

}  // namespace rgpu::cli
