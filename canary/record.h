#pragma once
// A repository's canary results, kept in /var/lib/rediacc/gpu/canary/REPO.json: the last result
// of each name, with the last success kept through failures, for doctor, metrics and the next run.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "canary/canary.h"
#include "core/file_sink.h"
#include "core/result.h"
#include "core/root_fs.h"

namespace rgpu::canary {

/// One result as `canary -o json` prints it and the record keeps it: device, image, ok, stage,
/// detail, at, seconds, last_success (null when none).
nlohmann::ordered_json canary_json(const CanaryResult& result);

/// Where a repository's results are kept: /var/lib/rediacc/gpu/canary/REPO.json.
std::string canary_record_path(const std::string& repo);

/// Every result kept for `repo`, by device; empty when none, an error when the file does not parse.
Result<std::vector<CanaryResult>> read_canary_results(const RootFs& fs, const std::string& repo);

/// Every repository with a record, sorted.
std::vector<std::string> canary_repos(const RootFs& fs);

/// One repository's record as read: its results, or why they cannot be read.
struct RepoRecord {
  std::string repo;
  Result<std::vector<CanaryResult>> results;
};

/// Every repository's record (canary_repos), each read once.
std::vector<RepoRecord> read_canary_records(const RootFs& fs);

/// Keeps `results` (one per device, replacing the earlier ones; last_success carried over from
/// the earlier one when this run failed) in the repository's record read from `fs`, written
/// through `sink` (the canary command's own change). Returns every result the record keeps.
Result<std::vector<CanaryResult>> record_canary(FileSink& sink, const RootFs& fs, const std::string& repo,
                                                std::vector<CanaryResult> results);

}  // namespace rgpu::canary
