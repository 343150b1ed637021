#pragma once
// Probing a fixture root through the same pipeline the CLI runs.

#include <catch2/catch.hpp>

#include "probe/machine_probe.h"
#include "tests/support/fixture_root.h"

namespace rgpu::test {

inline probe::ProbeReport probe_fixture(const FixtureRoot& root) {
  RootFs fs(root.path());
  auto report = probe::probe_machine(fs);
  if (!report) FAIL(report.error().message);
  return *report;
}

inline const probe::Gpu& gpu_at(const probe::Inventory& inv, const std::string& address) {
  for (const auto& g : inv.gpus) {
    if (g.pci_address == address) return g;
  }
  FAIL("no GPU at " << address);
  throw;  // unreachable: FAIL throws
}

}  // namespace rgpu::test
