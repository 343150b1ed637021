#pragma once
// Text cut into fields at one separator character: lines, comma lists, path segments, a
// command line's NUL-separated arguments. Every caller says whether an empty field counts.

#include <string>
#include <string_view>
#include <vector>

namespace rgpu {

/// Whether split keeps an empty field (two separators in a row, or one at the start) or drops it.
enum class EmptyFields { keep, drop };

/// `text` cut at each `separator`. A separator at the very end closes the last field and opens no
/// other, as std::getline reads lines: "a,,b," is {"a", "", "b"} with keep, {"a", "b"} with drop;
/// "" is {}.
std::vector<std::string> split(std::string_view text, char separator, EmptyFields empty);

}  // namespace rgpu
