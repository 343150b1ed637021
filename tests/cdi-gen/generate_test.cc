#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "cdi-gen/generate.h"
#include "cdi-gen/spec_writer.h"
#include "tests/probe/probe_test_support.h"
#include "tests/support/cdi_schema.h"
#include "tests/support/machine_builder.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu;
using namespace rgpu::test;

namespace {

// "name: node (major:minor), ..." for one spec: the exact device list a test expects.
std::vector<std::string> describe(const cdi::Spec& spec) {
  std::vector<std::string> out;
  for (const auto& d : spec.devices) {
    std::string line = d.name + ":";
    for (const auto& n : d.nodes) {
      line += " " + n.path + "(" + n.type + " " + std::to_string(n.major) + ":" + std::to_string(n.minor) + ")";
    }
    out.push_back(line);
  }
  return out;
}

// Both specs as setup writes them: numbered names and the hardware-keyed ones.
cdi::GeneratedSpecs generate_all(const FixtureRoot& root) {
  return cdi::generate_specs(RootFs(root.path()), probe_fixture(root).inventory);
}

bool keyed(const cdi::Device& d) { return d.name.starts_with("pci-"); }

// The numbered names alone (renderD128, gpu0, gpu0-cpx3, all), in the specs' order: what the
// tests of numbering look at. "every card is also named by its PCI address" covers the rest.
cdi::GeneratedSpecs generate(const FixtureRoot& root) {
  auto specs = generate_all(root);
  std::erase_if(specs.dri.devices, keyed);
  std::erase_if(specs.amd.devices, keyed);
  return specs;
}

using Lines = std::vector<std::string>;

}  // namespace

TEST_CASE("cdi generate: two NVIDIA GPUs get a DRI device each and no AMD spec") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  auto specs = generate(root);
  CHECK(describe(specs.dri) ==
        Lines{"renderD128: /dev/dri/renderD128(c 226:128)", "renderD129: /dev/dri/renderD129(c 226:129)"});
  CHECK(specs.amd.devices.empty());
  CHECK(specs.warnings.empty());
}

TEST_CASE("cdi generate: two AMD Instinct GPUs, gpu<N> in KFD order with /dev/kfd") {
  FixtureRoot root;
  two_amd_instinct(root);
  auto specs = generate(root);
  CHECK(describe(specs.dri) ==
        Lines{"renderD128: /dev/dri/renderD128(c 226:128)", "renderD129: /dev/dri/renderD129(c 226:129)"});
  CHECK(describe(specs.amd) ==
        Lines{"gpu0: /dev/kfd(c 234:0) /dev/dri/renderD128(c 226:128)",
              "gpu1: /dev/kfd(c 234:0) /dev/dri/renderD129(c 226:129)",
              "all: /dev/kfd(c 234:0) /dev/dri/renderD128(c 226:128) /dev/dri/renderD129(c 226:129)"});
}

TEST_CASE("cdi generate: AMD numbering follows the KFD topology, not PCI order") {
  FixtureRoot root;
  two_amd_instinct(root);
  MachineBuilder m(root);
  m.kfd_gpu_node({2, 0, 0xc300, 129, "9167385512990120221", 0});  // node 2 is now the second card
  m.kfd_gpu_node({3, 0, 0x4300, 128, "5847760019078012339", 0});
  auto specs = generate(root);
  REQUIRE(specs.amd.devices.size() == 3);
  CHECK(specs.amd.devices[0].nodes[1].path == "/dev/dri/renderD129");
  CHECK(specs.amd.devices[1].nodes[1].path == "/dev/dri/renderD128");
}

TEST_CASE("cdi generate: AMD cards without a topology are numbered in PCI order") {
  FixtureRoot root;
  two_amd_instinct(root);
  std::filesystem::remove_all(root.host("/sys/class/kfd"));
  auto specs = generate(root);
  REQUIRE(specs.amd.devices.size() == 3);
  CHECK(specs.amd.devices[0].nodes[1].path == "/dev/dri/renderD128");
}

TEST_CASE("cdi generate: a partitioned MI300X card's name maps every partition, each partition has its own") {
  FixtureRoot root;
  amd_mi300x_partitioned(root);
  auto specs = generate(root);
  Lines dri, amd, card0 = {"gpu0: /dev/kfd(c 239:0)"}, card1 = {"gpu1: /dev/kfd(c 239:0)"};
  std::string all = "all: /dev/kfd(c 239:0)";
  for (unsigned r = 128; r < 144; ++r) {
    const std::string node = "/dev/dri/renderD" + std::to_string(r) + "(c 226:" + std::to_string(r) + ")";
    dri.push_back("renderD" + std::to_string(r) + ": " + node);
    (r < 136 ? card0 : card1).front() += " " + node;
    (r < 136 ? card0 : card1)
        .push_back("gpu" + std::to_string(r < 136 ? 0 : 1) + "-cpx" + std::to_string(r % 8) + ": /dev/kfd(c 239:0) " +
                   node);
    all += " " + node;
  }
  CHECK(describe(specs.dri) == dri);
  amd = card0;
  amd.insert(amd.end(), card1.begin(), card1.end());
  amd.push_back(all);
  CHECK(describe(specs.amd) == amd);
}

TEST_CASE("cdi generate: 8 MI300X in CPX, 63 partitions: every partition grantable, all reaches each") {
  FixtureRoot root;
  amd_instinct_x8(root, true, 8, true);
  auto specs = generate(root);
  CHECK(specs.warnings.empty());
  CHECK(specs.dri.devices.size() == 63);
  // 8 cards + 63 partitions + all.
  REQUIRE(specs.amd.devices.size() == 8 + 63 + 1);
  const auto& all = specs.amd.devices.back();
  CHECK(all.name == "all");
  CHECK(all.nodes.size() == 1 + 63);
  std::set<std::string> renders;
  for (const auto& d : specs.amd.devices) {
    if (d.name.find("-cpx") == std::string::npos) continue;
    REQUIRE(d.nodes.size() == 2);
    CHECK(d.nodes[0].path == "/dev/kfd");
    renders.insert(d.nodes[1].path);
  }
  CHECK(renders.size() == 63);
  for (const auto& d : specs.amd.devices) {
    if (d.name == "gpu7") CHECK(d.nodes.size() == 1 + 7);
    if (d.name == "gpu0") CHECK(d.nodes.size() == 1 + 8);
  }
}

TEST_CASE("cdi generate: unsplit cards keep their names: MI210 and MI300X in SPX") {
  for (bool mi300x : {false, true}) {
    FixtureRoot root;
    amd_instinct_x8(root, mi300x, 1);
    auto specs = generate(root);
    Lines names;
    for (const auto& d : specs.amd.devices) names.push_back(d.name + " " + std::to_string(d.nodes.size()));
    CHECK(names == Lines{"gpu0 2", "gpu1 2", "gpu2 2", "gpu3 2", "gpu4 2", "gpu5 2", "gpu6 2", "gpu7 2", "all 9"});
  }
}

TEST_CASE("cdi generate: the inventory says which names reach the whole card and which a partition") {
  FixtureRoot root;
  amd_mi300x_partitioned(root);
  REQUIRE(run_tool({"probe", "--root", root.str()}).exit_code == 0);
  REQUIRE(run_tool({"cdi", "generate", "--root", root.str()}).exit_code == 0);
  auto inv = nlohmann::json::parse(root.read("/etc/rediacc/gpu/inventory.json"));
  const auto& card = inv["gpus"][0];
  CHECK(card["cdi_devices"] ==
        nlohmann::json({"rediacc.io/amd=all", "rediacc.io/amd=gpu0", "rediacc.io/amd=pci-0000-05-00.0"}));
  REQUIRE(card["partitions"].size() == 8);
  CHECK(card["partitions"][3]["cdi_devices"] ==
        nlohmann::json({"rediacc.io/amd=gpu0-cpx3", "rediacc.io/amd=pci-0000-05-00.0-cpx3",
                        "rediacc.io/dri=pci-0000-05-00.0-cpx3", "rediacc.io/dri=renderD131"}));
}

TEST_CASE("cdi generate: every card is also named by its PCI address, mapping exactly what its number maps") {
  for (const auto& machine : named_machines()) {
    FixtureRoot root;
    machine.build(root);
    INFO(machine.name);
    const auto inventory = probe_fixture(root).inventory;
    const auto specs = cdi::generate_specs(RootFs(root.path()), inventory);
    for (const auto* spec : {&specs.dri, &specs.amd}) {
      for (const auto& d : spec->devices) {
        if (keyed(d) || d.name == "all") continue;
        INFO(spec->kind() << "=" << d.name);
        // The numbered name's card has an address (all but WSL2's), and its keyed name maps the same nodes.
        const auto same = std::find_if(spec->devices.begin(), spec->devices.end(),
                                       [&](const cdi::Device& k) { return keyed(k) && k.nodes == d.nodes; });
        CHECK(same != spec->devices.end());
      }
      for (const auto& d : spec->devices) {
        // Compose splits a devices: entry at ':', so a keyed name never holds one.
        if (keyed(d)) CHECK(d.name.find(':') == std::string::npos);
      }
    }
  }
  FixtureRoot root;
  amd_mi300x_partitioned(root);
  Lines names;
  for (const auto& d : generate_all(root).amd.devices) {
    if (keyed(d) && d.name.starts_with("pci-0000-05-00.0"))
      names.push_back(d.name + " " + std::to_string(d.nodes.size()));
  }
  CHECK(names == Lines{"pci-0000-05-00.0 9", "pci-0000-05-00.0-cpx0 2", "pci-0000-05-00.0-cpx1 2",
                       "pci-0000-05-00.0-cpx2 2", "pci-0000-05-00.0-cpx3 2", "pci-0000-05-00.0-cpx4 2",
                       "pci-0000-05-00.0-cpx5 2", "pci-0000-05-00.0-cpx6 2", "pci-0000-05-00.0-cpx7 2"});
  CHECK(cdi::hardware_key("0000:C3:00.0") == "pci-0000-c3-00.0");
}

namespace {

// The workstation's RTX 4090 (01:00.0) and Radeon (03:00.0), with the render minors given: a card
// moved to another slot, or probed in another order at boot, trades numbers with the other.
void two_cards(const FixtureRoot& root, unsigned nvidia_render, unsigned amd_render) {
  MachineBuilder m(root);
  m.pci({"0000:01:00.0", 0x10de, 0x2684, 0x030000, "nvidia", 0, nvidia_render});
  m.pci({"0000:03:00.0", 0x1002, 0x73bf, 0x030000, "amdgpu", 1, amd_render});
  m.nvidia_device_node(0);
  m.nvidia_version("570.86.15", true);
  m.nvidia_proc_gpu({"0000:01:00.0", "NVIDIA GeForce RTX 4090", "GPU-40904090-4090-4090-4090-409040904090", 0});
  m.kfd_device(234);
  m.kfd_cpu_node(0);
  m.kfd_gpu_node({1, 0, 0x0300, amd_render, "1234567890123456789", 0});
}

std::string nodes_of(const cdi::Spec& spec, const std::string& name) {
  for (const auto& d : spec.devices) {
    if (d.name != name) continue;
    std::string out;
    for (const auto& n : d.nodes) out += (out.empty() ? "" : " ") + n.path;
    return out;
  }
  return "(none)";
}

}  // namespace

TEST_CASE("cdi generate: when two cards trade render numbers, the numbers move and the PCI names stay") {
  FixtureRoot before, after;
  two_cards(before, 128, 129);
  two_cards(after, 129, 128);
  const auto was = generate_all(before), now = generate_all(after);
  CHECK(nodes_of(was.dri, "renderD128") == nodes_of(now.dri, "renderD128"));  // the same path, another card
  CHECK(nodes_of(was.dri, "pci-0000-01-00.0") == "/dev/dri/renderD128");
  CHECK(nodes_of(now.dri, "pci-0000-01-00.0") == "/dev/dri/renderD129");
  CHECK(nodes_of(was.amd, "pci-0000-03-00.0") == "/dev/kfd /dev/dri/renderD129");
  CHECK(nodes_of(now.amd, "pci-0000-03-00.0") == "/dev/kfd /dev/dri/renderD128");
  CHECK(nodes_of(now.amd, "gpu0") == nodes_of(now.amd, "pci-0000-03-00.0"));
}

TEST_CASE("cdi generate: an Intel GPU, a workstation, WSL2 and a machine without GPU") {
  FixtureRoot intel, mixed, wsl, none;
  intel_discrete(intel);
  mixed_workstation(mixed);
  wsl2_nvidia(wsl);
  no_gpu(none);
  CHECK(describe(generate(intel).dri) == Lines{"renderD128: /dev/dri/renderD128(c 226:128)"});
  CHECK(generate(intel).amd.devices.empty());
  auto ws = generate(mixed);
  CHECK(describe(ws.dri) == Lines{"renderD128: /dev/dri/renderD128(c 226:128)",
                                  "renderD129: /dev/dri/renderD129(c 226:129)",
                                  "renderD130: /dev/dri/renderD130(c 226:130)"});
  CHECK(describe(ws.amd) == Lines{"gpu0: /dev/kfd(c 234:0) /dev/dri/renderD130(c 226:130)",
                                  "all: /dev/kfd(c 234:0) /dev/dri/renderD130(c 226:130)"});
  CHECK(generate(wsl).dri.devices.empty());
  CHECK(generate(none).dri.devices.empty());
}

TEST_CASE("cdi generate: every spec validates against the official CDI schema") {
  for (const auto& machine : named_machines()) {
    FixtureRoot root;
    machine.build(root);
    auto specs = generate_all(root);
    for (const auto* spec : {&specs.dri, &specs.amd}) {
      if (spec->devices.empty()) continue;
      INFO(machine.name << " " << spec->kind());
      CHECK(cdi_schema_errors(nlohmann::json::parse(cdi::spec_text(*spec))).empty());
      CHECK(cdi::minimum_cdi_version(*spec) == "0.3.0");
    }
  }
}

TEST_CASE("inventory schema: every machine's inventory, probed and after setup, validates against the schema") {
  for (const auto& machine : named_machines()) {
    FixtureRoot root;
    machine.build(root);
    INFO(machine.name);
    REQUIRE(run_tool({"probe", "--root", root.str()}).exit_code == 0);
    auto probed = nlohmann::json::parse(root.read("/etc/rediacc/gpu/inventory.json"));
    std::string errors;
    for (const auto& e : inventory_schema_errors(probed)) errors += e + "\n";
    CHECK(errors == "");
    REQUIRE(run_tool({"cdi", "generate", "--root", root.str()}).exit_code == 0);
    CHECK(inventory_schema_errors(nlohmann::json::parse(root.read("/etc/rediacc/gpu/inventory.json"))).empty());
  }
  // And the validator does refuse what breaks it.
  CHECK_FALSE(inventory_schema_errors(
                  nlohmann::json::parse(R"({"schema":1,"generated_at":"x","hostname":null,"platform":"native",)"
                                        R"("gpus":[{"memory_bytes":0}],"cdi_devices":[]})"))
                  .empty());
}

TEST_CASE("cdi schema: the validator does catch a spec that breaks the schema") {
  CHECK_FALSE(
      cdi_schema_errors(nlohmann::json::parse(R"({"cdiVersion":"0.3.0","kind":"a.b/c","devices":[{}]})")).empty());
}

TEST_CASE("cdi version: the lowest version that supports what a spec uses") {
  cdi::Spec spec{"rediacc.io", "dri", {{"renderD128", {}}}};
  CHECK(cdi::minimum_cdi_version(spec) == "0.3.0");
  spec.devices.push_back({"0", {}});
  CHECK(cdi::minimum_cdi_version(spec) == "0.5.0");
  spec.klass = "d.ri";
  CHECK(cdi::minimum_cdi_version(spec) == "0.6.0");
}

TEST_CASE("cdi generate: a render node gone from /dev is left out with a warning") {
  FixtureRoot root;
  two_amd_instinct(root);
  std::filesystem::remove(root.host("/dev/dri/renderD129"));
  auto specs = generate(root);
  CHECK(describe(specs.dri) == Lines{"renderD128: /dev/dri/renderD128(c 226:128)"});
  CHECK(specs.amd.devices.size() == 2);  // gpu0 and all
  REQUIRE(specs.warnings.size() == 2);
  CHECK_THAT(specs.warnings[0], Catch::Contains("renderD129"));
}

TEST_CASE("cdi write: same specs again change nothing, and an emptied kind loses its file") {
  FixtureRoot root;
  two_amd_instinct(root);
  RootFs fs(root.path());
  MachineFileSink sink(fs);
  auto specs = generate_all(root);
  auto first = cdi::write_specs(sink, {specs.dri, specs.amd});
  REQUIRE(first);
  CHECK((*first)[0] == Change{Change::Kind::write, "/etc/cdi/rediacc.io-dri.json", (*first)[0].detail});
  CHECK((*first)[1].target == "/etc/cdi/rediacc.io-amd.json");
  const auto mtime = std::filesystem::last_write_time(root.host("/etc/cdi/rediacc.io-amd.json"));
  auto again = cdi::write_specs(sink, {specs.dri, specs.amd});
  REQUIRE(again);
  for (const auto& c : *again) CHECK(c.kind == Change::Kind::unchanged);
  CHECK(std::filesystem::last_write_time(root.host("/etc/cdi/rediacc.io-amd.json")) == mtime);

  std::filesystem::remove(root.host("/dev/kfd"));
  auto without_kfd = generate_all(root);
  auto third = cdi::write_specs(sink, {without_kfd.dri, without_kfd.amd});
  REQUIRE(third);
  CHECK((*third)[1].kind == Change::Kind::remove);
  CHECK_FALSE(std::filesystem::exists(root.host("/etc/cdi/rediacc.io-amd.json")));
}

TEST_CASE("cdi write: refuses a symlink at our path and leaves the other specs and vendors alone") {
  FixtureRoot root;
  two_amd_instinct(root);
  root.write("/etc/cdi/nvidia.yaml", "someone else's\n");
  root.write("/elsewhere.json", "keep\n");
  root.link("/etc/cdi/rediacc.io-amd.json", "/elsewhere.json");
  auto specs = generate(root);
  RootFs fs(root.path());
  MachineFileSink sink(fs);
  auto r = cdi::write_specs(sink, {specs.dri, specs.amd});
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("rediacc.io-amd.json is a symbolic link"));
  CHECK(root.read("/elsewhere.json") == "keep\n");
  CHECK(root.read("/etc/cdi/nvidia.yaml") == "someone else's\n");
  CHECK(nlohmann::json::parse(root.read("/etc/cdi/rediacc.io-dri.json"))["kind"] == "rediacc.io/dri");
}

TEST_CASE("inventory names: each MIG device's names under it, the GPU's whole names under the GPU") {
  for (bool before_118 : {false, true}) {
    INFO((before_118 ? "toolkit 1.17" : "toolkit 1.18"));
    FixtureRoot root;
    nvidia_mig(root, before_118);
    REQUIRE(run_tool({"probe", "--root", root.str()}).exit_code == 0);
    auto inv = nlohmann::json::parse(root.read("/etc/rediacc/gpu/inventory.json"));
    const auto& mig = inv["gpus"][0];
    REQUIRE(mig["pci_address"] == "0000:41:00.0");
    // 1.17 names the MIG GPU whole too ("0", its parent node only); 1.18 does not.
    CHECK(mig["cdi_devices"] ==
          (before_118 ? nlohmann::json({"nvidia.com/gpu=0", "nvidia.com/gpu=GPU-41255406-c9af-f94b-4ebf-9d57ad1853da",
                                        "nvidia.com/gpu=all"})
                      : nlohmann::json({"nvidia.com/gpu=all"})));
    CHECK(mig["partitions"][2]["index"] == 3);
    CHECK(mig["partitions"][2]["cdi_devices"] ==
          nlohmann::json({"nvidia.com/gpu=0:3", "nvidia.com/gpu=MIG-1c2d3e4f-5061-5728-93a4-b5c6d7e8f90a"}));
    CHECK(inv["gpus"][1]["cdi_devices"] ==
          nlohmann::json(
              {"nvidia.com/gpu=1", "nvidia.com/gpu=GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", "nvidia.com/gpu=all"}));
    CHECK(inventory_schema_errors(inv).empty());
  }
}
