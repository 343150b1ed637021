#include "tests/support/machine_builder.h"
#include "tests/support/build_paths.h"

#include <cstdio>
#include <filesystem>

namespace rgpu::test {
namespace {

constexpr unsigned kNvidiaUvmMajor = 508;

std::string hex(unsigned v, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*x", digits, v);
  return buf;
}

std::string device_dir(const std::string& address) {
  return "/sys/devices/pci" + address.substr(0, address.find(':')) + ":00/" + address;
}

void drm_node(const FixtureRoot& root, const std::string& dev_dir, const std::string& name, unsigned minor) {
  const std::string node_dir = dev_dir + "/drm/" + name;
  root.write(node_dir + "/dev", "226:" + std::to_string(minor) + "\n");
  root.link(node_dir + "/device", "../../../" + dev_dir.substr(dev_dir.rfind('/') + 1));
  root.link("/sys/class/drm/" + name, "../.." + node_dir.substr(4));  // strip "/sys"
  root.link("/sys/dev/char/226:" + std::to_string(minor), "../.." + node_dir.substr(4));
  root.char_node("/dev/dri/" + name, 226, minor);
}

// The first 64 bytes of configuration space, as sysfs's `config` file holds them: lspci reads it
// (the bench compares against lspci on these trees); the probe does not.
std::string config_header(const PciSpec& spec) {
  std::string c(64, '\0');
  c[0] = static_cast<char>(spec.vendor & 0xff);
  c[1] = static_cast<char>(spec.vendor >> 8);
  c[2] = static_cast<char>(spec.device & 0xff);
  c[3] = static_cast<char>(spec.device >> 8);
  c[9] = static_cast<char>(spec.class_code & 0xff);
  c[10] = static_cast<char>((spec.class_code >> 8) & 0xff);
  c[11] = static_cast<char>(spec.class_code >> 16);
  c[14] = (spec.class_code >> 8) == 0x0604 ? 1 : 0;  // header type: bridges are type 1
  return c;
}

}  // namespace

std::string nvml_gpu_line(const std::string& bus_id, const std::string& name, const std::string& uuid,
                          std::uint64_t bytes, unsigned minor, std::uint16_t device_id) {
  char id[16];
  std::snprintf(id, sizeof id, "0x%04x10de", device_id);
  return "gpu " + bus_id + "|" + name + "|" + uuid + "|" + std::to_string(bytes) + "|" + std::to_string(minor) + "|" +
         id + "\n";
}

void MachineBuilder::hostname(const std::string& name) const { root_.write("/etc/hostname", name + "\n"); }

void MachineBuilder::pci(const PciSpec& spec) const {
  const std::string dir = device_dir(spec.address);
  root_.write(dir + "/vendor", hex(spec.vendor, 4) + "\n");
  root_.write(dir + "/device", hex(spec.device, 4) + "\n");
  root_.write(dir + "/class", hex(spec.class_code, 6) + "\n");
  root_.write(dir + "/revision", "0x00\n");
  root_.write(dir + "/config", config_header(spec));
  root_.link("/sys/bus/pci/devices/" + spec.address, "../../.." + dir.substr(4));
  if (spec.driver) {
    root_.mkdir("/sys/bus/pci/drivers/" + *spec.driver);
    root_.link(dir + "/driver", "../../../bus/pci/drivers/" + *spec.driver);
  }
  if (spec.card) drm_node(root_, dir, "card" + std::to_string(*spec.card), *spec.card);
  if (spec.render) drm_node(root_, dir, "renderD" + std::to_string(*spec.render), *spec.render);
}

void MachineBuilder::unplug(const std::string& address) const {
  namespace fs = std::filesystem;
  const std::string dir = device_dir(address);
  if (fs::is_directory(root_.host(dir + "/drm"))) {
    for (const auto& node : fs::directory_iterator(root_.host(dir + "/drm"))) {
      const std::string name = node.path().filename().string();
      fs::remove(root_.host("/sys/class/drm/" + name));
      auto number = root_.read(dir + "/drm/" + name + "/dev");
      if (!number.empty() && number.back() == '\n') number.pop_back();
      if (!number.empty()) fs::remove(root_.host("/sys/dev/char/" + number));
      fs::remove(root_.host("/dev/dri/" + name));
    }
  }
  fs::remove_all(root_.host(dir));
  fs::remove(root_.host("/sys/bus/pci/devices/" + address));
}

void MachineBuilder::partition_nodes(unsigned card, unsigned render, const std::string& platform_device) const {
  const std::string dir = "/sys/devices/platform/" + platform_device;
  drm_node(root_, dir, "card" + std::to_string(card), card);
  drm_node(root_, dir, "renderD" + std::to_string(render), render);
}

void MachineBuilder::amd_vram(const std::string& address, std::uint64_t bytes) const {
  root_.write(device_dir(address) + "/mem_info_vram_total", std::to_string(bytes) + "\n");
}

void MachineBuilder::amd_partition_modes(const std::string& address, const std::string& compute,
                                         const std::string& memory) const {
  root_.write(device_dir(address) + "/current_compute_partition", compute + "\n");
  root_.write(device_dir(address) + "/current_memory_partition", memory + "\n");
}

void MachineBuilder::pcie_placement(const std::string& address, int numa_node, const std::string& current_speed,
                                    unsigned current_width, const std::string& max_speed, unsigned max_width) const {
  const std::string dir = device_dir(address);
  root_.write(dir + "/numa_node", std::to_string(numa_node) + "\n");
  root_.write(dir + "/current_link_speed", current_speed + "\n");
  root_.write(dir + "/current_link_width", std::to_string(current_width) + "\n");
  root_.write(dir + "/max_link_speed", max_speed + "\n");
  root_.write(dir + "/max_link_width", std::to_string(max_width) + "\n");
}

void MachineBuilder::kfd_device(unsigned major) const {
  root_.char_node("/dev/kfd", major, 0);
  root_.char_driver(major, "kfd");
}

void MachineBuilder::kfd_cpu_node(unsigned node) const {
  root_.write("/sys/class/kfd/kfd/topology/nodes/" + std::to_string(node) + "/properties",
              "cpu_cores_count 64\nsimd_count 0\nmem_banks_count 1\nlocation_id 0\ndomain 0\ndrm_render_minor 0\n"
              "unique_id 0\n");
}

void MachineBuilder::kfd_gpu_node(const KfdGpu& gpu) const {
  const std::string dir = "/sys/class/kfd/kfd/topology/nodes/" + std::to_string(gpu.node);
  root_.write(dir + "/properties",
              "cpu_cores_count 0\nsimd_count 416\nmem_banks_count 1\ngfx_target_version 90010\n"
              "vendor_id 4098\ndevice_id 29711\nlocation_id " +
                  std::to_string(gpu.location_id) + "\ndomain " + std::to_string(gpu.domain) + "\ndrm_render_minor " +
                  std::to_string(gpu.render_minor) + "\nlocal_mem_size 0\nunique_id " + gpu.unique_id +
                  "\nnum_xcc 1\n");
  root_.write(dir + "/gpu_id", std::to_string(40000 + gpu.node) + "\n");
  if (gpu.memory_bytes) {
    root_.write(dir + "/mem_banks/0/properties",
                "heap_type 1\nsize_in_bytes " + std::to_string(gpu.memory_bytes) + "\nflags 0\nwidth 4096\n");
  }
}

void MachineBuilder::nvidia_version(const std::string& version, bool open_module) const {
  std::string first =
      open_module ? "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  " + version +
                        "  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Jan 14 03:32:56 UTC 2025\n"
                  : "NVRM version: NVIDIA UNIX x86_64 Kernel Module  " + version + "  Wed Jan 15 00:43:42 UTC 2025\n";
  root_.write("/proc/driver/nvidia/version", first + "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n");
}

void MachineBuilder::nvidia_proc_gpu(const NvidiaProc& gpu) const {
  root_.write("/proc/driver/nvidia/gpus/" + gpu.address + "/information",
              "Model: \t\t " + gpu.model + "\nIRQ:   \t\t 180\nGPU UUID: \t " + gpu.uuid +
                  "\nVideo BIOS: \t 96.00.99.00.01\nBus Type: \t PCIe\nDMA Size: \t 52 bits\nDMA Mask: \t "
                  "0xfffffffffffff\nBus Location: \t " +
                  gpu.address + "\nDevice Minor: \t " + std::to_string(gpu.minor) +
                  "\nGPU Firmware: \t 550.54.15\nGPU Excluded:\t No\n");
}

void MachineBuilder::nvidia_device_node(unsigned minor) const {
  root_.char_node("/dev/nvidia" + std::to_string(minor), 195, minor);
  if (std::filesystem::exists(root_.host("/dev/nvidiactl"))) return;
  // The nodes every GPU of the driver shares, as nvidia-ctk's spec maps them for each name.
  root_.char_node("/dev/nvidiactl", 195, 255);
  root_.char_node("/dev/nvidia-modeset", 195, 254);
  root_.char_node("/dev/nvidia-uvm", kNvidiaUvmMajor, 0);
  root_.char_node("/dev/nvidia-uvm-tools", kNvidiaUvmMajor, 1);
  root_.char_driver(kNvidiaUvmMajor, "nvidia-uvm");
}

void MachineBuilder::fake_nvml(const std::string& dir, const std::string& conf) const {
  root_.mkdir(dir);
  std::filesystem::copy_file(fake_nvml_library(), root_.host(dir + "/libnvidia-ml.so.1"),
                             std::filesystem::copy_options::overwrite_existing);
  root_.write(dir + "/fake-nvml.conf", conf);
}

void MachineBuilder::cdi_spec(const std::string& file_name, const std::string& text) const {
  root_.write("/etc/cdi/" + file_name, text);
}

void MachineBuilder::wsl(const std::string& osrelease) const {
  root_.write("/proc/sys/kernel/osrelease", osrelease + "\n");
  root_.char_node("/dev/dxg", 10, 125);
  root_.write("/proc/misc", "125 dxg\n200 tun\n");
}

}  // namespace rgpu::test
