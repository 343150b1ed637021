#pragma once
// GPUs the machine has lost: those the recorded inventory has, or keeps as missing (setup records a
// GPU it no longer finds), and those the NVIDIA driver still lists, gone from the PCI bus (fallen
// off the bus, Xid 79; removed), or on it but answering all-ones from its configuration space (a
// device that stopped responding). What doctor's layer 1 fails on and metrics count, until the GPU
// is back or an operator forgets it (setup --forget-gpu).

#include <string>
#include <vector>

#include "doctor/check.h"
#include "doctor/facts.h"

namespace rgpu::doctor {

struct LostGpu {
  probe::MissingGpu gpu;  ///< its identity as last known (missing_since set when recorded missing)
  std::string known;      ///< how it is known: "recorded in the inventory of …", "listed by the NVIDIA driver (…)"
  std::string why;        ///< "is no longer on the PCI bus", "answers all-ones …"
};

/// Every native GPU the recorded inventory has or keeps as missing, and every GPU the NVIDIA
/// driver lists, that the probe made now does not find on the bus (by PCI address or UUID), or
/// whose configuration space reads all-ones, or that NVML reports lost.
std::vector<LostGpu> lost_gpus(const Facts& facts);

/// One failing check per lost GPU (id gpu-present, its PCI address as subject), or one ok naming
/// how many recorded GPUs answered; a skip without a recorded inventory.
std::vector<Check> gpu_present_checks(const Facts& facts);

}  // namespace rgpu::doctor
