#pragma once
// Release versions as programs and packages write them ("1.4.0-rc.3", "v1.2.8", "28.5.2+dfsg4",
// "5:28.1.1-1~debian.12", "1.18.0~rc.1-1"), read and ordered one way for every caller: doctor's
// Docker, runc and CUDA judgements, the NVIDIA toolkit's plan, Docker's package against CDI.

#include <optional>
#include <string_view>
#include <vector>

namespace rgpu {

struct Version {
  std::vector<long> numbers;  ///< "1.4.0" -> 1, 4, 0; empty when the text starts with none
  /// A pre-release of those numbers, which sorts before them: "-rc.3", "~rc3", or any "~" (Debian's
  /// mark for a version before its release: "1.18.0~rc.1-1").
  bool pre = false;
  long pre_number = 0;  ///< the number after "rc" ("-rc.3": 3), else 0
};

/// The version `text` starts with: a Debian epoch ("5:") and a "v" skipped, then numbers separated
/// by dots up to the first other character. What follows is the package's own revision
/// ("+dfsg1-1", "-1~debian.12"), ignored but for a pre-release mark right after the numbers.
Version read_version(std::string_view text);

/// `text` when it is numbers and dots alone ("12.4", "550.54.15"), each number of at most nine
/// digits; absent otherwise ("", "12.", ".4", "12..4", "v12", "12.4-1").
std::optional<Version> dotted_version(std::string_view text);

/// -1, 0, 1 as `a` is older than, the same as, or newer than `b`: by numbers (a missing one is 0),
/// then a pre-release before its release, then by pre-release number.
int compare(const Version& a, const Version& b);

/// compare() of the versions the two texts start with (read_version).
int compare_versions(std::string_view a, std::string_view b);

}  // namespace rgpu
