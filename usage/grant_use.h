#pragma once
// What the processes using GPUs say about the grants: which grants are in use now, which
// repository's process holds hardware its repository holds no grant for (a container that kept
// its device after a revoke, or reached it another way), and when each grant was last seen in
// use, kept across runs in /var/lib/rediacc/gpu/grant-use.json (written by the runs that own it,
// doctor's and metrics', through their FileSink).

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cdi/spec_index.h"
#include "core/file_sink.h"
#include "core/result.h"
#include "core/root_fs.h"
#include "grants/grant_set.h"
#include "usage/gpu_usage.h"

namespace rgpu::usage {

/// A repository's process on hardware none of its grants covers.
struct StrayUse {
  GpuProcess process;
  std::string gpu;                    ///< the GPU's PCI address (or UUID, or name)
  std::vector<std::string> hardware;  ///< what it holds that no grant of its repository covers
};

struct UseJudgement {
  std::map<std::pair<std::string, std::string>, bool> in_use;  ///< (repo, device) of every grant -> used now
  std::vector<StrayUse> strays;
  std::vector<std::string> unreadable;  ///< "pid 42 (/dev/nvidia3): why" where hardware could not be told
};

/// Judges `usage` against `grants`: a grant is in use when a process of its repository holds a
/// node whose hardware (probe::HardwareReader, read now) the grant's recorded hardware covers (a
/// grant without it: what its name reaches now, per `specs`).
UseJudgement judge_use(const RootFs& fs, const grants::GrantSet& grants, const cdi::SpecIndex& specs,
                       const UsageReport& usage);

/// When each grant was last seen in use, and since when anyone has been looking: a grant never
/// seen in use has been idle at most since the later of its grant and the record's start.
struct LastUse {
  std::optional<std::chrono::system_clock::time_point> since;                                 ///< absent: no record yet
  std::map<std::pair<std::string, std::string>, std::chrono::system_clock::time_point> seen;  ///< (repo, device)
};

/// grant-use.json as written; empty when absent, an error when it does not parse.
Result<LastUse> read_last_use(const RootFs& fs);

/// The record after a look at `now`: `now` for every grant in use, grants that are gone dropped.
/// `changed` only when that begins the record, drops a grant or moves a time by more than
/// `granularity` (a scrape every 15 s does not rewrite the file every 15 s).
struct UseRecord {
  LastUse last;
  bool changed = false;
};
UseRecord updated_use(LastUse last, const UseJudgement& judgement, std::chrono::system_clock::time_point now,
                      std::chrono::seconds granularity = std::chrono::minutes(5));

/// Writes `record` as grant-use.json through `sink`.
Result<Change> write_use_record(FileSink& sink, const LastUse& record);

}  // namespace rgpu::usage
