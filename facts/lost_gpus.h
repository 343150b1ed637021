#pragma once
// GPUs the machine has lost: those the recorded inventory has, or keeps as missing (setup records a
// GPU it no longer finds), and those the NVIDIA driver still lists, gone from the PCI bus (fallen
// off the bus, Xid 79; removed), or on it but answering all-ones from its configuration space (a
// device that stopped responding). What doctor's layer 1 fails on and metrics count, until the GPU
// is back or an operator forgets it (setup --forget-gpu).

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/root_fs.h"
#include "probe/inventory.h"
#include "probe/missing_gpus.h"
#include "probe/nvml_library.h"

namespace rgpu::facts {

struct LostGpu {
  probe::MissingGpu gpu;  ///< its identity as last known (missing_since set when recorded missing)
  std::string known;      ///< how it is known: "recorded in the inventory of …", "listed by the NVIDIA driver (…)"
  std::string why;        ///< "is no longer on the PCI bus", "answers all-ones …"
};

/// The lost GPUs, and how far the recorded ones could be looked at.
struct GpuPresence {
  std::vector<LostGpu> lost;
  std::size_t recorded = 0;   ///< native GPUs with a PCI address the recorded inventory has
  std::size_t answering = 0;  ///< of those, the ones whose configuration space could be read now
};

/// What a GPU should be there is judged by: the machine, the probe made now, the recorded
/// inventory, NVML's answer and the GPUs the NVIDIA driver lists.
struct PresenceSources {
  const RootFs& fs;
  const probe::Inventory& fresh;
  const std::optional<probe::Inventory>& recorded;
  const std::optional<probe::NvmlReport>& nvml;
  const std::vector<probe::MissingGpu>& nvidia_driver_gpus;
};

/// Every native GPU the recorded inventory has or keeps as missing, and every GPU the NVIDIA
/// driver lists, that the probe made now does not find on the bus (by PCI address or UUID), or
/// whose configuration space reads all-ones, or that NVML reports lost.
GpuPresence gpu_presence(const PresenceSources& sources);

}  // namespace rgpu::facts
