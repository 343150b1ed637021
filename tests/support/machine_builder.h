#pragma once
// Writes the pieces of a fake machine the way the kernel lays them out: PCI device directories
// under /sys/devices with /sys/bus/pci/devices links, driver links, drm nodes with their
// /sys/class/drm links and /dev/dri device nodes, the KFD topology, NVIDIA's procfs, NVML.

#include <cstdint>
#include <optional>
#include <string>

#include "tests/support/fixture_root.h"

namespace rgpu::test {

struct PciSpec {
  std::string address;  ///< "0000:41:00.0"
  std::uint16_t vendor = 0;
  std::uint16_t device = 0;
  std::uint32_t class_code = 0;  ///< 0x030200
  std::optional<std::string> driver;
  std::optional<unsigned> card;    ///< N of /dev/dri/cardN
  std::optional<unsigned> render;  ///< N of /dev/dri/renderDN
};

struct KfdGpu {
  unsigned node = 0;
  std::uint32_t domain = 0;
  std::uint32_t location_id = 0;  ///< bus << 8 | devfn
  unsigned render_minor = 128;
  std::string unique_id;
  std::uint64_t memory_bytes = 0;
};

struct NvidiaProc {
  std::string address;
  std::string model;
  std::string uuid;
  unsigned minor = 0;
};

class MachineBuilder {
 public:
  explicit MachineBuilder(const FixtureRoot& root) : root_(root) {}

  void hostname(const std::string& name) const;
  void pci(const PciSpec& spec) const;
  /// What the kernel shows once a PCI device is gone (fallen off the bus, removed): no device
  /// directory, no /sys/bus/pci/devices link, no DRM nodes. /proc/driver/nvidia is left as it was:
  /// the NVIDIA driver keeps listing a GPU that fell off the bus until it is unloaded.
  void unplug(const std::string& address) const;
  /// A partition's card and render node, both owned by its amdgpu_xcp platform device.
  void partition_nodes(unsigned card, unsigned render, const std::string& platform_device) const;
  void amd_vram(const std::string& address, std::uint64_t bytes) const;
  /// current_compute_partition and current_memory_partition ("CPX", "NPS4") of an MI300 card.
  void amd_partition_modes(const std::string& address, const std::string& compute, const std::string& memory) const;
  /// numa_node and the four PCIe link files, written as the running kernel's format or the
  /// one of kernels up to 5.6 ("16 GT/s" rather than "16.0 GT/s PCIe").
  void pcie_placement(const std::string& address, int numa_node, const std::string& current_speed,
                      unsigned current_width, const std::string& max_speed, unsigned max_width) const;
  void kfd_device(unsigned major = 234) const;
  void kfd_cpu_node(unsigned node) const;
  void kfd_gpu_node(const KfdGpu& gpu) const;
  /// /proc/driver/nvidia/version with the proprietary or the open module's first line.
  void nvidia_version(const std::string& version, bool open_module) const;
  void nvidia_proc_gpu(const NvidiaProc& gpu) const;
  /// /dev/nvidiaN and /dev/nvidiactl.
  void nvidia_device_node(unsigned minor) const;
  /// Copies the fake libnvidia-ml.so.1 into `dir` and writes its fake-nvml.conf.
  void fake_nvml(const std::string& dir, const std::string& conf) const;
  void cdi_spec(const std::string& file_name, const std::string& text) const;
  void wsl(const std::string& osrelease) const;

 private:
  const FixtureRoot& root_;
};

/// "gpu <bus id>|<name>|<uuid>|<bytes>|<minor>|0xDDDDVVVV" for fake-nvml.conf.
std::string nvml_gpu_line(const std::string& bus_id, const std::string& name, const std::string& uuid,
                          std::uint64_t bytes, unsigned minor, std::uint16_t device_id);

}  // namespace rgpu::test
