#include "probe/gpu_filter.h"

#include "probe/inventory.h"

namespace rgpu::probe {

bool is_gpu(const PciDevice& device, bool has_render_node) {
  const unsigned klass = device.class_code >> 8;  // base class + subclass
  if (!in_gpu_classes(device.class_code)) return false;
  if (has_render_node) return true;
  switch (vendor_of(device.vendor_id)) {
    case Vendor::nvidia:
    case Vendor::amd: return klass == 0x0300 || klass == 0x0302 || klass == 0x0380 || klass == 0x1200;
    case Vendor::intel:
      // Intel's 0x1200 devices are NPUs (intel_vpu), not GPUs.
      return klass == 0x0300 || klass == 0x0302 || klass == 0x0380;
    case Vendor::other: return false;
  }
  return false;
}

}  // namespace rgpu::probe
