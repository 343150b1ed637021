#pragma once
// Levenshtein distance: what "did you mean" suggestions rank by (CDI names, subcommands).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rgpu {

std::size_t edit_distance(std::string_view a, std::string_view b);

/// The `n` candidates nearest to `word`, nearest first (ties in name order).
std::vector<std::string> closest(std::string_view word, const std::vector<std::string>& candidates, std::size_t n);

}  // namespace rgpu
