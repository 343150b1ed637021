#pragma once
// The one way a command prints what it changed (or, in a dry run, would change): a line per
// change, "write /etc/cdi/rediacc.io-dri.json", "would run systemctl enable …".

#include <string>
#include <vector>

#include "core/change.h"
#include "core/root_fs.h"

namespace rgpu::cli {

struct ChangeLineOptions {
  bool dry_run = false;    ///< "would write …"
  bool unchanged = false;  ///< also the files found as they should be ("unchanged PATH")
  bool runs = true;        ///< commands too (left out where each was shown as it started)
};

/// A file's change names it by its path on this machine (under --root, the path here); a command
/// is named as it ran.
std::vector<std::string> change_lines(const RootFs& fs, const Changes& changes, const ChangeLineOptions& options);

}  // namespace rgpu::cli
