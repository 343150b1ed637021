#pragma once
// Each repository's own CDI view: the directory its Docker daemon reads as /etc/cdi (bound there
// read-only in the daemon's mount namespace), holding, for each spec of the machine's /etc/cdi
// that defines a name the repository holds, a copy with only the held devices. dockerd itself
// then cannot resolve a name the repository does not hold: not at a start the plugin never saw,
// not at a restart-policy restore, not in a fork (another repository, another view).

#include <map>
#include <set>
#include <string>
#include <vector>

#include "cdi/spec_index.h"
#include "core/change.h"
#include "core/file_sink.h"
#include "core/root_fs.h"

namespace rgpu::cdi {

/// Repository `repo`'s view directory (machine path): /var/lib/rediacc/gpu/cdi/REPO.
std::string view_dir(const std::string& repo);

/// The names each repository holds.
using HeldNames = std::map<std::string, std::set<std::string>>;

/// Brings the views of every repository in `held`, and of every view directory already there,
/// up to date with the machine's /etc/cdi: one file per spec that defines a held name (named as
/// that spec, its top-level containerEdits unchanged, only held devices in it), each written
/// atomically inside the view; files no longer wanted are removed. A repository holding nothing
/// keeps an empty directory (its daemon binds it). A name /etc/cdi defines twice, or one that
/// is never granted (management.*), is in no view. Files are written by a few threads at once,
/// so `sink` must take concurrent calls (the machine's and the dry run's do). Fails, after every
/// other file was tried, naming the first file it could not write.
Result<std::vector<Change>> update_views(const RootFs& fs, FileSink& sink, const SpecIndex& index,
                                         const HeldNames& held);

}  // namespace rgpu::cdi
