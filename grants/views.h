#pragma once
// The repositories' CDI views (cdi-gen/repo_views.h) made from the grants in force: called after
// every change of grants or of /etc/cdi, under the grants lock, so that views written by two
// commands at once are always those of the last grants file.

#include <vector>

#include "core/change.h"
#include "core/file_sink.h"
#include "core/root_fs.h"

namespace rgpu::grants {

/// Rewrites every repository's view from grants.json and /etc/cdi; a grants file that does not
/// parse is an error and leaves every view as it was. A name whose hardware moved since it was
/// granted (moved_grants) is left out of its repository's view.
Result<std::vector<Change>> refresh_views(const RootFs& fs, FileSink& sink);

}  // namespace rgpu::grants
