#include "cli/help_text.h"

#include <sstream>

namespace rgpu::cli {
namespace {

// One paragraph's words on lines of at most `width` columns (a longer word stands alone).
std::string wrapped(const std::string& paragraph, std::size_t width) {
  std::istringstream words(paragraph);
  std::string out, line;
  for (std::string word; words >> word;) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += "  " + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += "  " + line + "\n";
  return out;
}

}  // namespace

std::string_view help_text(std::string_view command) {
  for (const auto& h : help_texts()) {
    if (h.command == command) return h.text;
  }
  return {};
}

std::string help_footer(std::string_view text, std::size_t width) {
  std::istringstream lines{std::string(text)};
  std::string out, paragraph;
  bool verbatim = false;  // inside a ``` block
  const auto flush = [&] {
    if (!paragraph.empty()) out += wrapped(paragraph, width - 2);
    paragraph.clear();
  };
  for (std::string line; std::getline(lines, line);) {
    const bool fence = line.starts_with("```");
    if (fence || verbatim || line.starts_with("|")) {
      flush();
      if (!fence) out += "  " + line + "\n";
      if (fence) verbatim = !verbatim;
    } else if (line.starts_with("- ")) {  // a list item: a paragraph of its own
      flush();
      paragraph = line;
    } else if (line.empty()) {
      flush();
      out += "\n";
    } else {
      paragraph += " " + line;
    }
  }
  flush();
  return out;
}

}  // namespace rgpu::cli
