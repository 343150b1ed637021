#pragma once
// Where mutations of files go: to the machine (atomic writes) or, for --dry-run, nowhere, with
// the same Change reported. Dry-run is a third implementation, not an `if` in every step.

#include <sys/types.h>
#include <string_view>

#include "core/atomic_file.h"

namespace rgpu {

class FileSink {
 public:
  virtual ~FileSink() = default;
  /// Writes the file whole (see write_file_atomic); `unchanged` when the bytes are already there.
  virtual Result<Change> write(std::string_view machine_path, std::string_view content, mode_t mode = 0644) = 0;
  /// Removes the file; `unchanged` when it is absent.
  virtual Result<Change> remove(std::string_view machine_path) = 0;
  /// Makes the path a symbolic link to `target` (see write_link_atomic); `unchanged` when it is one.
  virtual Result<Change> link(std::string_view machine_path, std::string_view target) = 0;
};

/// Applies every change to the machine under the root.
class MachineFileSink final : public FileSink {
 public:
  explicit MachineFileSink(const RootFs& fs) : fs_(fs) {}
  Result<Change> write(std::string_view machine_path, std::string_view content, mode_t mode) override;
  Result<Change> remove(std::string_view machine_path) override;
  Result<Change> link(std::string_view machine_path, std::string_view target) override;

 private:
  const RootFs& fs_;
};

/// Reports what would change and touches nothing.
class DryRunFileSink final : public FileSink {
 public:
  explicit DryRunFileSink(const RootFs& fs) : fs_(fs) {}
  Result<Change> write(std::string_view machine_path, std::string_view content, mode_t mode) override;
  Result<Change> remove(std::string_view machine_path) override;
  Result<Change> link(std::string_view machine_path, std::string_view target) override;

 private:
  const RootFs& fs_;
};

}  // namespace rgpu
