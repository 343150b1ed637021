// A grant reaches exactly what it names, judged as the runtime will read it: every node by the
// device number the runtime creates (the spec's own, else the host node's, however the path is
// spelled), the spec's top-level nodes with every name of it, and a long-lived gate never trusting
// an answer older than what it just read.

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "gate/spec_reviews.h"
#include "probe/hardware_identity.h"
#include "tests/support/admit_on.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machine_builder.h"
#include "tests/support/machines.h"

using namespace rgpu;
using namespace rgpu::test;
using Catch::Contains;

namespace {

std::vector<std::string> id_list(std::initializer_list<const char*> list) { return {list.begin(), list.end()}; }

// Alpha holds GPU 1111… alone; beta is granted `name` while it reaches something else.
void alpha_reserves_gpu_a(const FixtureRoot& root) {
  REQUIRE(tool_on(root, {"grant", "alpha", "--device", std::string("nvidia.com/gpu=") + kDatacenterGpuA, "--exclusive"})
              .exit_code == 0);
}

std::string reach_vendor_spec(const std::string& top_level, const std::string& node) {
  return "cdiVersion: 0.6.0\nkind: acme.com/gpu\n" + top_level +
         "devices:\n- name: x\n  containerEdits:\n    env: [ACME=1]\n" + node;
}

}  // namespace

TEST_CASE("exact reach: two GPUs trade device minors in place and a long-lived gate sees it at once") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  alpha_reserves_gpu_a(root);
  REQUIRE(tool_on(root, {"grant", "beta", "--device", "nvidia.com/gpu=0"}).exit_code == 0);
  const RootFs fs(root.path());
  gate::SpecReviews specs(fs);
  const probe::HardwareReader reader(fs);
  CHECK(specs.hardware("nvidia.com/gpu=0") == id_list({kDatacenterGpuB}));
  CHECK(reader.identities(std::vector<std::string>{"/dev/dri/card2", "/dev/nvidia0"}) == id_list({kDatacenterGpuB}));
  // The driver hands the minors out the other way round; the information files keep their size.
  MachineBuilder m(root);
  m.nvidia_proc_gpu({"0000:41:00.0", "NVIDIA H100 80GB HBM3", kDatacenterGpuA, 0});
  m.nvidia_proc_gpu({"0001:c1:00.0", "NVIDIA H100 80GB HBM3", kDatacenterGpuB, 1});
  // nvidia.com/gpu=0 maps /dev/nvidia0 (now GPU 1111…) with card2 and renderD129 (still aaaa…):
  // the card node's answer re-reads aaaa…'s file, and /dev/nvidia0's older answer of that same
  // file must not pass for checked.
  CHECK(specs.hardware("nvidia.com/gpu=0") == id_list({kDatacenterGpuA, kDatacenterGpuB}));
  CHECK(reader.identities(std::vector<std::string>{"/dev/dri/card2", "/dev/nvidia0"}) ==
        id_list({kDatacenterGpuA, kDatacenterGpuB}));
  const auto fresh = admit_create(root, "beta", "nvidia.com/gpu=0");
  CHECK(fresh.exit_code == 1);
  CHECK_THAT(fresh.out, Contains("now reaches other hardware than was granted"));
}

TEST_CASE("exact reach: a spec's top-level device nodes come with every name of it") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  alpha_reserves_gpu_a(root);
  root.write("/etc/cdi/acme.yaml", reach_vendor_spec("containerEdits:\n  deviceNodes: [{path: /dev/nvidia1}]\n", ""));
  const auto listed = tool_on(root, {"cdi", "list", "-o", "json"});
  CHECK_THAT(listed.out, Contains("\"acme.com/gpu=x\"") && Contains("\"/dev/nvidia1\""));
  const auto grant = tool_on(root, {"grant", "beta", "--device", "acme.com/gpu=x"});
  CHECK(grant.exit_code != 0);
  CHECK_THAT(grant.err, Contains("reserved exclusively by repository \"alpha\""));
  // Granted while the spec had no such node, then edited: the gate judges the spec as it is.
  root.write("/etc/cdi/acme.yaml", reach_vendor_spec("", ""));
  REQUIRE(tool_on(root, {"grant", "beta", "--device", "acme.com/gpu=x"}).exit_code == 0);
  CHECK(admit_create(root, "beta", "acme.com/gpu=x").exit_code == 0);
  root.write("/etc/cdi/acme.yaml", reach_vendor_spec("containerEdits:\n  deviceNodes: [{path: /dev/nvidia1}]\n", ""));
  const auto refused = admit_create(root, "beta", "acme.com/gpu=x");
  CHECK(refused.exit_code == 1);
  CHECK_THAT(refused.out, Contains(kDatacenterGpuA));
}

TEST_CASE("exact reach: a spec that renumbers a granted node onto a reserved GPU is refused at the gate") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  alpha_reserves_gpu_a(root);
  root.link("/dev/char/195:1", "../nvidia1");
  const auto node = [](const std::string& fields) { return "    deviceNodes: [{" + fields + "}]\n"; };
  root.write("/etc/cdi/acme.yaml", reach_vendor_spec("", node("path: /dev/nvidia0")));
  REQUIRE(tool_on(root, {"grant", "beta", "--device", "acme.com/gpu=x"}).exit_code == 0);
  CHECK(admit_create(root, "beta", "acme.com/gpu=x").exit_code == 0);
  // The path says GPU aaaa…; the numbers the runtime creates say alpha's GPU.
  root.write("/etc/cdi/acme.yaml", reach_vendor_spec("", node("path: /dev/nvidia0, type: c, major: 195, minor: 1")));
  auto r = admit_create(root, "beta", "acme.com/gpu=x");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Contains(kDatacenterGpuA));
  const auto grant = tool_on(root, {"grant", "gamma", "--device", "acme.com/gpu=x"});
  CHECK(grant.exit_code != 0);
  CHECK_THAT(grant.err, Contains("reserved exclusively by repository \"alpha\""));
  // Another spelling of alpha's node, through a link: refused, as the gate cannot vouch for it.
  root.write("/etc/cdi/acme.yaml", reach_vendor_spec("", node("path: /dev/char/195:1")));
  r = admit_create(root, "beta", "acme.com/gpu=x");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Contains("cannot tell which hardware acme.com/gpu=x reaches"));
}

// Following the gate's advice after two render nodes swap must not give the repository the other
// card: the keyed name still maps the old node until the specs are regenerated.
TEST_CASE("exact reach: a name keyed by a card that maps another card is stale, at the gate and at grant") {
  FixtureRoot root;
  workstation_numbered(root, {128, 129, 130});
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "alpha", "--device", "rediacc.io/dri=pci-0000-01-00.0"}).exit_code == 0);
  workstation_numbered(root, {128, 130, 129});  // the render nodes swap; the specs are not regenerated
  const auto gate = admit_create(root, "alpha", "rediacc.io/dri=pci-0000-01-00.0");
  CHECK(gate.exit_code == 1);
  CHECK_THAT(gate.out, Contains("rediacc.io/dri=pci-0000-01-00.0 is keyed by 0000:01:00.0 but maps 0000:03:00.0 now") &&
                           Contains("the specs are stale: run rediacc-gpu setup") && !Contains("re-grant"));
  for (const char* repo : {"alpha", "gamma"}) {
    const auto grant = tool_on(root, {"grant", repo, "--device", "rediacc.io/dri=pci-0000-01-00.0"});
    CHECK(grant.exit_code != 0);
    CHECK_THAT(grant.err, Contains("is keyed by 0000:01:00.0 but maps 0000:03:00.0 now") &&
                              Contains("the specs are stale: run rediacc-gpu setup"));
  }
  const auto listed = tool_on(root, {"grants", "-o", "json"});
  CHECK_THAT(listed.out, Contains("\"stale\": \"rediacc.io/dri=pci-0000-01-00.0 is keyed by 0000:01:00.0"));
  CHECK_THAT(tool_on(root, {"grants"}).out, Contains("rediacc.io/dri=pci-0000-01-00.0 (STALE SPEC)"));
  const auto doctor = tool_on(root, {"doctor"});
  CHECK_THAT(doctor.out, Contains("is keyed by 0000:01:00.0 but maps 0000:03:00.0 now"));
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  CHECK(admit_create(root, "alpha", "rediacc.io/dri=pci-0000-01-00.0").exit_code == 0);
  CHECK_THAT(tool_on(root, {"grants"}).out, !Contains("STALE"));
}

TEST_CASE("exact reach: a granted name no spec defines is refused at the gate and marked, not left to dockerd") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  REQUIRE(tool_on(root, {"grant", "beta", "--device", "nvidia.com/gpu=0"}).exit_code == 0);
  CHECK(admit_create(root, "beta", "nvidia.com/gpu=0").exit_code == 0);
  const std::string spec = root.read("/etc/cdi/nvidia.yaml");
  for (const char* how : {"removed", "broken"}) {
    INFO(how);
    if (std::string(how) == "removed") {
      std::filesystem::remove(root.host("/etc/cdi/nvidia.yaml"));  // as --install-nvidia-toolkit=false does
    } else {
      root.write("/etc/cdi/nvidia.yaml", spec + "\nbogus: [\n");
    }
    const auto gate = admit_create(root, "beta", "nvidia.com/gpu=0");
    CHECK(gate.exit_code == 1);
    CHECK_THAT(gate.out, Contains("no CDI spec on this machine defines nvidia.com/gpu=0") &&
                             Contains("the specs are stale: run rediacc-gpu setup"));
    CHECK_THAT(tool_on(root, {"grants"}).out, Contains("nvidia.com/gpu=0 (UNDEFINED)"));
    CHECK_THAT(tool_on(root, {"grants", "-o", "json"}).out,
               Contains("\"stale\": \"no CDI spec on this machine defines it\""));
    const auto doctor = tool_on(root, {"doctor", "-o", "json"});
    CHECK_THAT(doctor.out, Contains("beta holds nvidia.com/gpu=0, which no spec defines now"));
  }
  root.write("/etc/cdi/nvidia.yaml", spec);
  CHECK(admit_create(root, "beta", "nvidia.com/gpu=0").exit_code == 0);
}

namespace {

// Every file of a repository's view, one after another.
std::string view_text(const FixtureRoot& root, const std::string& repo) {
  std::string all;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(root.host("/var/lib/rediacc/gpu/cdi/" + repo), ec))
    all += root.read("/var/lib/rediacc/gpu/cdi/" + repo + "/" + e.path().filename().string());
  return all;
}

}  // namespace

// A restart policy's restore and a build's RUN --device reach what the view maps without asking
// the gate: a view must never map a name the gate would refuse.
TEST_CASE("exact reach: the refresh after a hardware change leaves out of a view every name the gate would refuse") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  alpha_reserves_gpu_a(root);
  REQUIRE(tool_on(root, {"grant", "beta", "--device", "nvidia.com/gpu=0"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "gamma", "--device", "nvidia.com/gpu=0"}).exit_code == 0);
  REQUIRE_THAT(view_text(root, "beta"), Contains("name: \"0\"") || Contains("\"name\": \"0\""));
  // gamma's grant was written by an older rediacc-gpu: it recorded no hardware.
  auto grants = nlohmann::json::parse(root.read("/etc/rediacc/gpu/grants.json"));
  for (auto& g : grants["grants"]) {
    if (g["repo"] == "gamma") g.erase("hardware");
  }
  root.write("/etc/rediacc/gpu/grants.json", grants.dump(2));
  MachineBuilder m(root);
  m.nvidia_proc_gpu({"0000:41:00.0", "NVIDIA H100 80GB HBM3", kDatacenterGpuA, 0});  // the minors swap at boot
  m.nvidia_proc_gpu({"0001:c1:00.0", "NVIDIA H100 80GB HBM3", kDatacenterGpuB, 1});
  const auto refresh = tool_on(root, {"cdi", "generate"});  // what the refresh the driver's load starts runs
  INFO(refresh.out + refresh.err);
  REQUIRE(refresh.exit_code == 0);
  // beta's name moved onto alpha's reserved GPU; gamma's, never pinned, reaches it too.
  CHECK(view_text(root, "beta").find("/dev/nvidia0") == std::string::npos);
  CHECK(view_text(root, "gamma").find("/dev/nvidia0") == std::string::npos);
  CHECK(admit_create(root, "beta", "nvidia.com/gpu=0").exit_code == 1);
  CHECK(admit_create(root, "gamma", "nvidia.com/gpu=0").exit_code == 1);
  // alpha's own UUID name still maps /dev/nvidia1, GPU aaaa… now, until nvidia-ctk regenerates its
  // spec: stale, and left out too.
  CHECK(view_text(root, "alpha").find(kDatacenterGpuA) == std::string::npos);
  CHECK_THAT(admit_create(root, "alpha", std::string("nvidia.com/gpu=") + kDatacenterGpuA).out,
             Contains("the specs are stale"));
}
