#pragma once
// Fleet signals in node_exporter's textfile-collector format: what an operator's "GPU expected
// but unused" alert is built on.

#include <chrono>
#include <string>
#include <vector>

#include "doctor/check.h"
#include "facts/facts.h"

namespace rgpu::metrics {

/// The metrics text: GPUs by vendor, the inventory's age, spec drift, each doctor check's worst
/// status, failed checks, grants. Every family has HELP and TYPE; label sets are unique.
std::string text(const facts::Facts& facts, const std::vector<doctor::Check>& checks,
                 std::chrono::system_clock::time_point now);

}  // namespace rgpu::metrics
