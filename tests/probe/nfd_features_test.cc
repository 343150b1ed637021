#include <catch2/catch.hpp>
#include <map>
#include <regex>
#include <sstream>

#include "probe/nfd_features.h"
#include "tests/probe/probe_test_support.h"
#include "tests/support/machines.h"

using namespace rgpu;
using namespace rgpu::test;

namespace {

std::map<std::string, std::string> labels_of(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto eq = line.find('=');
    REQUIRE(eq != std::string::npos);
    out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

std::map<std::string, std::string> labels_of(const FixtureRoot& root) {
  return labels_of(probe::nfd_features(probe_fixture(root).inventory));
}

// Kubernetes: a label value is empty or at most 63 of [A-Za-z0-9-_.], alphanumeric at both ends;
// the name (nfd prefixes it with feature.node.kubernetes.io/) obeys the same rule, never empty.
const std::regex kLabelPart("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");

}  // namespace

TEST_CASE("nfd labels: product names become label values") {
  CHECK(probe::label_value("NVIDIA H100 80GB HBM3") == "NVIDIA-H100-80GB-HBM3");
  CHECK(probe::label_value("Intel(R) Arc(TM) A770 Graphics") == "Intel-R-Arc-TM-A770-Graphics");
  CHECK(probe::label_value("  AMD Instinct MI300X  ") == "AMD-Instinct-MI300X");
  CHECK(probe::label_value("[AMD/ATI] Navi 31 [Radeon RX 7900 XT]") == "AMD-ATI-Navi-31-Radeon-RX-7900-XT");
  CHECK(probe::label_value("550.54.15") == "550.54.15");
  CHECK(probe::label_value("___") == "");
  CHECK(probe::label_value("") == "");
  const std::string long_name(70, 'a');
  CHECK(probe::label_value(long_name) == std::string(63, 'a'));
  // Cut at 63 and never left ending in a separator.
  CHECK(probe::label_value(std::string(62, 'b') + " c") == std::string(62, 'b'));
}

TEST_CASE("nfd labels: every fixture machine's labels obey Kubernetes' rules") {
  for (const auto& machine : named_machines()) {
    FixtureRoot root;
    machine.build(root);
    INFO(machine.name);
    const auto labels = labels_of(root);
    CHECK(labels.count("rediacc-gpu.count") == 1);
    CHECK(labels.count("rediacc-gpu.platform") == 1);
    for (const auto& [name, value] : labels) {
      INFO(name << "=" << value);
      CHECK(name.size() <= 63);
      CHECK(std::regex_match(name, kLabelPart));
      CHECK(value.size() <= 63);
      CHECK(std::regex_match(value, kLabelPart));
    }
  }
}

TEST_CASE("nfd labels: NVIDIA through NVML, as GPU feature discovery offers them") {
  FixtureRoot root;
  dgx_h100(root);
  const auto labels = labels_of(root);
  CHECK(labels.at("rediacc-gpu.count") == "8");
  CHECK(labels.at("rediacc-gpu.nvidia.count") == "8");
  CHECK(labels.at("rediacc-gpu.nvidia.product") == "NVIDIA-H100-80GB-HBM3");
  CHECK(labels.at("rediacc-gpu.nvidia.memory") == "81559");
  CHECK(labels.at("rediacc-gpu.nvidia.driver.version") == "550.54.15");
  CHECK(labels.at("rediacc-gpu.nvidia.driver.major") == "550");
  CHECK(labels.at("rediacc-gpu.nvidia.driver.minor") == "54");
  CHECK(labels.at("rediacc-gpu.nvidia.driver.rev") == "15");
  CHECK(labels.count("rediacc-gpu.nvidia.cuda.major") == 0);  // this NVML answers no CUDA version
  CHECK(labels.at("rediacc-gpu.platform") == "native");
  CHECK(labels.count("rediacc-gpu.amd.count") == 0);
}

TEST_CASE("nfd labels: MIG capability comes from NVML, and is absent without it") {
  FixtureRoot mig;
  nvidia_mig(mig, false);
  CHECK(labels_of(mig).at("rediacc-gpu.nvidia.mig.capable") == "true");
  FixtureRoot whole;
  two_nvidia_datacenter(whole, true);  // NVML answers MIG mode NOT_SUPPORTED for these fakes
  const auto whole_labels = labels_of(whole);
  CHECK(whole_labels.at("rediacc-gpu.nvidia.mig.capable") == "false");
  CHECK(whole_labels.at("rediacc-gpu.nvidia.cuda.major") == "12");
  CHECK(whole_labels.at("rediacc-gpu.nvidia.cuda.minor") == "4");
  CHECK(whole_labels.count("rediacc-gpu.nvidia.cuda.rev") == 0);
  FixtureRoot procfs;
  two_nvidia_datacenter(procfs, false);
  const auto labels = labels_of(procfs);
  CHECK(labels.count("rediacc-gpu.nvidia.mig.capable") == 0);
  CHECK(labels.count("rediacc-gpu.nvidia.memory") == 0);  // /proc/driver/nvidia knows no memory
  CHECK(labels.count("rediacc-gpu.nvidia.cuda.major") == 0);
  CHECK(labels.at("rediacc-gpu.nvidia.product") == "NVIDIA-H100-80GB-HBM3");
}

TEST_CASE("nfd labels: AMD partition modes, and vendors side by side") {
  FixtureRoot cpx;
  amd_mi300x_partitioned(cpx);
  auto labels = labels_of(cpx);
  CHECK(labels.at("rediacc-gpu.amd.count") == "2");
  CHECK(labels.at("rediacc-gpu.amd.compute-partition") == "CPX");
  CHECK(labels.count("rediacc-gpu.nvidia.count") == 0);
  FixtureRoot ws;
  mixed_x8(ws);
  labels = labels_of(ws);
  CHECK(labels.at("rediacc-gpu.count") == "8");
  CHECK(labels.at("rediacc-gpu.nvidia.count") == "4");
  CHECK(labels.at("rediacc-gpu.amd.count") == "3");
  CHECK(labels.at("rediacc-gpu.intel.count") == "1");
  CHECK(labels.count("rediacc-gpu.nvidia.mig.capable") == 0);
}

TEST_CASE("nfd labels: GPUs of one vendor that differ read mixed, memory is the smallest") {
  probe::Inventory inv;
  probe::Gpu a;
  a.vendor = probe::Vendor::nvidia;
  a.name = "NVIDIA H100 80GB HBM3";
  a.memory_bytes = 80ULL << 30;
  a.driver_version = "550.54.15";
  probe::Gpu b = a;
  b.name = "NVIDIA L4";
  b.memory_bytes = 24ULL << 30;
  inv.gpus = {a, b};
  inv.cuda_driver_version = "12.4";
  const auto labels = labels_of(probe::nfd_features(inv));
  CHECK(labels.at("rediacc-gpu.nvidia.product") == "mixed");
  CHECK(labels.at("rediacc-gpu.nvidia.memory") == "24576");
  CHECK(labels.at("rediacc-gpu.nvidia.driver.major") == "550");
  CHECK(labels.at("rediacc-gpu.nvidia.cuda.major") == "12");
  CHECK(labels.at("rediacc-gpu.nvidia.cuda.minor") == "4");
}
