#include <catch2/catch.hpp>

#include "probe/sysfs_parsers.h"

using namespace rgpu::probe;

TEST_CASE("parsers: sysfs hex attributes, and text that is not hex") {
  REQUIRE(parse_hex_attribute("0x10de\n") == 0x10deu);
  REQUIRE(parse_hex_attribute("0x030200") == 0x030200u);
  REQUIRE_FALSE(parse_hex_attribute("zz\n"));
  REQUIRE_FALSE(parse_hex_attribute(""));
  REQUIRE_FALSE(parse_hex_attribute("0x10dezz"));
}

TEST_CASE("parsers: KFD properties, with a truncated last line dropped") {
  auto props = parse_space_pairs("simd_count 416\nlocation_id 17152\ndomain 0\ndrm_render_mi");
  REQUIRE(props.at("simd_count") == "416");
  REQUIRE(props.at("location_id") == "17152");
  REQUIRE(props.count("drm_render_mi") == 0);
}

TEST_CASE("parsers: NVIDIA information files split on the first colon with tabs around") {
  auto f = parse_colon_pairs(
      "Model: \t\t NVIDIA A10G\nGPU UUID: \t GPU-1a2b\nBus Location: \t 0000:00:1e.0\nDevice Minor: \t 0\n");
  REQUIRE(f.at("Model") == "NVIDIA A10G");
  REQUIRE(f.at("GPU UUID") == "GPU-1a2b");
  REQUIRE(f.at("Bus Location") == "0000:00:1e.0");
  REQUIRE(f.at("Device Minor") == "0");
}

TEST_CASE("parsers: the NVIDIA driver version from the proprietary and the open module") {
  REQUIRE(parse_nvidia_version(
              "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n") ==
          "550.54.15");
  REQUIRE(parse_nvidia_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build  "
                               "(dvs-builder@U16-I3-B03-4-3)  Tue Jan 14 03:32:56 UTC 2025\n") == "570.86.15");
  REQUIRE_FALSE(parse_nvidia_version("garbage"));
}

TEST_CASE("parsers: PCI addresses from sysfs and from NVML agree") {
  REQUIRE(canonical_pci_address("00000000:41:00.0") == "0000:41:00.0");
  REQUIRE(canonical_pci_address("00000001:C1:00.0") == "0001:c1:00.0");
  REQUIRE(canonical_pci_address("10000:00:00.0") == "10000:00:00.0");
  REQUIRE_FALSE(canonical_pci_address("41:00.0"));
  REQUIRE_FALSE(canonical_pci_address("0000:41:20.0"));
}

TEST_CASE("parsers: a KFD node's PCI address comes from domain and location_id") {
  REQUIRE(kfd_pci_address(0, 17152) == "0000:43:00.0");
  REQUIRE(kfd_pci_address(1, 0x0501) == "0001:05:00.1");
}

TEST_CASE("parsers: WSL kernels are told apart from native ones") {
  REQUIRE(is_wsl_kernel_release("5.15.167.4-microsoft-standard-WSL2"));
  REQUIRE_FALSE(is_wsl_kernel_release("6.1.0-27-amd64"));
}

TEST_CASE("parsers: PCIe link speed and width in both kernels' formats, NUMA node -1 unknown") {
  CHECK(parse_link_speed_gts("32.0 GT/s PCIe\n") == 32.0);
  CHECK(parse_link_speed_gts("2.5 GT/s PCIe") == 2.5);
  CHECK(parse_link_speed_gts("8 GT/s\n") == 8.0);
  CHECK(parse_link_speed_gts("2.5 GT/s") == 2.5);
  for (const char* unknown :
       {"Unknown", "Unknown speed", "", "GT/s", ".5 GT/s", "1.2.3 GT/s", "inf GT/s", "0x10 GT/s"}) {
    INFO(unknown);
    CHECK_FALSE(parse_link_speed_gts(unknown));
  }
  CHECK(parse_link_width("16\n") == 16u);
  CHECK_FALSE(parse_link_width("0"));
  CHECK_FALSE(parse_link_width("x16"));
  CHECK(parse_numa_node("0\n") == 0);
  CHECK(parse_numa_node("3") == 3);
  CHECK_FALSE(parse_numa_node("-1\n"));
  CHECK_FALSE(parse_numa_node(""));
}
