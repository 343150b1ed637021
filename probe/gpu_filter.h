#pragma once
// Which PCI devices are GPUs. A display-class device is often not one (a BMC's ASPEED or
// Matrox VGA, QEMU's cirrus), and a GPU is not always display-class (MI300X is 0x1200).

#include "probe/pci_scan.h"

namespace rgpu::probe {

/// True for a GPU: a display (0x03) or processing-accelerator (0x12) device that has a render
/// node, or a GPU vendor's compute-capable class (0x0300, 0x0302, 0x0380; 0x1200 for AMD and
/// NVIDIA) even with no driver bound (a DGX whose nvidia module is not loaded).
bool is_gpu(const PciDevice& device, bool has_render_node);

}  // namespace rgpu::probe
