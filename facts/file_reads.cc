#include "facts/file_reads.h"

namespace rgpu::facts {

const Result<std::optional<std::string>>& FileReads::read(const std::string& machine_path) const {
  auto it = cache_.find(machine_path);
  if (it == cache_.end()) it = cache_.emplace(machine_path, fs_->read_optional(machine_path)).first;
  return it->second;
}

}  // namespace rgpu::facts
