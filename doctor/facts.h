#pragma once
// What every check of `doctor` (and `metrics`, `usage`) reads, gathered once per run by the
// caller: the probe made now, the recorded inventory, the specs, the grants, the running daemons
// and their answers, NVML, and who uses each GPU.

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cdi-gen/spec_index.h"
#include "core/command_runner.h"
#include "core/root_fs.h"
#include "docker/running_daemons.h"
#include "doctor/file_reads.h"
#include "grants/grant_set.h"
#include "probe/inventory.h"
#include "usage/gpu_usage.h"
#include "usage/grant_use.h"

namespace rgpu::doctor {

/// What one running daemon said of itself, asked once for every check that needs it.
struct DaemonAnswer {
  std::string label;       ///< "dockerd 123 of repository web", "the daemon of repository web"
  bool rootless = false;   ///< a dockerd found running as a user other than root
  std::string pid = "";    ///< its process, when found in /proc; empty for one reached only by address
  nlohmann::json info;     ///< GET /info; null when it did not answer
  nlohmann::json version;  ///< GET /version; null when it did not answer
};

/// What every check reads, gathered once by the caller.
struct Facts {
  const RootFs& fs;
  probe::Inventory fresh;                      ///< a probe made now
  std::optional<probe::Inventory> recorded;    ///< inventory.json, when there is one and it parses
  std::optional<std::string> recorded_error;   ///< why inventory.json does not parse
  cdi::SpecIndex specs;                        ///< /etc/cdi as CDI consumers read it
  Result<grants::GrantSet> grants;             ///< grants.json (an error when it does not parse)
  std::vector<docker::RunningDaemon> daemons;  ///< dockerd processes found in /proc
  std::vector<std::string> probe_warnings{};   ///< what the probe made now skipped or could not read
  /// Runs programs a check asks about (runc --version, gzip -dc of a changelog); null: none run.
  CommandRunner* runner = nullptr;
  /// Every running dockerd reachable on its unix socket and every repository daemon its plugin's
  /// environment file names (ask_daemons); empty when none answered.
  std::vector<DaemonAnswer> answers = {};
  /// daemon.json, dpkg's status and os-release as read once for this run.
  FileReads files{fs};
  /// NVML's answer asked once for this run (its GPUs lost, their memory health, their processes);
  /// absent when no libnvidia-ml.so.1 answered or it was not asked (gather_nvml asks).
  std::optional<probe::NvmlReport> nvml = std::nullopt;
  /// Who uses each GPU now; absent when gather_usage was not called.
  std::optional<usage::UsageReport> usage = std::nullopt;
  /// Which grants are in use now, and strays; absent when not gathered or grants do not parse.
  std::optional<usage::UseJudgement> use = std::nullopt;
  /// The record of grant use after this run's look; absent when not gathered.
  std::optional<Result<usage::LastUse>> last_use = std::nullopt;
};

/// Fills facts.nvml when the probe found an NVIDIA GPU and NVML answers.
void gather_nvml(Facts& facts);

/// Fills facts.usage, facts.use and facts.last_use (from facts.nvml when gathered): finds who uses each GPU (each
/// repository daemon asked for its containers within `options.daemon_timeout`), and records in
/// grant-use.json which grants are in use at `now`.
void gather_usage(Facts& facts, std::chrono::system_clock::time_point now, const usage::UsageOptions& options = {});

/// Asks each daemon of `daemons`, each repository daemon the plugins' environment files name,
/// and each of `also` (label, socket path: the --docker-host doctor was given) for GET /info and
/// GET /version, once.
std::vector<DaemonAnswer> ask_daemons(const RootFs& fs, const std::vector<docker::RunningDaemon>& daemons,
                                      const std::vector<std::pair<std::string, std::string>>& also = {});

/// A string member of a daemon's answer ("Version" of GET /version); empty when absent.
std::string answer_text(const nlohmann::json& answer, const char* key);

bool has_vendor(const probe::Inventory& inventory, probe::Vendor vendor);

/// What a check that needs a GPU of `vendor` says when the probe made now finds none: "no NVIDIA
/// GPU", or, when the recorded inventory has or keeps as missing one (or the NVIDIA driver lists
/// one), that it is not found now (never "none").
std::string no_gpu_observed(const Facts& facts, probe::Vendor vendor, const std::string& kind);

}  // namespace rgpu::doctor
