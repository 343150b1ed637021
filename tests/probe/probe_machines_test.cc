#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "probe/inventory.h"
#include "probe/nvml_library.h"
#include "tests/probe/probe_test_support.h"
#include "tests/support/machine_builder.h"
#include "tests/support/machines.h"

using namespace rgpu;
using namespace rgpu::test;
using probe::Vendor;

namespace {
using Names = std::vector<std::string>;
}  // namespace

TEST_CASE("probe: two data-centre NVIDIA GPUs through NVML, behind a BMC and an NVSwitch") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  auto inv = probe_fixture(root).inventory;
  REQUIRE(inv.gpus.size() == 2);
  REQUIRE(inv.hostname == "gpu-dc-01");
  const auto& a = gpu_at(inv, "0000:41:00.0");
  const auto& b = gpu_at(inv, "0001:c1:00.0");
  for (const auto* g : {&a, &b}) {
    CHECK(g->vendor == Vendor::nvidia);
    CHECK(g->name == "NVIDIA H100 80GB HBM3");
    CHECK(g->memory_bytes == 85520809984ULL);
    CHECK(g->driver == "nvidia");
    CHECK(g->driver_version == "550.54.15");
    CHECK(g->device_id == 0x2330);
  }
  CHECK(a.render_node == "/dev/dri/renderD128");
  CHECK(a.card_node == "/dev/dri/card1");
  CHECK(a.uuid == "GPU-11111111-2222-3333-4444-555555555555");
  // minors run against PCI order: the first GPU by address is /dev/nvidia1
  CHECK(a.device_nodes == Names{"/dev/dri/card1", "/dev/dri/renderD128", "/dev/nvidia1"});
  CHECK(b.device_nodes == Names{"/dev/dri/card2", "/dev/dri/renderD129", "/dev/nvidia0"});
  CHECK(a.cdi_devices ==
        Names{"nvidia.com/gpu=1", "nvidia.com/gpu=GPU-11111111-2222-3333-4444-555555555555", "nvidia.com/gpu=all"});
  CHECK(b.cdi_devices ==
        Names{"nvidia.com/gpu=0", "nvidia.com/gpu=GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", "nvidia.com/gpu=all"});
  CHECK(inv.cdi_devices.size() == 5);
}

TEST_CASE("probe: NVIDIA without NVML falls back to /proc/driver/nvidia, memory unknown") {
  FixtureRoot root;
  two_nvidia_datacenter(root, false);
  auto inv = probe_fixture(root).inventory;
  REQUIRE(inv.gpus.size() == 2);
  const auto& a = gpu_at(inv, "0000:41:00.0");
  CHECK(a.name == "NVIDIA H100 80GB HBM3");
  CHECK_FALSE(a.memory_bytes);
  CHECK(a.driver_version == "550.54.15");
  CHECK(a.uuid == "GPU-11111111-2222-3333-4444-555555555555");
  CHECK(a.device_nodes == Names{"/dev/dri/card1", "/dev/dri/renderD128", "/dev/nvidia1"});
  CHECK(a.cdi_devices.empty());
  CHECK(inv.cdi_devices.empty());
}

TEST_CASE("probe: NVML that does not initialise is a warning and procfs still answers") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.write("/usr/lib/x86_64-linux-gnu/fake-nvml.conf", "init_error 9\n");  // NVML_ERROR_DRIVER_NOT_LOADED
  auto report = probe_fixture(root);
  REQUIRE(report.inventory.gpus.size() == 2);
  CHECK(gpu_at(report.inventory, "0000:41:00.0").driver_version == "550.54.15");
  CHECK_FALSE(gpu_at(report.inventory, "0000:41:00.0").memory_bytes);
  REQUIRE(report.warnings.size() == 1);
  CHECK_THAT(report.warnings[0], Catch::Contains("did not initialise (NVML error 9)"));
}

TEST_CASE("probe: two AMD Instinct GPUs with KFD topology") {
  FixtureRoot root;
  two_amd_instinct(root);
  auto report = probe_fixture(root);
  auto& inv = report.inventory;
  CHECK(report.warnings.empty());
  REQUIRE(inv.gpus.size() == 2);
  const auto& a = gpu_at(inv, "0000:43:00.0");
  CHECK(a.vendor == Vendor::amd);
  CHECK(a.name == "Aldebaran/MI200 [Instinct MI210]");
  CHECK(a.memory_bytes == 64 * kGiB);
  CHECK(a.driver_version == "6.10.5");
  CHECK(a.render_node == "/dev/dri/renderD128");
  CHECK(a.card_node == "/dev/dri/card1");
  CHECK(a.uuid == "5847760019078012339");
  CHECK(gpu_at(inv, "0000:c3:00.0").render_node == "/dev/dri/renderD129");
}

TEST_CASE("probe: an AMD GPU without KFD still gets its render node and VRAM") {
  FixtureRoot root;
  two_amd_instinct(root);
  std::filesystem::remove(root.host("/dev/kfd"));
  auto inv = probe_fixture(root).inventory;
  REQUIRE(inv.gpus.size() == 2);
  const auto& a = gpu_at(inv, "0000:43:00.0");
  CHECK(a.render_node == "/dev/dri/renderD128");
  CHECK(a.memory_bytes == 64 * kGiB);
  CHECK_FALSE(a.uuid);
}

TEST_CASE("probe: a KFD node's memory banks are read by the count it gives, or listed without one") {
  FixtureRoot root;
  amd_mi300x_partitioned(root);
  const std::string nodes = "/sys/class/kfd/kfd/topology/nodes/";
  const auto properties = [&](unsigned node) {
    std::ifstream in(root.host(nodes + std::to_string(node) + "/properties"));
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const auto bank = [&](unsigned node, unsigned index, std::uint64_t bytes) {
    root.write(nodes + std::to_string(node) + "/mem_banks/" + std::to_string(index) + "/properties",
               "heap_type 1\nsize_in_bytes " + std::to_string(bytes) + "\nflags 0\n");
  };
  // Node 2 (partition 0): two banks, counted. Node 3 (partition 1): no count, two banks listed.
  std::string two = properties(2);
  two.replace(two.find("mem_banks_count 1"), 17, "mem_banks_count 2");
  root.write(nodes + "2/properties", two);
  bank(2, 1, 8 * kGiB);
  std::string uncounted = properties(3);
  uncounted.erase(uncounted.find("mem_banks_count 1\n"), 18);
  root.write(nodes + "3/properties", uncounted);
  bank(3, 1, 4 * kGiB);
  // Node 4 (partition 2): counts a bank that is not there: no memory, as a missing bank file.
  std::string missing = properties(4);
  missing.replace(missing.find("mem_banks_count 1"), 17, "mem_banks_count 3");
  root.write(nodes + "4/properties", missing);
  const auto report = probe_fixture(root);
  const auto& a = gpu_at(report.inventory, "0000:05:00.0");
  REQUIRE(a.partitions.size() == 8);
  CHECK(a.partitions[0].memory_bytes == 32 * kGiB);
  CHECK(a.partitions[1].memory_bytes == 28 * kGiB);
  CHECK_FALSE(a.partitions[2].memory_bytes);
  CHECK(a.partitions[3].memory_bytes == 24 * kGiB);
}

TEST_CASE("probe: partitioned MI300X counts cards, not partitions, and memory from KFD") {
  FixtureRoot root;
  amd_mi300x_partitioned(root);
  auto report = probe_fixture(root);
  auto& inv = report.inventory;
  CHECK(report.warnings.empty());
  REQUIRE(inv.gpus.size() == 2);
  const auto& a = gpu_at(inv, "0000:05:00.0");
  CHECK(a.pci_class == 0x120000u);
  CHECK(a.render_node == "/dev/dri/renderD128");
  CHECK(a.memory_bytes == 8 * 24 * kGiB);
  CHECK(a.uuid == "16404946649897475633");
  CHECK(gpu_at(inv, "0000:26:00.0").render_node == "/dev/dri/renderD136");
  // The card lists its eight partitions in render-minor order, each with its own nodes.
  CHECK(a.compute_partition == "CPX");
  CHECK(a.memory_partition == "NPS1");
  REQUIRE(a.partitions.size() == 8);
  for (unsigned k = 0; k < 8; ++k) {
    INFO("partition " << k);
    const auto& p = a.partitions[k];
    CHECK(p.index == k);
    CHECK(p.render_node == "/dev/dri/renderD" + std::to_string(128 + k));
    CHECK(p.card_node == "/dev/dri/card" + std::to_string(1 + k));
    CHECK(p.kfd_node == 2 + k);
    CHECK(p.memory_bytes == 24 * kGiB);
    CHECK(p.device_nodes == std::vector<std::string>{*p.card_node, *p.render_node});
  }
  // The card's own nodes are every partition's: a name reaching any of them reaches this card.
  CHECK(a.device_nodes.size() == 16);
}

TEST_CASE("probe: an MI300X card in SPX lists no partitions, and unused XCP nodes are not partitions") {
  FixtureRoot root;
  amd_instinct_x8(root, true, 1);
  // SPX still has the seven XCP platform devices per card, with nodes but without KFD nodes.
  MachineBuilder(root).partition_nodes(100, 300, "amdgpu_xcp_1");
  auto report = probe_fixture(root);
  for (const auto& g : report.inventory.gpus) {
    CHECK(g.compute_partition == "SPX");
    CHECK(g.partitions.empty());
    CHECK(g.device_nodes.size() == 2);
  }
}

TEST_CASE("probe: 63 partitions when the driver ran out of DRM minors for the last one") {
  FixtureRoot root;
  amd_instinct_x8(root, true, 8, true);
  auto report = probe_fixture(root);
  CHECK(report.warnings.empty());
  REQUIRE(report.inventory.gpus.size() == 8);
  size_t partitions = 0;
  for (const auto& g : report.inventory.gpus) partitions += g.partitions.size();
  CHECK(partitions == 63);
  CHECK(report.inventory.gpus.back().partitions.size() == 7);
}

TEST_CASE("probe: NUMA node and PCIe link, in both kernels' formats, and -1 is unknown, not node 0") {
  FixtureRoot root;
  MachineBuilder m(root);
  m.pci({"0000:41:00.0", 0x1002, 0x740f, 0x038000, "amdgpu", 1, 128});
  m.pci({"0000:c1:00.0", 0x1002, 0x740f, 0x038000, "amdgpu", 2, 129});
  m.pci({"0000:00:02.0", 0x8086, 0xa780, 0x030000, "i915", 0, 130});
  m.pcie_placement("0000:41:00.0", 1, "16.0 GT/s PCIe", 8, "16.0 GT/s PCIe", 16);
  m.pcie_placement("0000:c1:00.0", -1, "2.5 GT/s", 16, "16 GT/s", 16);  // a 5.4 kernel, idle
  // An integrated GPU: no NUMA file, link Unknown and width 0 (research 5).
  root.write("/sys/devices/pci0000:00/0000:00:02.0/current_link_speed", "Unknown\n");
  root.write("/sys/devices/pci0000:00/0000:00:02.0/max_link_speed", "Unknown\n");
  root.write("/sys/devices/pci0000:00/0000:00:02.0/max_link_width", "0\n");
  auto inv = probe_fixture(root).inventory;
  const auto& a = gpu_at(inv, "0000:41:00.0");
  CHECK(a.numa_node == 1);
  REQUIRE(a.pcie_link);
  CHECK(*a.pcie_link == probe::PcieLink{16.0, 8, 16.0, 16});
  const auto& b = gpu_at(inv, "0000:c1:00.0");
  CHECK_FALSE(b.numa_node);
  REQUIRE(b.pcie_link);
  CHECK(*b.pcie_link == probe::PcieLink{2.5, 16, 16.0, 16});
  const auto& igpu = gpu_at(inv, "0000:00:02.0");
  CHECK_FALSE(igpu.numa_node);
  REQUIRE(igpu.pcie_link);
  CHECK(*igpu.pcie_link == probe::PcieLink{});
  // And null, not 0, in the inventory's JSON.
  auto j = probe::to_json(inv);
  for (const auto& g : j["gpus"]) {
    if (g["pci_address"] == "0000:c1:00.0") CHECK(g["numa_node"].is_null());
  }
}

TEST_CASE("probe: an Intel discrete GPU, memory and version unknown rather than zero") {
  FixtureRoot root;
  intel_discrete(root);
  auto inv = probe_fixture(root).inventory;
  REQUIRE(inv.gpus.size() == 1);
  const auto& g = inv.gpus[0];
  CHECK(g.vendor == Vendor::intel);
  CHECK(g.name == "DG2 [Arc A770]");
  CHECK(g.driver == "i915");
  CHECK_FALSE(g.driver_version);
  CHECK_FALSE(g.memory_bytes);
  CHECK(g.render_node == "/dev/dri/renderD128");
  auto j = probe::to_json(inv);
  CHECK(j["gpus"][0]["memory_bytes"].is_null());
  CHECK(j["gpus"][0]["vendor_id"] == "0x8086");
  CHECK(j["gpus"][0]["device_id"] == "0x56a0");
}

TEST_CASE("probe: a mixed workstation keeps each GPU's own nodes and skips the NPU") {
  FixtureRoot root;
  mixed_workstation(root);
  auto inv = probe_fixture(root).inventory;
  REQUIRE(inv.gpus.size() == 3);
  const auto& intel = gpu_at(inv, "0000:00:02.0");
  const auto& nvidia = gpu_at(inv, "0000:01:00.0");
  const auto& amd = gpu_at(inv, "0000:03:00.0");
  CHECK(intel.render_node == "/dev/dri/renderD129");
  CHECK(intel.card_node == "/dev/dri/card1");
  CHECK(nvidia.render_node == "/dev/dri/renderD128");
  CHECK(nvidia.name == "NVIDIA GeForce RTX 4090");
  CHECK(nvidia.driver_version == "570.86.15");
  CHECK(amd.render_node == "/dev/dri/renderD130");
  CHECK(amd.memory_bytes == 16 * kGiB);
  CHECK(amd.uuid == "1234567890123456789");
}

TEST_CASE("probe: a machine with no GPU still gets an inventory with empty lists") {
  FixtureRoot root;
  no_gpu(root);
  auto inv = probe_fixture(root).inventory;
  CHECK(inv.gpus.empty());
  CHECK(inv.cdi_devices.empty());
  auto j = probe::to_json(inv);
  CHECK(j["gpus"].is_array());
  CHECK(j["schema"] == probe::kInventorySchema);
  CHECK(j["platform"] == "native");
}

TEST_CASE("probe: an empty root (a container without /sys) is a machine with no GPU") {
  FixtureRoot root;
  auto inv = probe_fixture(root).inventory;
  CHECK(inv.gpus.empty());
  CHECK_FALSE(inv.hostname);
}

TEST_CASE("probe: the largest fixture, eight H100s among two hundred PCI devices") {
  FixtureRoot root;
  dgx_h100(root);
  auto inv = probe_fixture(root).inventory;
  REQUIRE(inv.gpus.size() == 8);
  CHECK(inv.gpus.front().pci_address == "0000:1b:00.0");
  CHECK(inv.gpus.back().pci_address == "0001:df:00.0");
  for (const auto& g : inv.gpus) CHECK(g.memory_bytes == 85520809984ULL);
  CHECK(inv.cdi_devices.size() == 17);
}

TEST_CASE("probe: the real machine running the tests probes without error") {
  RootFs fs("/");
  auto report = probe::probe_machine(fs);
  REQUIRE(report);
  for (const auto& g : report->inventory.gpus) CHECK_FALSE(g.name.empty());
}

TEST_CASE("inventory: JSON round-trips, unknowns stay null") {
  FixtureRoot root;
  mixed_workstation(root);
  auto inv = probe_fixture(root).inventory;
  auto back = probe::inventory_from_json(probe::to_json(inv), "test");
  REQUIRE(back);
  CHECK(*back == inv);
}

TEST_CASE("probe: an H100 in MIG mode lists its MIG devices by MIG index, holes and GI ids as NVML gives them") {
  FixtureRoot root;
  nvidia_mig(root, false);
  auto report = probe_fixture(root);
  CHECK(report.warnings.empty());
  const auto& mig = gpu_at(report.inventory, "0000:41:00.0");
  CHECK(mig.compute_partition == "MIG");
  REQUIRE(mig.partitions.size() == 4);
  const unsigned indices[] = {0, 1, 3, 4}, gis[] = {2, 3, 9, 10};
  const char* profiles[] = {"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"};
  const std::uint64_t mib[] = {40448, 20096, 9984, 9984};
  for (size_t i = 0; i < 4; ++i) {
    INFO("MIG device " << i);
    const auto& p = mig.partitions[i];
    CHECK(p.index == indices[i]);
    CHECK(p.gpu_instance == gis[i]);
    CHECK(p.compute_instance == 0u);
    CHECK(p.profile == profiles[i]);
    CHECK(p.memory_bytes == mib[i] * 1024 * 1024);
    CHECK(p.uuid.value_or("").starts_with("MIG-"));
    // The compute instance's capability node of the parent on /dev/nvidia1 (not NVML index 0).
    CHECK(p.device_nodes ==
          std::vector<std::string>{"/dev/nvidia-caps/nvidia-cap" + std::to_string(3 + 135 + 9 * gis[i] + 1)});
    CHECK_FALSE(p.render_node);
  }
  const auto& whole = gpu_at(report.inventory, "0001:c1:00.0");
  CHECK_FALSE(whole.compute_partition);  // MIG-capable, MIG off
  CHECK(whole.partitions.empty());
}

TEST_CASE("probe: MIG devices without mig-minors are still listed, with a warning that says what to do") {
  FixtureRoot root;
  nvidia_mig(root, false);
  std::filesystem::remove(root.host("/proc/driver/nvidia-caps/mig-minors"));
  auto report = probe_fixture(root);
  REQUIRE(report.warnings.size() == 1);
  CHECK_THAT(report.warnings[0], Catch::Contains("mig-minors") && Catch::Contains("nvidia-smi"));
  CHECK(gpu_at(report.inventory, "0000:41:00.0").partitions.size() == 4);
}

TEST_CASE("probe: MIG profile names as the toolkit computes them") {
  constexpr std::uint64_t h100 = 85520809984ULL, h200 = 150754820096ULL, a100_40 = 42505273344ULL;
  CHECK(probe::mig_profile_name(1, 1, 9984, h100) == "1g.10gb");
  CHECK(probe::mig_profile_name(7, 7, 80896, h100) == "7g.80gb");
  CHECK(probe::mig_profile_name(3, 1, 71424, h200) == "1c.3g.71gb");
  CHECK(probe::mig_profile_name(1, 1, 16384, h200) == "1g.18gb");
  CHECK(probe::mig_profile_name(1, 1, 4864, a100_40) == "1g.5gb");
  CHECK(probe::mig_profile_name(7, 7, 40192, a100_40) == "7g.40gb");
}
