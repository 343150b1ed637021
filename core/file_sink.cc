#include "core/file_sink.h"

namespace rgpu {

Result<Change> MachineFileSink::write(std::string_view machine_path, std::string_view content, mode_t mode) {
  return write_file_atomic(fs_, machine_path, content, mode);
}

Result<Change> MachineFileSink::remove(std::string_view machine_path) { return remove_file(fs_, machine_path); }

Result<Change> MachineFileSink::link(std::string_view machine_path, std::string_view target) {
  return write_link_atomic(fs_, machine_path, target);
}

Result<Change> DryRunFileSink::write(std::string_view machine_path, std::string_view content, mode_t) {
  auto existing = fs_.read_file(machine_path);
  const bool same = existing && *existing == content;
  return Change{same ? Change::Kind::unchanged : Change::Kind::write, std::string(machine_path),
                same ? "" : std::to_string(content.size()) + " bytes"};
}

Result<Change> DryRunFileSink::remove(std::string_view machine_path) {
  const bool present = fs_.kind(machine_path) != NodeKind::missing;
  return Change{present ? Change::Kind::remove : Change::Kind::unchanged, std::string(machine_path), ""};
}

Result<Change> DryRunFileSink::link(std::string_view machine_path, std::string_view target) {
  const bool same = read_link(fs_, machine_path) == std::string(target);
  return Change{same ? Change::Kind::unchanged : Change::Kind::write, std::string(machine_path),
                same ? "" : "link to " + std::string(target)};
}

}  // namespace rgpu
