#include "cdi-gen/spec.h"

#include <cctype>

#include "cdi/spec_index.h"
#include "core/machine_paths.h"

namespace rgpu::cdi {

std::string minimum_cdi_version(const Spec& spec) {
  if (spec.klass.find('.') != std::string::npos) return "0.6.0";
  for (const auto& d : spec.devices) {
    if (!d.name.empty() && std::isdigit(static_cast<unsigned char>(d.name[0]))) return "0.5.0";
  }
  return "0.3.0";
}

nlohmann::ordered_json to_json(const Spec& spec) {
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  for (const auto& d : spec.devices) {
    nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
    for (const auto& n : d.nodes) {
      nodes.push_back({{"path", n.path}, {"type", std::string(1, n.type)}, {"major", n.major}, {"minor", n.minor}});
    }
    devices.push_back({{"name", d.name}, {"containerEdits", {{"deviceNodes", nodes}}}});
  }
  return {{"cdiVersion", minimum_cdi_version(spec)}, {"kind", spec.kind()}, {"devices", devices}};
}

std::string spec_path(const Spec& spec) {
  return std::string(paths::kCdiSpecDir) + "/" + spec.vendor + "-" + spec.klass + ".json";
}

}  // namespace rgpu::cdi
