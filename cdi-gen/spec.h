#pragma once
// The CDI spec model for the specs we write: device nodes only, since our kinds need no vendor
// user-space. (Reading anyone's spec is spec_index.h's job.)

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rgpu::cdi {

struct DeviceNode {
  std::string path;  ///< the node on the host, and where it appears in the container
  char type = 'c';   ///< 'c' or 'b', as found on the machine
  unsigned major = 0;
  unsigned minor = 0;

  bool operator==(const DeviceNode&) const = default;
};

struct Device {
  std::string name;  ///< "renderD128", "gpu0", "all"
  std::vector<DeviceNode> nodes;

  bool operator==(const Device&) const = default;
};

struct Spec {
  std::string vendor;  ///< "rediacc.io"
  std::string klass;   ///< "dri", "amd"
  std::vector<Device> devices;

  std::string kind() const { return vendor + "/" + klass; }
  bool operator==(const Spec&) const = default;
};

/// The lowest cdiVersion that supports what the spec uses, by the reference Go library's rules
/// (MinimumRequiredVersion): 0.6.0 for a dot in the class, 0.5.0 for a device name that starts
/// with a digit, else 0.3.0, which every consumer from Docker 25 and Podman 4 on reads.
std::string minimum_cdi_version(const Spec& spec);

/// The spec as CDI JSON, cdiVersion included.
nlohmann::ordered_json to_json(const Spec& spec);

/// "/etc/cdi/rediacc.io-dri.json": the Go library's GenerateSpecName, vendor-class.
std::string spec_path(const Spec& spec);

}  // namespace rgpu::cdi
