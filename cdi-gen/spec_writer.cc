#include "cdi-gen/spec_writer.h"

namespace rgpu::cdi {

std::string spec_text(const Spec& spec) { return to_json(spec).dump(2) + "\n"; }

Result<Changes> write_specs(FileSink& sink, const std::vector<Spec>& specs) {
  Changes changes;
  for (const auto& spec : specs) {
    const std::string path = spec_path(spec);
    RGPU_TRY_ASSIGN(auto change, spec.devices.empty() ? sink.remove(path) : sink.write(path, spec_text(spec), 0644));
    changes.push_back(change);
  }
  return changes;
}

}  // namespace rgpu::cdi
