#pragma once
// A fixture machine as setup leaves an NVIDIA host, for the tests of what reads a set-up machine
// (doctor, metrics).

#include "tests/support/fixture_root.h"

namespace rgpu::test {

/// two_nvidia_datacenter with NVML as setup leaves it: toolkit, redirect, our specs, inventory,
/// persistenced.
void healthy_nvidia(const FixtureRoot& root);

}  // namespace rgpu::test
