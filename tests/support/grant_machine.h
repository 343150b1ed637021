#pragma once
// A fixture machine as the grant tests use it: its root, the sink that writes there, and the
// index of its CDI specs, with grant() as `rediacc-gpu grant` calls the store.

#include <chrono>
#include <string>

#include "cdi/spec_index.h"
#include "core/file_sink.h"
#include "core/root_fs.h"
#include "grants/store.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"

namespace rgpu::test {

struct GrantMachine {
  FixtureRoot root;
  RootFs fs{root.path()};
  MachineFileSink sink{fs};
  cdi::SpecIndex index;
  SystemTime now = std::chrono::system_clock::now();

  /// `build` makes the machine (default: two NVIDIA datacenter GPUs with NVML).
  explicit GrantMachine(void (*build)(const FixtureRoot&) = [](const FixtureRoot& r) {
    two_nvidia_datacenter(r, true);
  }) {
    build(root);
    reindex();
  }
  /// Reads the specs again, after a test changed them.
  void reindex() { index = cdi::read_spec_index(fs); }
  Result<grants::GrantOutcome> grant(const std::string& repo, const std::string& device, bool exclusive = false) {
    return grants::add_grant(fs, sink, index, repo, device, exclusive, now);
  }
};

}  // namespace rgpu::test
