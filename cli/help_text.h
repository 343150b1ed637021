#pragma once
// Each command's description: what it does, what it changes, and its exit status, written once in
// cli/help/COMMAND.txt and shown by --help, the man page and docs/manual.md.

#include <string>
#include <string_view>
#include <vector>

namespace rgpu::cli {

struct HelpText {
  std::string_view command;  ///< "setup", "cdi list"; "general" for what every command shares
  std::string_view text;     ///< paragraphs separated by blank lines; ``` blocks and | tables kept as written
};

/// Every description, in the order of their names.
const std::vector<HelpText>& help_texts();

/// The description of `command` ("cdi list"); empty when it has none.
std::string_view help_text(std::string_view command);

/// The description as --help ends with it: each paragraph wrapped to `width` columns and indented
/// by two spaces, blocks and tables as written.
std::string help_footer(std::string_view text, std::size_t width = 100);

}  // namespace rgpu::cli
