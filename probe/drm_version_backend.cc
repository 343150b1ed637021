#include "probe/drm_version_backend.h"

#include <fcntl.h>
#include <unistd.h>
#include <xf86drm.h>

namespace rgpu::probe {

Result<void> DrmVersionBackend::enrich(const RootFs& fs, ProbeReport& report) const {
  Inventory& inv = report.inventory;
  if (!fs.is_host_root()) return {};
  for (auto& gpu : inv.gpus) {
    if (!gpu.render_node || (gpu.driver && gpu.driver_version)) continue;
    int fd = ::open(gpu.render_node->c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) continue;  // not ours to open (permissions, a container): the fact stays unknown
    if (drmVersionPtr v = drmGetVersion(fd)) {
      if (!gpu.driver && v->name) gpu.driver = std::string(v->name, static_cast<size_t>(v->name_len));
      if (!gpu.driver_version) {
        gpu.driver_version = std::to_string(v->version_major) + "." + std::to_string(v->version_minor) + "." +
                             std::to_string(v->version_patchlevel);
      }
      drmFreeVersion(v);
    }
    ::close(fd);
  }
  return {};
}

}  // namespace rgpu::probe
