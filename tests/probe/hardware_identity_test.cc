// The hardware a device node reaches, as the gate judges a grant's: a card by its PCI address (an
// NVIDIA GPU by its UUID), a partition by card and mode, a MIG slice by GPU and instance, each node
// read as the device number the runtime creates, never taken on trust from an earlier answer.

#include <sys/mount.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "probe/hardware_identity.h"
#include "tests/support/admit_on.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machine_builder.h"
#include "tests/support/machines.h"

using namespace rgpu;
using namespace rgpu::test;
using Catch::Contains;
using nlohmann::json;

namespace {

constexpr const char* kGpuA = kDatacenterGpuA;
constexpr const char* kGpuB = kDatacenterGpuB;

std::vector<std::string> ids(std::initializer_list<const char*> list) { return {list.begin(), list.end()}; }

}  // namespace

TEST_CASE("hardware identity: each kind of node is read as the card it reaches, not its number") {
  FixtureRoot root;
  workstation_numbered(root, {128, 129, 130});
  const RootFs fs(root.path());
  const probe::HardwareReader reader(fs);
  CHECK(reader.identity("/dev/dri/renderD128") == "0000:00:02.0");
  CHECK(reader.identity("/dev/dri/renderD129") == kWorkstation4090Uuid);  // an NVIDIA card is its UUID
  CHECK(reader.identity("/dev/dri/card1") == kWorkstation4090Uuid);
  CHECK(reader.identity("/dev/nvidia0") == kWorkstation4090Uuid);
  CHECK(reader.identity("/dev/dri/renderD130") == "0000:03:00.0");
  const auto gone = reader.identity("/dev/dri/renderD131");
  REQUIRE_FALSE(gone);
  CHECK_THAT(gone.error().message, Contains("cannot tell which hardware /dev/dri/renderD131 reaches"));
  CHECK_FALSE(reader.identity("/dev/nvidia1"));
  CHECK_FALSE(reader.identity("/dev/kfd"));
  // The same reader after the cards traded numbers: nothing it remembered is taken on trust.
  workstation_numbered(root, {128, 130, 129});
  CHECK(reader.identity("/dev/dri/renderD129") == "0000:03:00.0");
  CHECK(reader.identity("/dev/dri/renderD130") == kWorkstation4090Uuid);
  CHECK(probe::identity_covers("0000:05:00.0", "0000:05:00.0/cpx3"));
  CHECK_FALSE(probe::identity_covers("0000:05:00.0/cpx3", "0000:05:00.0"));
  CHECK_FALSE(probe::identity_covers("0000:05:00.0", "0000:05:00.01"));
}

TEST_CASE("hardware identity: partitions by card and mode, MIG slices by GPU and instance") {
  FixtureRoot cpx, mig;
  amd_instinct_x8(cpx, true, 8);
  nvidia_mig(mig, false);
  const RootFs cpx_fs(cpx.path()), mig_fs(mig.path());
  const probe::HardwareReader amd(cpx_fs), nvidia(mig_fs);
  CHECK(amd.identity("/dev/dri/renderD128") == "0000:05:00.0/cpx0");  // the card's own node is partition 0
  CHECK(amd.identity("/dev/dri/renderD136") == "0000:05:00.0/cpx1");
  CHECK(amd.identity("/dev/dri/card9") == "0000:05:00.0/cpx1");
  CHECK(amd.identity("/dev/dri/renderD143") == "0000:26:00.0/cpx1");
  const auto migs = tool_on(mig, {"cdi", "list", "-o", "json"});
  REQUIRE(migs.exit_code == 0);
  bool saw_slice = false;
  const auto listed = json::parse(migs.out);
  for (const auto& d : listed["devices"]) {
    const std::string name = d["name"];
    if (!name.starts_with("nvidia.com/gpu=0:")) continue;
    std::vector<std::string> nodes;
    for (const auto& n : d["device_nodes"]) nodes.push_back(n);
    const auto ids = nvidia.identities(nodes);
    REQUIRE(ids);
    INFO(name);
    REQUIRE_FALSE(ids->empty());
    // The parent /dev/nvidia0 it maps is no GPU whole: only its GPU instance is named.
    for (const auto& id : *ids) CHECK_THAT(id, Contains("GPU-") && Contains("/gi"));
    saw_slice = true;
  }
  CHECK(saw_slice);
}

TEST_CASE("exact reach: a node is the device number the runtime creates, whatever its path says") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.link("/dev/char/195:1", "../nvidia1");
  root.link("/dev/dri/by-path/pci-0000:41:00.0-render", "../renderD128");
  root.char_node("/dev/gpu-one", 195, 1);
  root.char_node("/dev/fb0", 29, 0);
  root.char_driver(29, "fb");
  const RootFs fs(root.path());
  const probe::HardwareReader reader(fs);
  using probe::NodeRef;
  const auto of = [&](NodeRef n) { return reader.identities(std::vector<NodeRef>{std::move(n)}); };
  // The spec's own numbers, with a type (or without one: the host node's type, the spec's numbers).
  CHECK(of({"/dev/nvidia0", "c", 195, 1}) == ids({kGpuA}));
  CHECK(of({"/dev/nvidia0", "", 195, 1}) == ids({kGpuA}));
  CHECK(of({"/dev/dri/renderD129", "c", 226, 128}) == ids({kGpuA}));
  // A type with major 0 takes the host node's numbers; another type than the host node's is refused.
  CHECK(of({"/dev/nvidia0", "c", 0, 7}) == ids({kGpuB}));
  CHECK_FALSE(of({"/dev/nvidia0", "b", 0, 0}));
  // Other spellings of a node, each read as the number it is.
  CHECK(of({"/dev//nvidia1", "", 0, 0}) == ids({kGpuA}));
  CHECK(of({"/dev/gpu-one", "", 0, 0}) == ids({kGpuA}));
  CHECK(of({"/dev/dri/../nvidia1", "", 0, 0}) == ids({kGpuA}));
  // A link is no device node to the runtime (lstat): refused, fail closed, never skipped.
  for (const char* link : {"/dev/char/195:1", "/dev/dri/by-path/pci-0000:41:00.0-render"}) {
    const auto r = of({link, "", 0, 0});
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Contains(link) && Contains("link"));
  }
  // Nodes every GPU shares reach none; a GPU's framebuffer is hardware whose GPU cannot be told.
  CHECK(of({"/dev/nvidia-uvm", "", 0, 0}) == std::vector<std::string>{});
  CHECK(of({"/dev/nvidiactl", "", 0, 0}) == std::vector<std::string>{});
  CHECK_FALSE(of({"/dev/fb0", "", 0, 0}));
  CHECK_FALSE(of({"/dev/not-there", "", 0, 0}));
  CHECK_FALSE(of({"/dev/nvidia0", "c", 195, 9}));  // no GPU has Device Minor 9
}

// The reader keeps what a settled directory's nodes are: a node made anew, or another mounted over
// it, must still be read as the number it is now.
TEST_CASE("exact reach: a node replaced or mounted over in a settled directory is read anew") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.char_node("/dev/gpus/x", 195, 1);
  const RootFs fs(root.path());
  const probe::HardwareReader reader(fs);
  const std::vector<std::string> x = {"/dev/gpus/x"};
  // The gate asks for a name's nodes with what the reader answered for them last time.
  probe::HardwareReader::ReachMemo memo;
  bool memoised = false;
  SECTION("node by node") {}
  SECTION("a name's nodes, answered from what was kept") { memoised = true; }
  const auto identities = [&]() -> Result<std::vector<std::string>> {
    if (!memoised) return reader.identities(x);
    auto r = reader.reach(probe::node_refs(x), memo);
    if (!r) return tl::unexpected(r.error());
    return r->identities;
  };
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));  // the directory settles
  CHECK(identities() == ids({kGpuA}));
  CHECK(identities() == ids({kGpuA}));  // now from what the reader kept
  std::filesystem::remove(root.host("/dev/gpus/x"));
  root.char_node("/dev/gpus/x", 195, 0);
  CHECK(identities() == ids({kGpuB}));
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  CHECK(identities() == ids({kGpuB}));
  CHECK(identities() == ids({kGpuB}));
  // A bind mount leaves the directory's times as they were; the mount table says it changed.
  const std::string target = root.host("/dev/gpus/x").string();
  REQUIRE(::mount(root.host("/dev/nvidia1").c_str(), target.c_str(), nullptr, MS_BIND, nullptr) == 0);
  const auto mounted = identities();
  ::umount2(target.c_str(), MNT_DETACH);
  CHECK(mounted == ids({kGpuA}));
  const auto unmounted = identities();
  INFO((unmounted ? std::string() : unmounted.error().message));
  CHECK(unmounted == ids({kGpuB}));
}
