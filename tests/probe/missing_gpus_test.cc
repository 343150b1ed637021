// The inventory's missing GPUs: how they are carried from one probe to the next, read from the
// NVIDIA driver's list, written and read back, and that they never reach anything.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cdi/inventory_names.h"
#include "probe/inventory.h"
#include "probe/missing_gpus.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machine_builder.h"

using namespace rgpu;
using namespace rgpu::test;

namespace {

probe::Gpu native(const std::string& address, const std::string& uuid) {
  probe::Gpu g;
  g.pci_address = address;
  g.vendor = probe::Vendor::nvidia;
  g.vendor_id = 0x10de;
  g.name = "NVIDIA H100 80GB HBM3";
  g.uuid = uuid;
  g.device_nodes = {"/dev/nvidia0"};
  g.cdi_devices = {"nvidia.com/gpu=0"};
  return g;
}

probe::Inventory made_at(const std::string& when, std::vector<probe::Gpu> gpus) {
  probe::Inventory inv;
  inv.generated_at = when;
  inv.gpus = std::move(gpus);
  return inv;
}

const probe::MissingGpu* missing(const probe::Inventory& inv, const std::string& address) {
  for (const auto& m : inv.missing_gpus) {
    if (m.pci_address == address) return &m;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("missing GPUs: what the recorded inventory had, kept or recorded missing, stays missing until back") {
  auto recorded = made_at("2025-01-01T00:00:00Z", {native("0000:41:00.0", "GPU-a"), native("0000:42:00.0", "GPU-b")});
  recorded.missing_gpus = {{"0000:43:00.0", probe::Vendor::amd, "MI210", std::string("77"), "2024-06-01T00:00:00Z"}};
  auto fresh = made_at("2025-02-01T00:00:00Z", {native("0000:42:00.0", "GPU-b")});
  probe::keep_missing_gpus(fresh, &recorded, {});
  REQUIRE(fresh.missing_gpus.size() == 2);
  // Newly missing: since this probe, with the identity it had.
  const auto* a = missing(fresh, "0000:41:00.0");
  REQUIRE(a);
  CHECK(a->missing_since == "2025-02-01T00:00:00Z");
  CHECK(a->uuid == "GPU-a");
  CHECK(a->vendor == probe::Vendor::nvidia);
  CHECK(a->name == "NVIDIA H100 80GB HBM3");
  // Missing before: its first time kept.
  const auto* c = missing(fresh, "0000:43:00.0");
  REQUIRE(c);
  CHECK(c->missing_since == "2024-06-01T00:00:00Z");
  CHECK(c->vendor == probe::Vendor::amd);

  // Back at its slot, or in another slot (its UUID): no longer missing.
  auto back = made_at("2025-03-01T00:00:00Z", {native("0000:42:00.0", "GPU-b"), native("0000:81:00.0", "GPU-a")});
  probe::keep_missing_gpus(back, &fresh, {});
  REQUIRE(back.missing_gpus.size() == 1);
  CHECK(back.missing_gpus[0].pci_address == "0000:43:00.0");
}

TEST_CASE("missing GPUs: the NVIDIA driver's list adds what sysfs no longer shows, with no inventory at all") {
  FixtureRoot root;
  MachineBuilder m(root);
  m.nvidia_proc_gpu({"0000:41:00.0", "NVIDIA H100 80GB HBM3", "GPU-11111111-2222-3333-4444-555555555555", 0});
  m.nvidia_proc_gpu({"0000:42:00.0", "NVIDIA H100 80GB HBM3", "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", 1});
  const RootFs fs(root.path());
  const auto listed = probe::nvidia_driver_gpus(fs);
  REQUIRE(listed.size() == 2);
  CHECK(listed[0].name == "NVIDIA H100 80GB HBM3");
  CHECK(listed[0].vendor == probe::Vendor::nvidia);
  auto fresh = made_at("2025-02-01T00:00:00Z", {native("0000:42:00.0", "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee")});
  probe::keep_missing_gpus(fresh, nullptr, listed);
  REQUIRE(fresh.missing_gpus.size() == 1);
  CHECK(fresh.missing_gpus[0].pci_address == "0000:41:00.0");
  CHECK(fresh.missing_gpus[0].uuid == "GPU-11111111-2222-3333-4444-555555555555");
  CHECK(fresh.missing_gpus[0].missing_since == "2025-02-01T00:00:00Z");
  // No driver loaded: nothing listed.
  FixtureRoot bare;
  CHECK(probe::nvidia_driver_gpus(RootFs(bare.path())).empty());
}

TEST_CASE("missing GPUs: written and read back, and an inventory of schema 3 reads with none") {
  auto inv = made_at("2025-02-01T00:00:00Z", {});
  inv.missing_gpus = {
      {"0000:41:00.0", probe::Vendor::nvidia, "NVIDIA H100 80GB HBM3", std::string("GPU-a"), "2025-01-01T00:00:00Z"},
      {"0000:03:00.0", probe::Vendor::amd, "Radeon", std::nullopt, "2025-01-02T00:00:00Z"}};
  probe::normalise(inv);
  CHECK(inv.missing_gpus[0].pci_address == "0000:03:00.0");
  const auto j = probe::to_json(inv);
  CHECK(j["schema"] == 4);
  CHECK(j["missing_gpus"][0]["uuid"].is_null());
  CHECK(j["missing_gpus"][1]["missing_since"] == "2025-01-01T00:00:00Z");
  auto read = probe::inventory_from_json(j, "inventory.json");
  REQUIRE(read);
  CHECK(*read == inv);

  auto old = j;
  old["schema"] = 3;
  old.erase("missing_gpus");
  auto old_read = probe::inventory_from_json(old, "inventory.json");
  REQUIRE(old_read);
  CHECK(old_read->missing_gpus.empty());
}

TEST_CASE("missing GPUs: one is forgotten only when missing, off the bus and no longer listed by the driver") {
  FixtureRoot root;
  const RootFs fs(root.path());
  auto inv = made_at("2025-02-01T00:00:00Z", {native("0000:42:00.0", "GPU-b")});
  inv.missing_gpus = {
      {"0000:41:00.0", probe::Vendor::nvidia, "NVIDIA H100 80GB HBM3", std::string("GPU-a"), "2025-01-01T00:00:00Z"}};
  auto on_bus = probe::forget_missing_gpu(fs, inv, "0000:42:00.0");
  REQUIRE_FALSE(on_bus);
  CHECK_THAT(on_bus.error().message, Catch::Contains("on the PCI bus now"));
  auto unknown = probe::forget_missing_gpu(fs, inv, "0000:99:00.0");
  REQUIRE_FALSE(unknown);
  CHECK_THAT(unknown.error().message, Catch::Contains("(missing: 0000:41:00.0)"));
  MachineBuilder(root).nvidia_proc_gpu({"0000:41:00.0", "NVIDIA H100 80GB HBM3", "GPU-a", 0});
  auto held = probe::forget_missing_gpu(fs, inv, "0000:41:00.0");
  REQUIRE_FALSE(held);
  CHECK_THAT(held.error().message, Catch::Contains("the NVIDIA driver still lists it"));
  CHECK(inv.missing_gpus.size() == 1);
  std::filesystem::remove_all(root.host("/proc/driver/nvidia/gpus"));
  REQUIRE(probe::forget_missing_gpu(fs, inv, "0000:41:00.0"));
  CHECK(inv.missing_gpus.empty());
}

TEST_CASE("missing GPUs: a GPU kept as missing gets no CDI name, whatever the specs still map") {
  // nvidia.yaml is left as it was when every NVIDIA GPU is missing: its names stay grantable names
  // of the machine, but none is attached to the missing GPU, which keeps no nodes to match.
  FixtureRoot root;
  root.write("/etc/cdi/nvidia.yaml",
             "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: \"0\"\n"
             "  containerEdits:\n    deviceNodes: [{path: /dev/nvidia0}]\n");
  auto inv = made_at("2025-02-01T00:00:00Z", {});
  inv.missing_gpus = {
      {"0000:41:00.0", probe::Vendor::nvidia, "NVIDIA H100 80GB HBM3", std::string("GPU-a"), "2025-01-01T00:00:00Z"}};
  const auto before = inv.missing_gpus;
  cdi::attach_cdi_names(inv, cdi::read_spec_dir(root.host("/etc/cdi")));
  CHECK(inv.cdi_devices == std::vector<std::string>{"nvidia.com/gpu=0"});
  CHECK(inv.gpus.empty());
  CHECK(inv.missing_gpus == before);
}
