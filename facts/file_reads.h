#pragma once
// Machine files several checks read (daemon.json, dpkg's status, os-release), each read once in
// a doctor or metrics run: every check sees the same bytes, and a run costs one read per file.

#include <map>
#include <optional>
#include <string>

#include "core/root_fs.h"

namespace rgpu::facts {

class FileReads {
 public:
  explicit FileReads(const RootFs& fs) : fs_(&fs) {}
  /// RootFs::read_optional of `machine_path`, the first time; the same answer after.
  const Result<std::optional<std::string>>& read(const std::string& machine_path) const;

 private:
  const RootFs* fs_;
  mutable std::map<std::string, Result<std::optional<std::string>>> cache_;
};

}  // namespace rgpu::facts
