#pragma once
// Changing grants: each operation reads, checks and writes under the machine-wide grants lock,
// so concurrent grant commands can never both win an exclusive name.

#include <string>
#include <vector>

#include "cdi/reach.h"
#include "cdi/spec_index.h"
#include "core/change.h"
#include "core/file_sink.h"
#include "core/root_fs.h"
#include "core/time_text.h"
#include "grants/grant_set.h"

namespace rgpu::grants {

/// The machine's grants; no file yet means none. A file that does not parse is an error.
Result<GrantSet> load_grants(const RootFs& fs);

struct GrantOutcome {
  Change change;              ///< grants.json: `unchanged` when the grant was already (or never) there
  std::vector<Change> views;  ///< the repositories' views, written under the same lock
};

/// What the operator has reviewed and accepts with a grant.
struct GrantReview {
  bool allow_hooks = false;        ///< hooks outside the allow-list (cdi/hook_policy.h)
  bool allow_net_devices = false;  ///< host network interfaces moved into the container
};

/// Grants `device` to `repo`. Refused, recording nothing: a name no spec in /etc/cdi defines
/// (with the closest names that do), a name that reaches a GPU (or partition) another repository
/// holds exclusively through any name, an exclusive grant while another repository holds any name
/// reaching it (cdi::ReachMap, over the recorded inventory), and a name that runs a hook outside
/// the allow-list or moves a net device, unless `review` accepts it (what was accepted is recorded).
/// The views follow under the same lock, as for remove_grant.
Result<GrantOutcome> add_grant(const RootFs& fs, FileSink& sink, const cdi::SpecIndex& index, const std::string& repo,
                               const std::string& device, bool exclusive, SystemTime now,
                               const GrantReview& review = {});

/// The spec's device for `device` when it may be granted; otherwise why not: no spec defines it
/// (with the closest names that some spec does), or it cannot be granted as it is.
Result<const cdi::IndexedDevice*> grantable(const cdi::SpecIndex& index, const std::string& device);

/// What a grant of `device` records as reviewed, when `review` accepts all it needs (hooks
/// outside the allow-list, net devices); otherwise the one-sentence refusal naming what to pass.
Result<std::vector<std::string>> accepted_review(const RootFs& fs, const cdi::IndexedDevice& device,
                                                 const GrantReview& review);

/// Why `other` (a grant of another repository) stops `device` from being granted beside it, as
/// one clause naming the holder and the name it holds; empty when it does not: only a name that
/// reaches the same GPU or partition (through the names now, or the hardware `other` recorded;
/// `hardware` is what `device` reaches now), held exclusively or asked for exclusively, stops it.
std::string exclusivity_conflict(const Grant& other, const std::string& device, bool exclusive,
                                 const std::vector<std::string>& hardware, const cdi::ReachMap& reach);

/// Sorts by repository, then device: the order the grants file keeps.
void sort_grants(GrantSet& set);

/// What `device` carries that a grant must have reviewed (hooks outside the allow-list, then net
/// devices), sorted: what a grant records as `reviewed`, and what the gate compares with it.
std::vector<std::string> review_items(const RootFs& fs, const cdi::IndexedDevice& device);

/// Of what a name carries now (review_items), what its grant did not review: the spec changed
/// after the grant. The gate refuses the name while this is not empty, and no view maps it.
std::vector<std::string> unreviewed(const Grant& grant, const std::vector<std::string>& carried_now);

/// Revokes it; `unchanged` when `repo` held no such grant. The views follow under the same lock
/// (also then: a view left stale by an earlier failure is mended); when grants.json was written and
/// the views could not be, the error says so (views_not_updated).
Result<GrantOutcome> remove_grant(const RootFs& fs, FileSink& sink, const std::string& repo, const std::string& device);

/// The GPU-own nodes a device maps, sorted: what a grant records it reached.
std::vector<std::string> reached_nodes(const cdi::IndexedDevice& device);

/// The reach rule over this machine: its specs and its recorded inventory (nodes alone when there
/// is none, or it does not parse).
cdi::ReachMap machine_reach(const RootFs& fs, const cdi::SpecIndex& index);

struct AliasHolder {
  std::string repo;
  std::string alias;
};

/// Repositories other than `repo` that hold an alias of `device`: they reach the same GPU.
std::vector<AliasHolder> alias_holders(const GrantSet& set, const cdi::ReachMap& reach, const std::string& repo,
                                       const std::string& device);

/// Up to `n` defined names closest to `device` by edit distance, closest first.
std::vector<std::string> closest_names(const cdi::SpecIndex& index, const std::string& device, size_t n = 3);

}  // namespace rgpu::grants
