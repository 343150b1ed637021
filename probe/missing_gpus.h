#pragma once
// GPUs the machine had and the probe no longer finds on the PCI bus: carried from the recorded
// inventory and added from the NVIDIA driver's own list, so that no writer of the inventory
// (setup at every boot, probe, the hotplug unit) forgets a GPU that fell off the bus. Only an
// operator forgets one (setup --forget-gpu), or its return to the bus.

#include <string>
#include <vector>

#include "core/result.h"
#include "core/root_fs.h"
#include "probe/inventory.h"

namespace rgpu::probe {

/// Where the NVIDIA driver lists each GPU it holds, one directory per PCI address.
inline constexpr const char* kNvidiaDriverGpus = "/proc/driver/nvidia/gpus";

/// The GPUs the NVIDIA driver lists (/proc/driver/nvidia/gpus/<address>/information), by identity
/// (missing_since empty); none when the driver is not loaded. The driver keeps listing a GPU that
/// fell off the bus until it is unloaded.
std::vector<MissingGpu> nvidia_driver_gpus(const RootFs& fs);

/// Fills `fresh.missing_gpus`: every native GPU `recorded` had or recorded missing, and every GPU of
/// `driver_listed`, that `fresh` does not have on the bus (by PCI address, or by UUID for a card
/// moved to another slot). Each keeps the time it was first recorded missing, else is missing
/// since `fresh.generated_at`. `recorded` is null when there is none.
void keep_missing_gpus(Inventory& fresh, const Inventory* recorded, const std::vector<MissingGpu>& driver_listed);

/// keep_missing_gpus with the inventory recorded under `fs` and the NVIDIA driver's list there. A
/// recorded file that does not parse adds nothing here: writing is refused later, naming it.
void note_missing_gpus(const RootFs& fs, Inventory& fresh);

/// Forgets the missing GPU at `pci_address` (an operator removed it on purpose). Refused, naming
/// the address and what to do, when it is on the bus, when the NVIDIA driver still lists it (a
/// later probe would find it missing again), or when `fresh` has no such missing GPU.
Result<void> forget_missing_gpu(const RootFs& fs, Inventory& fresh, const std::string& pci_address);

/// "0000:41:00.0, 0001:c1:00.0": the addresses of `missing`, for one-line outcomes.
std::string missing_addresses(const std::vector<MissingGpu>& missing);

}  // namespace rgpu::probe
