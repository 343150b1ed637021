#pragma once
// Fills the inventory's grantable CDI names from the machine's spec index.

#include "cdi-gen/spec_index.h"
#include "probe/inventory.h"

namespace rgpu::cdi {

/// Top level: every name the index holds. Per GPU: the names whose device nodes include one of
/// the GPU's own nodes (its render or card node, /dev/nvidiaN, /dev/dxg).
void attach_cdi_names(probe::Inventory& inventory, const SpecIndex& index);

}  // namespace rgpu::cdi
