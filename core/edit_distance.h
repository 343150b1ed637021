#pragma once
// Levenshtein distance: what "did you mean" suggestions rank by (CDI names, subcommands).

#include <cstddef>
#include <string_view>

namespace rgpu {

std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace rgpu
