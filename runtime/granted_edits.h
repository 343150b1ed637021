#pragma once
// What the repository's granted CDI names put in a container, as its daemon resolves them: the
// names it holds in grants.json that its view (the daemon's /etc/cdi) defines, with the nodes
// (numbers included), hooks and mounts each carries. The view keeps out a name whose spec gained
// what its grant did not review, or whose hardware moved (grants::unreviewed, grants::grant_move).

#include <string>

#include "admission/container_judge.h"
#include "core/result.h"
#include "core/root_fs.h"

namespace rgpu::runtime {

/// The allowance's granted nodes, hooks and mounts for `repo`; an error naming the file when the
/// grants or the view cannot be read (the verifier then starts nothing).
Result<void> add_granted_edits(const RootFs& fs, const std::string& repo, admission::ContainerAllowance& allowance);

}  // namespace rgpu::runtime
