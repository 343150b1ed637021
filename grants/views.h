#pragma once
// The repositories' CDI views (cdi/repo_views.h) made from the grants in force: written by
// every change of grants under the lock it holds, and after every change of /etc/cdi, so that
// views written by two commands at once are always those of the last grants file.

#include <string>
#include <vector>

#include "cdi/spec_index.h"
#include "core/change.h"
#include "core/file_sink.h"
#include "core/root_fs.h"
#include "grants/grant_set.h"

namespace rgpu::grants {

/// Rewrites every repository's view from `set` and `index`, for a caller that holds the grants
/// lock and has just read or written `set`. A name whose hardware moved since it was granted
/// (moved_grants) is left out of its repository's view.
Result<std::vector<Change>> write_views(const RootFs& fs, FileSink& sink, const cdi::SpecIndex& index,
                                        const GrantSet& set);

/// What a change of grants says when grants.json was written and the views were not: the grants
/// stand, and `cdi views` mends the views once `why` is fixed.
std::string views_not_updated(const std::string& why);

/// After /etc/cdi changed (cdi generate, setup): takes the lock, reads grants.json and writes the
/// views; a grants file that does not parse is an error and leaves every view as it was.
/// Rewrites every repository's view from grants.json and /etc/cdi; a grants file that does not
/// parse is an error and leaves every view as it was. A name whose hardware moved since it was
/// granted (moved_grants) is left out of its repository's view.
Result<std::vector<Change>> refresh_views(const RootFs& fs, FileSink& sink);

}  // namespace rgpu::grants
