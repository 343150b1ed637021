#pragma once
// Recording fakes of the programs setup runs (apt-get, dnf, yum, rpm, zypper, curl, gpg,
// nvidia-ctk, nvidia-modprobe, systemctl, udevadm, chroot) and doctor reads (journalctl: an empty kernel log),
// written as small shell scripts into a bin directory that the tests put first on PATH. Each
// appends its command line to a log; the package managers
// "install" into the machine they were pointed at (chroot ROOT, --installroot, --root): dpkg's
// status file or a fake rpm database, and nvidia-ctk in its /usr/bin.

#include <string>
#include <vector>

#include "tests/support/fixture_root.h"
#include "tests/support/run_binary.h"

namespace rgpu::test {

class FakeTools {
 public:
  /// Fakes in a fresh temp dir, removed at the end.
  FakeTools();
  /// Fakes in `dir`, kept: for bench/ scripts.
  explicit FakeTools(const std::filesystem::path& dir);
  /// PATH with the fakes first, plus the variables they read.
  Env env() const;
  /// Every command the fakes saw since the last clear, one line each ("apt-get update").
  std::vector<std::string> calls() const;
  void clear_calls() const;
  /// Makes `tool` exit 1 with a message (when its arguments contain `when`).
  void fail(const std::string& tool, const std::string& when = "") const;
  /// Marks the toolkit as installed in `root` at `version` ("1.20.0-1"), for apt and rpm alike.
  void installed(const FixtureRoot& root, const std::string& version) const;
  std::string bin_dir() const { return dir_.host("/bin").string(); }

 private:
  void write_fakes() const;
  FixtureRoot dir_;
};

/// True when one call starts with `prefix`.
bool called(const std::vector<std::string>& calls, const std::string& prefix);

}  // namespace rgpu::test
