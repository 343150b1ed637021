#pragma once
// Mutations return what they did (or, in a dry run, would do), so --dry-run can print them
// and tests can assert on them.

#include <string>
#include <vector>

namespace rgpu {

/// One effect on the machine. `target` is a machine path (or a command line for `run`).
struct Change {
  enum class Kind { write, remove, unchanged, run };
  Kind kind = Kind::unchanged;
  std::string target;
  std::string detail;

  bool operator==(const Change&) const = default;
};

using Changes = std::vector<Change>;

/// "write", "remove", "unchanged" or "run".
const char* to_string(Change::Kind kind);

}  // namespace rgpu
