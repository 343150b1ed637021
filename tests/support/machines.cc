#include "tests/support/machines.h"
#include "tests/support/build_paths.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/machine_builder.h"

namespace rgpu::test {
namespace {

constexpr std::uint64_t kH100Bytes = 85520809984ULL;  // NVML's total for an H100 80GB HBM3

std::string fixture_file(const std::string& relative) {
  std::ifstream in(fixture_path(relative));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void bmc(const MachineBuilder& m) { m.pci({"0000:02:00.0", 0x1a03, 0x2000, 0x030000, "ast", 0, std::nullopt}); }

std::string nvidia_spec(const std::vector<std::pair<std::string, unsigned>>& uuid_and_minor) {
  std::string devices, all_nodes;
  for (size_t i = 0; i < uuid_and_minor.size(); ++i) {
    const auto& [uuid, minor] = uuid_and_minor[i];
    const std::string node = "      - path: /dev/nvidia" + std::to_string(minor) + "\n";
    devices += "  - name: \"" + std::to_string(i) + "\"\n    containerEdits:\n      deviceNodes:\n" + node;
    devices += "  - name: " + uuid + "\n    containerEdits:\n      deviceNodes:\n" + node;
    all_nodes += node;
  }
  return "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ncontainerEdits:\n  deviceNodes:\n  - path: /dev/nvidiactl\n"
         "devices:\n" +
         devices + "  - name: all\n    containerEdits:\n      deviceNodes:\n" + all_nodes;
}

void filler_devices(const MachineBuilder& m, const std::string& domain, int count) {
  for (int i = 0; i < count; ++i) {
    char addr[32];
    std::snprintf(addr, sizeof addr, "%s:%02x:%02x.%x", domain.c_str(), 0x10 + i / 32, (i % 32), 0);
    bool nic = i % 3 == 0;
    m.pci({addr, nic ? std::uint16_t{0x15b3} : std::uint16_t{0x8086},
           nic ? std::uint16_t{0x1021} : std::uint16_t{0x09a2}, nic ? 0x020000u : 0x060400u,
           nic ? std::optional<std::string>("mlx5_core") : std::optional<std::string>("pcieport"), std::nullopt,
           std::nullopt});
  }
}

}  // namespace

void two_nvidia_datacenter(const FixtureRoot& root, bool with_nvml) {
  MachineBuilder m(root);
  m.hostname("gpu-dc-01");
  bmc(m);
  m.pci({"0000:05:00.0", 0x10de, 0x22a3, 0x068000, "nvidia", std::nullopt, std::nullopt});  // NVSwitch: a bridge
  m.pci({"0000:41:00.0", 0x10de, 0x2330, 0x030200, "nvidia", 1, 128});
  m.pci({"0001:c1:00.0", 0x10de, 0x2330, 0x030200, "nvidia", 2, 129});
  m.nvidia_device_node(0);
  m.nvidia_device_node(1);
  m.nvidia_version("550.54.15", false);
  m.nvidia_proc_gpu({"0000:41:00.0", "NVIDIA H100 80GB HBM3", "GPU-11111111-2222-3333-4444-555555555555", 1});
  m.nvidia_proc_gpu({"0001:c1:00.0", "NVIDIA H100 80GB HBM3", "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", 0});
  if (!with_nvml) return;
  m.fake_nvml("/usr/lib/x86_64-linux-gnu",
              "driver 550.54.15\ncuda 12040\n" +
                  nvml_gpu_line("00000001:C1:00.0", "NVIDIA H100 80GB HBM3", "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
                                kH100Bytes, 0, 0x2330) +
                  nvml_gpu_line("00000000:41:00.0", "NVIDIA H100 80GB HBM3", "GPU-11111111-2222-3333-4444-555555555555",
                                kH100Bytes, 1, 0x2330));
  m.cdi_spec("nvidia.yaml", fixture_file("cdi/nvidia-ctk-two-h100.yaml"));
}

void two_amd_instinct(const FixtureRoot& root) {
  MachineBuilder m(root);
  m.hostname("mi210-01");
  bmc(m);
  m.pci({"0000:43:00.0", 0x1002, 0x740f, 0x038000, "amdgpu", 1, 128});
  m.pci({"0000:c3:00.0", 0x1002, 0x740f, 0x038000, "amdgpu", 2, 129});
  m.amd_vram("0000:43:00.0", 64 * kGiB);
  m.amd_vram("0000:c3:00.0", 64 * kGiB);
  root.write("/sys/module/amdgpu/version", "6.10.5\n");
  m.kfd_device(234);
  m.kfd_cpu_node(0);
  m.kfd_cpu_node(1);
  m.kfd_gpu_node({2, 0, 0x4300, 128, "5847760019078012339", 64 * kGiB});
  m.kfd_gpu_node({3, 0, 0xc300, 129, "9167385512990120221", 64 * kGiB});
}

void amd_mi300x_partitioned(const FixtureRoot& root) {
  MachineBuilder m(root);
  m.hostname("mi300x-01");
  bmc(m);
  m.kfd_device(239);
  m.kfd_cpu_node(0);
  m.kfd_cpu_node(1);
  // Numbering as on the real CPX host (ROCm/k8s-device-plugin testdata/topo-mi300-cpx): each card's
  // driver init takes its own card/render minor, then one per XCP platform device, so card 0 has
  // render minors 128-135 and card 1 136-143; location_id counts partitions in its function bits.
  const unsigned buses[] = {0x05, 0x26};
  for (unsigned card = 0; card < 2; ++card) {
    char addr[32];
    std::snprintf(addr, sizeof addr, "0000:%02x:00.0", buses[card]);
    const unsigned first_render = 128 + card * 8, first_card = 1 + card * 8;
    m.pci({addr, 0x1002, 0x74a1, 0x120000, "amdgpu", first_card, first_render});
    m.amd_partition_modes(addr, "CPX", "NPS1");
    // numa_node and a Gen5 x16 link as sysfs shows them on a 2-socket MI300X host (research 5).
    m.pcie_placement(addr, static_cast<int>(card), "32.0 GT/s PCIe", 16, "32.0 GT/s PCIe", 16);
    for (unsigned part = 0; part < 8; ++part) {
      if (part > 0)
        m.partition_nodes(first_card + part, first_render + part, "amdgpu_xcp_" + std::to_string(card * 8 + part));
      m.kfd_gpu_node({2 + card * 8 + part, 0, (buses[card] << 8) | part, first_render + part,
                      card == 0 ? "16404946649897475633" : "2472748907779728154", 24 * kGiB});
    }
  }
}

void intel_discrete(const FixtureRoot& root) {
  MachineBuilder m(root);
  m.hostname("arc-01");
  m.pci({"0000:03:00.0", 0x8086, 0x56a0, 0x030000, "i915", 0, 128});
}

void mixed_workstation(const FixtureRoot& root) {
  MachineBuilder m(root);
  m.hostname("workstation");
  m.pci({"0000:00:02.0", 0x8086, 0xa780, 0x030000, "i915", 1, 129});
  m.pci({"0000:00:0b.0", 0x8086, 0x7d1d, 0x120000, "intel_vpu", std::nullopt, std::nullopt});  // NPU
  m.pci({"0000:01:00.0", 0x10de, 0x2684, 0x030000, "nvidia", 0, 128});
  m.pci({"0000:03:00.0", 0x1002, 0x73bf, 0x030000, "amdgpu", 2, 130});
  m.amd_vram("0000:03:00.0", 16 * kGiB);
  m.nvidia_device_node(0);
  m.nvidia_version("570.86.15", true);
  m.nvidia_proc_gpu({"0000:01:00.0", "NVIDIA GeForce RTX 4090", "GPU-40904090-4090-4090-4090-409040904090", 0});
  m.kfd_device(234);
  m.kfd_cpu_node(0);
  m.kfd_gpu_node({1, 0, 0x0300, 130, "1234567890123456789", 16 * kGiB});
}

void wsl2_nvidia(const FixtureRoot& root) {
  MachineBuilder m(root);
  m.hostname("laptop-wsl");
  m.wsl("5.15.167.4-microsoft-standard-WSL2");
  root.mkdir("/sys/bus/pci/devices");
  root.mkdir("/usr/lib/wsl/drivers/nvlti.inf_amd64_4bd2a3580753f54d");
  m.fake_nvml("/usr/lib/wsl/lib",
              "driver 581.57\n" + nvml_gpu_line("00000000:01:00.0", "NVIDIA GeForce RTX 4080 Laptop GPU",
                                                "GPU-40804080-4080-4080-4080-408040804080", 12 * kGiB, 0, 0x27e0));
  m.cdi_spec("nvidia.yaml",
             "cdiVersion: 0.3.0\nkind: nvidia.com/gpu\ndevices:\n- name: all\n  containerEdits:\n"
             "    deviceNodes:\n    - path: /dev/dxg\n");
}

void no_gpu(const FixtureRoot& root) {
  MachineBuilder m(root);
  m.hostname("storage-01");
  bmc(m);
  m.pci({"0000:17:00.0", 0x15b3, 0x1021, 0x020000, "mlx5_core", std::nullopt, std::nullopt});
  m.pci({"0000:18:00.0", 0x144d, 0xa80a, 0x010802, "nvme", std::nullopt, std::nullopt});
}

void dgx_h100(const FixtureRoot& root) {
  MachineBuilder m(root);
  m.hostname("dgx-h100");
  bmc(m);
  std::string conf = "driver 550.54.15\n";
  std::vector<std::pair<std::string, unsigned>> spec_gpus;
  const char* addresses[] = {"0000:1b:00.0", "0000:43:00.0", "0000:52:00.0", "0000:61:00.0",
                             "0001:9d:00.0", "0001:c3:00.0", "0001:d1:00.0", "0001:df:00.0"};
  for (unsigned i = 0; i < 8; ++i) {
    const std::string addr = addresses[i];
    const unsigned minor = (i + 3) % 8;  // minors do not follow PCI order
    char uuid[64];
    std::snprintf(uuid, sizeof uuid, "GPU-%08x-0000-0000-0000-00000000000%u", 0xd6c0 + i, i);
    m.pci({addr, 0x10de, 0x2330, 0x030200, "nvidia", i + 1, 128 + i});
    m.nvidia_device_node(minor);
    m.nvidia_proc_gpu({addr, "NVIDIA H100 80GB HBM3", uuid, minor});
    conf += nvml_gpu_line(addr, "NVIDIA H100 80GB HBM3", uuid, kH100Bytes, minor, 0x2330);
    spec_gpus.emplace_back(uuid, minor);
  }
  for (unsigned i = 0; i < 4; ++i) {
    m.pci({"0000:0" + std::to_string(5 + i) + ":00.0", 0x10de, 0x22a3, 0x068000, "nvidia", std::nullopt, std::nullopt});
  }
  filler_devices(m, "0000", 100);
  filler_devices(m, "0001", 100);
  m.nvidia_version("550.54.15", false);
  m.fake_nvml("/usr/lib/x86_64-linux-gnu", conf);
  m.cdi_spec("nvidia.yaml", nvidia_spec(spec_gpus));
}

void dgx_h100_procfs(const FixtureRoot& root) {
  dgx_h100(root);
  std::filesystem::remove_all(root.host("/usr/lib/x86_64-linux-gnu"));
}

namespace {

std::string partition_mode(unsigned partitions) {
  switch (partitions) {
    case 2: return "DPX";
    case 4: return "QPX";
    case 8: return "CPX";
    default: return "SPX";
  }
}

}  // namespace

void amd_instinct_x8(const FixtureRoot& root, bool mi300x, unsigned partitions, bool last_xcp_without_nodes) {
  MachineBuilder m(root);
  m.hostname(mi300x ? "mi300x-x8" : "mi210-x8");
  bmc(m);
  m.kfd_device(239);
  m.kfd_cpu_node(0);
  m.kfd_cpu_node(1);
  const unsigned buses[] = {0x05, 0x26, 0x46, 0x65, 0x85, 0xa6, 0xc6, 0xe5};
  const std::uint16_t device = mi300x ? 0x74a1 : 0x740f;
  const std::uint32_t pci_class = mi300x ? 0x120000 : 0x038000;
  const std::uint64_t memory = (mi300x ? 192 : 64) * kGiB;
  unsigned next_card = 9, next_render = 136, next_xcp = 0;
  for (unsigned card = 0; card < 8; ++card) {
    char addr[32];
    std::snprintf(addr, sizeof addr, "0000:%02x:00.0", buses[card]);
    m.pci({addr, 0x1002, device, pci_class, "amdgpu", 1 + card, 128 + card});
    m.amd_vram(addr, memory);
    // Mode strings as amdgpu prints them (xcp_desc[], nps_desc[]); NPS4 only with CPX (AMD's
    // MI300X partitioning overview). Cards 0-3 on socket 0, 4-7 on socket 1, Gen5 x16 each.
    if (mi300x) m.amd_partition_modes(addr, partition_mode(partitions), partitions == 8 ? "NPS4" : "NPS1");
    m.pcie_placement(addr, card < 4 ? 0 : 1, "32.0 GT/s PCIe", 16, "32.0 GT/s PCIe", 16);
    const std::string unique_id = std::to_string(5847760019078012339ULL + card * 7919ULL);
    for (unsigned part = 0; part < partitions; ++part) {
      // Out of DRM minors, the driver skips an XCP: no nodes, no KFD node (research 3).
      if (last_xcp_without_nodes && card == 7 && part == partitions - 1) break;
      unsigned render = 128 + card;
      if (part > 0) {
        render = next_render++;
        m.partition_nodes(next_card++, render, "amdgpu_xcp_" + std::to_string(next_xcp++));
      }
      m.kfd_gpu_node(
          {2 + card * partitions + part, 0, (buses[card] << 8) | part, render, unique_id, memory / partitions});
    }
  }
  filler_devices(m, "0000", 200);
}

void workstation_numbered(const FixtureRoot& root, CardNumbers n) {
  for (const char* dir : {"/sys", "/dev", "/proc"}) std::filesystem::remove_all(root.host(dir));
  MachineBuilder m(root);
  m.hostname("ws-01");
  if (n.intel) m.pci({"0000:00:02.0", 0x8086, 0xa780, 0x030000, "i915", *n.intel - 128, *n.intel});
  m.pci({"0000:01:00.0", 0x10de, 0x2684, 0x030000, "nvidia", n.nvidia - 128, n.nvidia});
  m.pci({"0000:03:00.0", 0x1002, 0x744c, 0x030000, "amdgpu", n.amd - 128, n.amd});
  m.nvidia_device_node(0);
  m.nvidia_version("570.86.15", true);
  m.nvidia_proc_gpu({"0000:01:00.0", "NVIDIA GeForce RTX 4090", kWorkstation4090Uuid, 0});
  m.kfd_device(234);
  m.kfd_cpu_node(0);
  m.kfd_gpu_node({1, 0, 0x0300, n.amd, "1234567890123456789", 0});
}

void mixed_x8(const FixtureRoot& root) {
  MachineBuilder m(root);
  m.hostname("mixed-x8");
  m.pci({"0000:00:02.0", 0x8086, 0xa780, 0x030000, "i915", 0, 128});
  std::string conf;
  for (unsigned i = 0; i < 4; ++i) {
    char addr[32];
    std::snprintf(addr, sizeof addr, "0000:%02x:00.0", 0x21 + i);
    m.pci({addr, 0x10de, 0x2684, 0x030000, "nvidia", 1 + i, 129 + i});
    m.nvidia_device_node(i);
    char uuid[64];
    std::snprintf(uuid, sizeof uuid, "GPU-40904090-4090-4090-4090-40904090409%u", i);
    m.nvidia_proc_gpu({addr, "NVIDIA GeForce RTX 4090", uuid, i});
  }
  m.nvidia_version("570.86.15", true);
  m.kfd_device(234);
  m.kfd_cpu_node(0);
  for (unsigned i = 0; i < 3; ++i) {
    char addr[32];
    std::snprintf(addr, sizeof addr, "0000:%02x:00.0", 0x41 + i);
    m.pci({addr, 0x1002, 0x73bf, 0x030000, "amdgpu", 5 + i, 133 + i});
    m.amd_vram(addr, 16 * kGiB);
    m.kfd_gpu_node({1 + i, 0, (0x41u + i) << 8, 133 + i, std::to_string(1234567890123456789ULL + i), 16 * kGiB});
  }
  filler_devices(m, "0000", 100);
  filler_devices(m, "0001", 100);
}

namespace {

struct MigFixture {
  unsigned index;
  unsigned gi;
  unsigned slices;
  unsigned mib;
  const char* uuid;
};

// The real H100 capture (research 1.2, utkuozdemir/nvidia_gpu_exporter linux-x86_64__nvidia-h100-mig):
// GI ids 2, 3, 9, 10 (not contiguous), CI 0 each, 3g.40gb/2g.20gb/1g.10gb/1g.10gb with
// 40448/20096/9984/9984 MiB. One change for the checklist (research 6): MIG index 2 is a hole,
// so the last two sit at 3 and 4. UUIDs in the R470+ form.
constexpr MigFixture kH100Migs[] = {
    {0, 2, 3, 40448, "MIG-a65afc88-50b5-5ccf-b0a8-f93b3247ae9e"},
    {1, 3, 2, 20096, "MIG-0b1c2d3e-4f50-5617-8293-a4b5c6d7e8f9"},
    {3, 9, 1, 9984, "MIG-1c2d3e4f-5061-5728-93a4-b5c6d7e8f90a"},
    {4, 10, 1, 9984, "MIG-2d3e4f50-6172-5839-a4b5-c6d7e8f90a1b"},
};

// mig-minors lists every GI/CI slot of every GPU; the minors fit gi = 3 + 135*M + 9*G and
// ci = gi + 1 + C (research 1.6).
unsigned gi_minor(unsigned gpu_minor, unsigned gi) { return 3 + 135 * gpu_minor + 9 * gi; }

std::string mig_minors(unsigned gpus) {
  std::string out = "config 1\nmonitor 2\n";
  for (unsigned m = 0; m < gpus; ++m) {
    for (unsigned g = 0; g < 15; ++g) {
      const std::string gi = "gpu" + std::to_string(m) + "/gi" + std::to_string(g);
      out += gi + "/access " + std::to_string(gi_minor(m, g)) + "\n";
      for (unsigned c = 0; c < 8; ++c) {
        out += gi + "/ci" + std::to_string(c) + "/access " + std::to_string(gi_minor(m, g) + 1 + c) + "\n";
      }
    }
  }
  return out;
}

std::string spec_device(const std::string& name, const std::vector<std::string>& nodes) {
  std::string out = "  - name: \"" + name + "\"\n    containerEdits:\n      deviceNodes:\n";
  for (const auto& n : nodes) out += "      - path: " + n + "\n";
  return out;
}

}  // namespace

void nvidia_mig(const FixtureRoot& root, bool toolkit_before_118) {
  MachineBuilder m(root);
  m.hostname("h100-mig");
  bmc(m);
  m.pci({"0000:41:00.0", 0x10de, 0x2330, 0x030200, "nvidia", 1, 128});
  m.pci({"0001:c1:00.0", 0x10de, 0x2330, 0x030200, "nvidia", 2, 129});
  m.nvidia_device_node(0);
  m.nvidia_device_node(1);
  m.nvidia_version("590.48.01", false);
  const std::string gpu0 = "GPU-41255406-c9af-f94b-4ebf-9d57ad1853da",
                    gpu1 = "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";
  m.nvidia_proc_gpu({"0000:41:00.0", "NVIDIA H100 80GB HBM3", gpu0, 1});
  m.nvidia_proc_gpu({"0001:c1:00.0", "NVIDIA H100 80GB HBM3", gpu1, 0});
  // NVML index 0 is the GPU on /dev/nvidia1: MIG names count NVML indices, nodes count minors.
  std::string conf = "driver 590.48.01\ncuda 13010\n" +
                     nvml_gpu_line("00000000:41:00.0", "NVIDIA H100 80GB HBM3", gpu0, kH100Bytes, 1, 0x2330) +
                     nvml_gpu_line("00000001:C1:00.0", "NVIDIA H100 80GB HBM3", gpu1, kH100Bytes, 0, 0x2330) +
                     "mig_mode 0 1 7\nmig_mode 1 0 7\n";
  root.write("/proc/driver/nvidia-caps/mig-minors", mig_minors(2));
  root.char_driver(237, "nvidia-caps");
  root.char_node("/dev/nvidia-caps/nvidia-cap1", 237, 1);
  root.char_node("/dev/nvidia-caps/nvidia-cap2", 237, 2);
  std::string devices,
      management_nodes = "      - path: /dev/nvidia-caps/nvidia-cap1\n      - path: /dev/nvidia-caps/nvidia-cap2\n";
  std::vector<std::string> all = {"/dev/nvidia1", "/dev/nvidia0"};
  for (const auto& mig : kH100Migs) {
    conf += "mig 0|" + std::to_string(mig.index) + "|" + std::to_string(mig.gi) + "|0|" + std::to_string(mig.slices) +
            "|" + std::to_string(mig.slices) + "|" + std::to_string(mig.mib) + "|" + mig.uuid + "\n";
    const unsigned gi = gi_minor(1, mig.gi), ci = gi + 1;
    root.char_node("/dev/nvidia-caps/nvidia-cap" + std::to_string(gi), 237, gi);
    root.char_node("/dev/nvidia-caps/nvidia-cap" + std::to_string(ci), 237, ci);
    const std::vector<std::string> nodes = {"/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap" + std::to_string(gi),
                                            "/dev/nvidia-caps/nvidia-cap" + std::to_string(ci)};
    devices += spec_device("0:" + std::to_string(mig.index), nodes) + spec_device(mig.uuid, nodes);
    all.insert(all.end(), nodes.begin() + 1, nodes.end());
    management_nodes += "      - path: " + nodes[1] + "\n      - path: " + nodes[2] + "\n";
  }
  // Toolkit 1.17 and older also name a GPU in MIG mode whole, with its parent node only;
  // 1.18 and later leave such a GPU out (research 2).
  if (toolkit_before_118) devices += spec_device("0", {"/dev/nvidia1"}) + spec_device(gpu0, {"/dev/nvidia1"});
  devices += spec_device("1", {"/dev/nvidia0"}) + spec_device(gpu1, {"/dev/nvidia0"}) + spec_device("all", all);
  m.fake_nvml("/usr/lib/x86_64-linux-gnu", conf);
  m.cdi_spec("nvidia.yaml",
             "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ncontainerEdits:\n  deviceNodes:\n"
             "  - path: /dev/nvidiactl\ndevices:\n" +
                 devices);
  m.cdi_spec("nvidia-management.yaml",
             "cdiVersion: 0.5.0\nkind: management.nvidia.com/gpu\ndevices:\n  - name: all\n    containerEdits:\n"
             "      deviceNodes:\n      - path: /dev/nvidia0\n      - path: /dev/nvidia1\n" +
                 management_nodes);
}

namespace {

std::string nul_joined(std::initializer_list<std::string> args) {
  std::string out;
  for (const auto& a : args) (out += a) += '\0';
  return out;
}

}  // namespace

void rediacc_two_repositories(const FixtureRoot& root) {
  const std::string web = kRediaccWebMount, other = kRediaccOtherMount;
  root.link("/var/run", "../run");
  for (const auto& m : {web, other}) {
    root.mkdir(m + "/.rediacc/docker/data/containers");
    root.mkdir(m + "/app/data");
  }
  root.write("/mnt/rediacc/repositories/aaaa-web", "LUKS");
  root.write(web + "/.rediacc/docker/config/daemon.json",
             R"({"data-root": ")" + web + R"(/.rediacc/docker/data", "bridge": "none"})");
  root.write(
      other + "/.rediacc/docker/config/daemon.json",
      R"({"data-root": ")" + other +
          R"(/.rediacc/docker/data", "hosts": ["unix:///run/rediacc/docker-2880.sock"], "exec-root": "/run/rediacc/exec-2880"})");
  root.write("/run/rediacc/docker-2816.sock", "");
  root.write("/run/rediacc/docker-2880.sock", "");
  root.write("/run/rediacc/secrets/2816/DB_PASSWORD", "x");
  root.write("/run/rediacc/secrets/2880/DB_PASSWORD", "y");
  root.write("/proc/100/cmdline",
             nul_joined({"/usr/bin/dockerd", "--config-file", web + "/.rediacc/docker/config/daemon.json", "-H",
                         "unix:///run/rediacc/docker-2816.sock"}));
  root.write("/proc/200/cmdline",
             nul_joined({"dockerd", "--config-file=" + other + "/.rediacc/docker/config/daemon.json"}));
  root.write("/proc/300/cmdline",
             nul_joined({"/usr/bin/containerd", "--address", "/srv/ctd/containerd.sock", "--root", "/srv/ctd/root"}));
  root.mkdir("/srv/ctd/root");
  root.mkdir("/opt/rediacc/proxy/letsencrypt");
  root.char_node("/dev/net/tun", 10, 200);
}

void wire_runtime_verifier(const FixtureRoot& root, const std::string& pid, bool wired) {
  const std::string containerd = pid + "1";
  root.write("/proc/" + containerd + "/cmdline",
             nul_joined({"containerd", "--config", "/var/run/docker/containerd/containerd.toml"}));
  root.write("/proc/" + containerd + "/status", "Name:\tcontainerd\nPPid:\t" + pid + "\n");
  root.write("/proc/" + containerd + "/environ",
             nul_joined({"HOME=/root", std::string("PATH=") + (wired ? "/var/lib/rediacc/gpu/runtime:" : "") +
                                           "/usr/sbin:/usr/bin"}));
  for (const char* runc : {"/usr/sbin/runc", "/usr/bin/rediacc-gpu"}) {
    root.write(runc, "#!/bin/sh\n");
    std::filesystem::permissions(root.host(runc), std::filesystem::perms::owner_all |
                                                      std::filesystem::perms::group_exec |
                                                      std::filesystem::perms::others_exec);
  }
  if (!std::filesystem::is_symlink(root.host("/var/lib/rediacc/gpu/runtime/runc")))
    root.link("/var/lib/rediacc/gpu/runtime/runc", "/usr/bin/rediacc-gpu");
}

const std::vector<NamedMachine>& named_machines() {
  static const std::vector<NamedMachine> machines = {
      {"two-nvidia-nvml", [](const FixtureRoot& r) { two_nvidia_datacenter(r, true); }},
      {"two-nvidia-procfs", [](const FixtureRoot& r) { two_nvidia_datacenter(r, false); }},
      {"two-amd-instinct", two_amd_instinct},
      {"amd-mi300x-partitioned", amd_mi300x_partitioned},
      {"intel-discrete", intel_discrete},
      {"mixed-workstation", mixed_workstation},
      {"wsl2-nvidia", wsl2_nvidia},
      {"no-gpu", no_gpu},
      {"dgx-h100", dgx_h100},
      {"dgx-h100-procfs", dgx_h100_procfs},
      {"mi210-x8", [](const FixtureRoot& r) { amd_instinct_x8(r, false, 1); }},
      {"mi300x-x8-spx", [](const FixtureRoot& r) { amd_instinct_x8(r, true, 1); }},
      {"mi300x-x8-dpx", [](const FixtureRoot& r) { amd_instinct_x8(r, true, 2); }},
      {"mi300x-x8-qpx", [](const FixtureRoot& r) { amd_instinct_x8(r, true, 4); }},
      {"mi300x-x8-cpx", [](const FixtureRoot& r) { amd_instinct_x8(r, true, 8); }},
      {"mi300x-x8-cpx-63", [](const FixtureRoot& r) { amd_instinct_x8(r, true, 8, true); }},
      {"mixed-x8", mixed_x8},
      {"h100-mig", [](const FixtureRoot& r) { nvidia_mig(r, false); }},
      {"h100-mig-toolkit-1.17", [](const FixtureRoot& r) { nvidia_mig(r, true); }},
  };
  return machines;
}

std::string vendor_xpu_spec(const std::string& hooked_args) {
  return R"(cdiVersion: "1.1.0"
kind: vendor.com/xpu
containerEdits:
  mounts:
    - {hostPath: /opt/vendor/lib, containerPath: /usr/lib/vendor, options: [ro, bind]}
devices:
  - name: hooked
    containerEdits:
      deviceNodes: [{path: /dev/null}]
      hooks:
        - {hookName: createContainer, path: /opt/vendor/bin/hook, args: [hook, )" +
         hooked_args + R"(]}
  - name: toolkit
    containerEdits:
      deviceNodes: [{path: /dev/zero}]
      hooks:
        - {hookName: createContainer, path: /usr/bin/nvidia-cdi-hook, args: [nvidia-cdi-hook, update-ldcache]}
  - name: nic
    containerEdits:
      netDevices: [{hostInterfaceName: eth1, name: eth0}]
)";
}

}  // namespace rgpu::test
