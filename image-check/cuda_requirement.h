#pragma once
// What CUDA an image needs against what the host driver gives. Images state it in their
// environment (NVIDIA_REQUIRE_CUDA, or CUDA_VERSION in older ones); with Docker's own CDI support
// nothing checks it before the workload fails inside (the toolkit checks only on its legacy
// path), so we do it from the host, with no container.

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/version.h"
#include "probe/inventory.h"

namespace rgpu::image_check {

/// A dotted version ("12.4", "550.54.15") as core/version.h reads it, with its text; missing
/// numbers compare as 0.
struct DottedVersion {
  Version version;
  std::string text;
};
std::optional<DottedVersion> parse_dotted(std::string_view text);
int compare(const DottedVersion& a, const DottedVersion& b);

struct Constraint {
  std::string key;  ///< "cuda", "driver", "brand", "arch"
  std::string op;   ///< ">=", ">", "<=", "<", "="
  std::string value;
};

struct ImageRequirement {
  /// Any one alternative (space-separated) whose constraints (comma-separated) all hold.
  std::vector<std::vector<Constraint>> alternatives;
  std::string source;   ///< "NVIDIA_REQUIRE_CUDA=…", "CUDA_VERSION=12.4.1", or why there is none
  bool stated = false;  ///< false: the image states no CUDA requirement (or disables it)
};

/// From an image's Config.Env ("KEY=value" strings), by the toolkit's rules: every
/// NVIDIA_REQUIRE_* is ANDed, NVIDIA_DISABLE_REQUIRE=true drops them, CUDA_VERSION alone means
/// cuda>=<major.minor>.
ImageRequirement requirement_from_env(const std::vector<std::string>& env);

struct HostCuda {
  std::optional<DottedVersion> driver;  ///< "550.54.15"; absent without an NVIDIA driver
  std::optional<DottedVersion> cuda;    ///< the highest CUDA it supports, "12.4"
  std::string cuda_source;              ///< "NVML" or "the driver branch table"
  bool cuda_at_least = false;           ///< from the table, for a driver branch newer than its last row
};

/// One row of the table: the driver a CUDA minor's GA release needs (Linux x86_64).
struct CudaFloor {
  const char* cuda;
  const char* driver;
};
/// Every row, highest CUDA first, with its source beside it in cuda_requirement.cc.
std::span<const CudaFloor> cuda_driver_floors();

/// The host: the CUDA version NVML reported ("12.4"), else the highest CUDA whose minimum driver
/// the driver version reaches.
HostCuda host_cuda(const std::optional<std::string>& driver_version, const std::optional<std::string>& nvml_cuda);

/// The host of a probed inventory: its NVIDIA driver's version and NVML's CUDA version.
HostCuda host_cuda(const probe::Inventory& inventory);

/// The lowest driver for a CUDA major.minor (its GA release's, Linux x86_64), as a hint; absent
/// for a CUDA above the table's last row.
std::optional<std::string> minimum_driver_for(const DottedVersion& cuda);

struct CudaVerdict {
  /// unknown: the image needs a CUDA above the table's last row and only the table speaks for the driver.
  enum class Kind { ok, forward_compat, too_new, no_driver, not_stated, unknown } kind = Kind::not_stated;
  std::string text;  ///< one sentence; for too_new it names both versions and the two ways out
};

CudaVerdict judge(const std::string& image, const ImageRequirement& req, const HostCuda& host);

/// The whole check for an image the daemon at `socket` has; a daemon that cannot say is an error.
Result<CudaVerdict> check_image_cuda(const probe::Inventory& inventory, const std::string& socket,
                                     const std::string& image);

}  // namespace rgpu::image_check
