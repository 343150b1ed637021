#include "runtime/granted_edits.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cdi/repo_views.h"
#include "cdi/spec_index.h"
#include "grants/store.h"

namespace rgpu::runtime {
namespace {

// A node the spec gives without its numbers gets them where the CDI library reads them: an lstat
// of its host path.
probe::NodeRef with_numbers(const RootFs& fs, probe::NodeRef node) {
  if (!node.type.empty() && (node.major != 0 || node.minor != 0)) return node;
  if (const auto st = fs.lstat(node.path)) {
    if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode)) {
      if (node.type.empty()) node.type = S_ISCHR(st->st_mode) ? "c" : "b";
      node.major = major(st->st_rdev);
      node.minor = minor(st->st_rdev);
    }
  }
  return node;
}

}  // namespace

Result<void> add_granted_edits(const RootFs& fs, const std::string& repo, admission::ContainerAllowance& a) {
  auto grants = grants::load_grants(fs);
  if (!grants) return fail("the verifier cannot read the grants: " + grants.error().message);
  const std::string view = cdi::view_dir(repo);
  if (fs.kind(view) != NodeKind::directory)
    return fail("repository \"" + repo + "\"'s CDI view " + view +
                " is missing; rebuild the views with rediacc-gpu cdi views");
  const auto index = cdi::read_spec_dir(fs.host_path(view));
  if (!index.problems.empty())
    return fail("repository \"" + repo + "\"'s CDI view cannot be read (" + index.problems.front().spec_path + ": " +
                index.problems.front().reason + "); rebuild the views with rediacc-gpu cdi views");
  for (const auto& device : index.devices) {
    if (!grants->find(repo, device.qualified_name)) continue;
    for (const auto& node : device.nodes) a.granted_nodes.push_back(with_numbers(fs, node));
    a.granted_hooks.insert(a.granted_hooks.end(), device.carried.hooks.begin(), device.carried.hooks.end());
    a.granted_mounts.insert(a.granted_mounts.end(), device.carried.mounts.begin(), device.carried.mounts.end());
  }
  return {};
}

}  // namespace rgpu::runtime
