#pragma once
// Whether a repository's dockerd reads only the repository's CDI view: one verdict for the gate,
// which lets BuildKit build only then (a build step can attach CDI devices the gate never sees),
// and for doctor, which says where the gate will refuse and why, so the two cannot judge one
// daemon two ways.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/root_fs.h"
#include "docker/cdi_spec_dirs.h"

namespace rgpu::docker {

/// Why a spec directory the daemon reads is not the repository's view.
enum class NotTheView {
  machine_specs,  ///< the machine's own /etc/cdi: no view is bound over it
  absent,         ///< relative, missing or no directory now: whatever is made there later is read
  elsewhere,      ///< another directory: a copy of the view, /var/run/cdi
};

struct StrayDir {
  std::string dir;  ///< as the daemon names it
  NotTheView why;
};

struct ViewVerdict {
  /// False when the daemon did not say which directories it reads (GET /info's CDISpecDirs:
  /// Docker 25 or later with CDI on), which the gate does not take from anything else; `strays`
  /// then judges those its daemon.json or Docker's defaults name.
  bool reported = false;
  /// Each directory it reads that is not the view, in the daemon's order.
  std::vector<StrayDir> strays;

  bool ok() const { return reported && strays.empty(); }
  /// Why `dir` is not the view; absent when it is, or when the daemon does not read it.
  std::optional<NotTheView> why(std::string_view dir) const;
  /// Why the daemon does not read only its view, as the gate and doctor both say it ("reads CDI
  /// specs in /var/run/cdi, which is not the repository's own view"); "" when it does.
  std::string reason() const;
};

/// The verdict on `dirs` (docker::spec_dirs of the daemon), each resolved as the daemon resolves
/// it in its own root (`daemon_root`), against the repository's view `view` and the machine's
/// /etc/cdi in `fs` (docker::same_directory: the very directory, never a copy).
ViewVerdict reads_only_view(const CdiSpecDirs& dirs, const RootFs& daemon_root, const RootFs& fs,
                            std::string_view view);

}  // namespace rgpu::docker
