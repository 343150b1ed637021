#pragma once
// Fills the inventory's grantable CDI names from the machine's spec index.

#include "cdi/spec_index.h"
#include "probe/inventory.h"

namespace rgpu::cdi {

/// Top level: every name the index holds. Per GPU: the names that reach it (cdi::reach_same_gpu
/// with its own nodes). On a GPU split into partitions, a name that reaches only some partitions
/// is listed under each of them, not under the GPU; the GPU keeps the names that reach it whole.
void attach_cdi_names(probe::Inventory& inventory, const SpecIndex& index);

}  // namespace rgpu::cdi
