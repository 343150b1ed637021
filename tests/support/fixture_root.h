#pragma once
// A whole fake machine in a temp dir: sysfs files, device links and real device nodes (mknod),
// removed when the object goes away.

#include <filesystem>
#include <string>
#include <string_view>

namespace rgpu::test {

class FixtureRoot {
 public:
  /// A fresh temp dir, removed at the end.
  FixtureRoot();
  /// `dir` (created if missing), kept at the end: for the bench's fixture maker.
  explicit FixtureRoot(std::filesystem::path dir);
  ~FixtureRoot();
  FixtureRoot(const FixtureRoot&) = delete;
  FixtureRoot& operator=(const FixtureRoot&) = delete;

  /// The host directory that stands for "/".
  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }
  /// Host path of a machine path.
  std::filesystem::path host(std::string_view machine_path) const;

  /// Writes a file, creating parent directories.
  void write(std::string_view machine_path, std::string_view content) const;
  /// Creates a directory and its parents.
  void mkdir(std::string_view machine_path) const;
  /// Creates a symlink at machine_path holding `target` verbatim (relative or absolute).
  void link(std::string_view machine_path, std::string_view target) const;
  /// Creates a character device node (mknod; the tests run as root).
  void char_node(std::string_view machine_path, unsigned major, unsigned minor) const;
  /// Lists a character driver's major in /proc/devices, as the kernel does for a driver whose
  /// major is handed out at load (nvidia-uvm, nvidia-caps, kfd); the fixed ones are listed first.
  void char_driver(unsigned major, std::string_view name) const;
  /// Reads a file back ("" when missing).
  std::string read(std::string_view machine_path) const;

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

}  // namespace rgpu::test
