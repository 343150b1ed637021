#pragma once
// One finding of `doctor`, shaped like a task of the operator's playbook: what was seen, what it
// means, and what to do. Layers follow the playbook's order, so the first failing layer is the
// broken link: 1 host driver, 2 device nodes, 3 runtime integration, 4 CDI specs and inventory,
// 5 grants and policy, 6 container. What the checks read is in facts.h.

#include <string>
#include <utility>

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

const char* status_name(Status status);

}  // namespace rgpu::doctor
