#pragma once
// A value as a sentence quotes it: "…", for the refusals and errors that name a path or a name.

#include <string>
#include <string_view>

namespace rgpu {

/// `s` between double quotes, as written (nothing escaped: the sentences are read, not parsed).
inline std::string in_quotes(std::string_view s) {
  std::string out = "\"";  // appended, not "\"" + std::string: GCC 12's -O3 -Wrestrict false positive
  out.append(s);
  return out + "\"";
}

}  // namespace rgpu
