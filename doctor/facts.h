#pragma once
// What every check reads: the facts of the run (facts/facts.h), gathered once by the caller,
// under the names every layer's checks use; and the words checks share about them.

#include <string>

#include "facts/facts.h"

namespace rgpu::doctor {

// The checks of every layer read these by their short names.
using facts::answer_text;
using facts::DaemonAnswer;
using facts::Facts;
using facts::has_vendor;

/// What a check that needs a GPU of `vendor` says when the probe made now finds none: "no NVIDIA
/// GPU", or, when the recorded inventory has or keeps as missing one (or the NVIDIA driver lists
/// one), that it is not found now (never "none").
std::string no_gpu_observed(const Facts& facts, probe::Vendor vendor, const std::string& kind);

}  // namespace rgpu::doctor
