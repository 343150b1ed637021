#pragma once
// One finding of `doctor`, shaped like a task of the operator's playbook: what was seen, what it
// means, and what to do. Layers follow the playbook's order, so the first failing layer is the
// broken link: 1 host driver, 2 device nodes, 3 runtime integration, 4 CDI specs and inventory,
// 5 grants and policy.

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
#include "doctor/gpu_usage.h"
#include "doctor/grant_use.h"
#include "grants/grant_set.h"
#include "probe/inventory.h"

namespace rgpu::doctor {

enum class Status { ok, warn, fail, skip };

/// The playbook's layers, in its order: the first failing one is the broken link.
enum class Layer { host_driver = 1, device_nodes = 2, runtime = 3, specs = 4, policy = 5, container = 6 };

/// 1 to 6, as `doctor` prints and metrics label them.
int layer_number(Layer layer);

/// "host driver", "device nodes", "runtime integration", "specs and inventory", "grants and
/// policy", "container".
const char* layer_name(Layer layer);

struct Check {
  std::string id;  ///< stable, for scripts and metrics: "nvidia-driver" (check_id:: for those others read)
  Layer layer = Layer::host_driver;
  Status status = Status::ok;
  std::string observed;
  std::string meaning;
  std::string decision;  ///< what to do; empty when nothing is
  /// What a check that repeats is about (a PCI address, a repository); empty for one-off checks.
  std::string subject = {};
  /// What it read or asked to say so: "/proc/driver/nvidia/version", "NVML (libnvidia-ml.so.1)",
  /// "GET /info of dockerd 4242". Every ok names it, so a pass never claims more than was looked at.
  std::string evidence = {};

  /// The same check, about `what` (a PCI address, a repository, a container).
  Check about(std::string what) &&;
  /// The same check with what it means and what to do (a skip or an ok that still says so).
  Check because(std::string why, std::string what_to_do) &&;
  /// The same check, naming what it read (for a warning or failure; an ok names it when made).
  Check from(std::string what) &&;
};

/// What an ok check read or asked: explicit, so an ok cannot be written without it.
struct Evidence {
  explicit Evidence(std::string read) : what(std::move(read)) {}
  std::string what;
};

/// The checks of one layer, made by what they found:
/// `kCheck.ok("nvidia-driver", "550.54.15", Evidence("/proc/driver/nvidia/version"))`,
/// `kCheck.fail(id, observed, meaning, decision)`.
struct CheckMaker {
  Layer layer;
  Check ok(std::string id, std::string observed, Evidence from) const;
  Check skip(std::string id, std::string observed) const;
  Check warn(std::string id, std::string observed, std::string meaning, std::string decision) const;
  Check fail(std::string id, std::string observed, std::string meaning, std::string decision) const;
  /// For a status decided at run time (a warning or a failure by whose file it is).
  Check with(Status status, std::string id, std::string observed, std::string meaning, std::string decision) const;
};

/// Ids that other code reads (metrics' spec drift): one spelling, so a typo cannot zero a metric.
namespace check_id {
inline constexpr const char* kNvidiaSpec = "nvidia-spec";
inline constexpr const char* kRediaccSpecs = "rediacc-specs";
}  // namespace check_id

/// The version of `doctor -o json`'s document: 2 made it an object with a summary and subjects.
inline constexpr int kDoctorJsonSchema = 2;

/// What one running daemon said of itself, asked once for every check that needs it.
struct DaemonAnswer {
  std::string label;       ///< "dockerd 123 of repository web", "the daemon of repository web"
  bool rootless = false;   ///< a dockerd found running as a user other than root
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
  std::optional<UsageReport> usage = std::nullopt;
  /// Which grants are in use now, and strays; absent when not gathered or grants do not parse.
  std::optional<UseJudgement> use = std::nullopt;
  /// The record of grant use after this run's look; absent when not gathered.
  std::optional<Result<LastUse>> last_use = std::nullopt;
};

/// Fills facts.nvml when the probe found an NVIDIA GPU and NVML answers.
void gather_nvml(Facts& facts);

/// Fills facts.usage, facts.use and facts.last_use (from facts.nvml when gathered): finds who uses each GPU (each
/// repository daemon asked for its containers within `options.daemon_timeout`), and records in
/// grant-use.json which grants are in use at `now`.
void gather_usage(Facts& facts, std::chrono::system_clock::time_point now, const UsageOptions& options = {});

/// Asks each daemon of `daemons`, each repository daemon the plugins' environment files name,
/// and each of `also` (label, socket path: the --docker-host doctor was given) for GET /info and
/// GET /version, once.
std::vector<DaemonAnswer> ask_daemons(const RootFs& fs, const std::vector<docker::RunningDaemon>& daemons,
                                      const std::vector<std::pair<std::string, std::string>>& also = {});

const char* status_name(Status status);

bool has_vendor(const probe::Inventory& inventory, probe::Vendor vendor);

/// What a check that needs a GPU of `vendor` says when the probe made now finds none: "no NVIDIA
/// GPU", or, when the recorded inventory has one, that it is not found now (never "none").
std::string no_gpu_observed(const Facts& facts, probe::Vendor vendor, const std::string& kind);

/// What names one GPU in a check's subject: its PCI address, else its UUID, else its name.
std::string gpu_subject(const probe::Gpu& gpu);

}  // namespace rgpu::doctor
