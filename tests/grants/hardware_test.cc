// A grant names one card: it records the hardware its name reached, and when the machine numbers
// its cards anew (a swap, a card removed, a card added in front, a partition mode change, NVIDIA
// minors reordered) the gate refuses a name that now reaches other hardware, and any name that
// reaches a card another repository reserved, before and after the specs are regenerated. The
// names keyed by the card follow it.

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "gate/spec_reviews.h"
#include "tests/support/admit_on.h"
#include "tests/support/authz_envelope.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machine_builder.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu;
using namespace rgpu::test;
using Catch::Contains;
using nlohmann::json;

namespace {

constexpr const char* kUuid4090 = kWorkstation4090Uuid;

void workstation(const FixtureRoot& root, CardNumbers n) { workstation_numbered(root, n); }

bool ran_ok(const RunResult& r) { return r.exit_code == 0; }

json grant_of(const FixtureRoot& root, const std::string& repo, const std::string& device) {
  const auto doc = json::parse(root.read("/etc/rediacc/gpu/grants.json"));
  for (const auto& g : doc["grants"]) {
    if (g["repo"] == repo && g["device"] == device) return g;
  }
  return {};
}

}  // namespace

TEST_CASE("grant records the hardware its name reaches, and grants shows it") {
  FixtureRoot root;
  workstation(root, {128, 129, 130});
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "alpha", "--device", "rediacc.io/dri=renderD129"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "beta", "--device", "rediacc.io/amd=gpu0", "--exclusive"}).exit_code == 0);
  CHECK(grant_of(root, "alpha", "rediacc.io/dri=renderD129")["hardware"] == json::array({kUuid4090}));
  CHECK(grant_of(root, "beta", "rediacc.io/amd=gpu0")["hardware"] == json::array({"0000:03:00.0"}));
  CHECK_THAT(tool_on(root, {"grants", "-o", "wide"}).out, Contains("HARDWARE") && Contains("0000:03:00.0"));
  const auto listed = json::parse(tool_on(root, {"grants", "-o", "json"}).out)["grants"];
  CHECK(listed[0]["hardware"].is_array());
}

TEST_CASE("two cards trade render numbers: the numbered grant is refused, before and after the specs follow") {
  FixtureRoot root;
  workstation(root, {128, 129, 130});
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "alpha", "--device", "rediacc.io/dri=renderD129"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "alpha", "--device", "rediacc.io/dri=pci-0000-01-00.0"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "beta", "--device", "rediacc.io/amd=gpu0", "--exclusive"}).exit_code == 0);
  CHECK(ran_ok(admit_create(root, "alpha", "rediacc.io/dri=renderD129")));
  workstation(root, {128, 130, 129});
  for (int regenerated = 0; regenerated < 2; ++regenerated) {
    INFO((regenerated ? "after cdi generate" : "before anything is regenerated"));
    const auto numbered = admit_create(root, "alpha", "rediacc.io/dri=renderD129");
    CHECK(numbered.exit_code == 1);
    // The card it reaches now is beta's: re-granting is no way out, and is not offered.
    CHECK_THAT(numbered.out, Contains("rediacc.io/dri=renderD129 now reaches other hardware than was granted") &&
                                 Contains(std::string("granted on ") + kUuid4090 + ", now 0000:03:00.0") &&
                                 Contains("reserved by another repository") &&
                                 !Contains("rediacc-gpu grant alpha --device rediacc.io/dri=renderD129"));
    // beta's own name stays on its card once the specs follow it; before, gpu0 maps renderD130,
    // the 4090 now, and is refused as well.
    CHECK(ran_ok(admit_create(root, "beta", "rediacc.io/amd=gpu0")) == (regenerated == 1));
    REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  }
  CHECK(ran_ok(admit_create(root, "alpha", "rediacc.io/dri=pci-0000-01-00.0")));
  // A re-grant of the numbered name accepts the move, and is then a reservation's business.
  const auto regrant = tool_on(root, {"grant", "alpha", "--device", "rediacc.io/dri=renderD129"});
  CHECK(regrant.exit_code != 0);
  CHECK_THAT(regrant.err, Contains("reserved exclusively by repository \"beta\""));
}

TEST_CASE("a card removed: the name that now reaches a card another repository reserved is refused") {
  FixtureRoot root;
  workstation(root, {128, 129, 130});
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "team-b", "--device", "rediacc.io/dri=renderD128"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "team-a", "--device", "rediacc.io/dri=pci-0000-01-00.0", "--exclusive"}).exit_code ==
          0);
  workstation(root, {std::nullopt, 128, 129});
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  const auto b = admit_create(root, "team-b", "rediacc.io/dri=renderD128");
  CHECK(b.exit_code == 1);
  CHECK_THAT(b.out, Contains("granted on 0000:00:02.0, now " + std::string(kUuid4090)));
  CHECK(ran_ok(admit_create(root, "team-a", "rediacc.io/dri=pci-0000-01-00.0")));
  // Even a grant recorded on the 4090 by another name cannot reach it while team-a reserves it.
  const auto grant = tool_on(root, {"grant", "team-b", "--device", "rediacc.io/dri=renderD128"});
  CHECK(grant.exit_code != 0);
  CHECK_THAT(grant.err, Contains("reserved exclusively by repository \"team-a\""));
}

TEST_CASE("a card added in front: the numbered name moves onto it and is refused, the keyed one stays") {
  FixtureRoot root;
  workstation(root, {std::nullopt, 128, 129});
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "team-a", "--device", "rediacc.io/dri=renderD128"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "team-a", "--device", "rediacc.io/amd=pci-0000-03-00.0"}).exit_code == 0);
  workstation(root, {128, 129, 130});
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  const auto moved = admit_create(root, "team-a", "rediacc.io/dri=renderD128");
  CHECK(moved.exit_code == 1);
  CHECK_THAT(moved.out, Contains("now 0000:00:02.0"));
  CHECK(ran_ok(admit_create(root, "team-a", "rediacc.io/amd=pci-0000-03-00.0")));
}

TEST_CASE("a partition mode change: partitions are cut anew, every grant on them is refused until re-granted") {
  FixtureRoot root;
  amd_instinct_x8(root, true, 8);
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  // renderD137 is card 0's third partition in CPX.
  REQUIRE(tool_on(root, {"grant", "team-a", "--device", "rediacc.io/dri=renderD137"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "team-b", "--device", "rediacc.io/amd=pci-0000-26-00.0", "--exclusive"}).exit_code ==
          0);
  CHECK(grant_of(root, "team-a", "rediacc.io/dri=renderD137")["hardware"] == json::array({"0000:05:00.0/cpx2"}));
  for (const char* dir : {"/sys", "/dev", "/proc"}) std::filesystem::remove_all(root.host(dir));
  amd_instinct_x8(root, true, 2);  // DPX: renderD137 is now card 1's second half
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  const auto moved = admit_create(root, "team-a", "rediacc.io/dri=renderD137");
  CHECK(moved.exit_code == 1);
  CHECK_THAT(moved.out, Contains("granted on 0000:05:00.0/cpx2, now 0000:26:00.0/dpx1"));
  // The card's whole name reaches the same card cut otherwise: the operator says yes again.
  const auto whole = admit_create(root, "team-b", "rediacc.io/amd=pci-0000-26-00.0");
  CHECK(whole.exit_code == 1);
  CHECK_THAT(whole.out, Contains("now 0000:26:00.0/dpx0, 0000:26:00.0/dpx1"));
  // team-a's numbered name reaches that card now: reserving it means revoking that first.
  const auto held = tool_on(root, {"grant", "team-b", "--device", "rediacc.io/amd=pci-0000-26-00.0", "--exclusive"});
  CHECK(held.exit_code != 0);
  CHECK_THAT(held.err, Contains("repository \"team-a\" holds rediacc.io/dri=renderD137"));
  REQUIRE(tool_on(root, {"revoke", "team-a", "--device", "rediacc.io/dri=renderD137"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "team-b", "--device", "rediacc.io/amd=pci-0000-26-00.0", "--exclusive"}).exit_code ==
          0);
  CHECK(ran_ok(admit_create(root, "team-b", "rediacc.io/amd=pci-0000-26-00.0")));
  // A re-grant of team-a's name now would reach team-b's reserved card.
  const auto regrant = tool_on(root, {"grant", "team-a", "--device", "rediacc.io/dri=renderD137"});
  CHECK(regrant.exit_code != 0);
  CHECK_THAT(regrant.err, Contains("reserved exclusively by repository \"team-b\""));
}

TEST_CASE("NVIDIA minors reordered: index names are refused, UUID names follow their GPU once the spec does") {
  FixtureRoot root;
  two_nvidia_datacenter(root, false);
  root.write("/etc/cdi/nvidia.yaml", R"(cdiVersion: 0.5.0
kind: nvidia.com/gpu
devices:
- name: "0"
  containerEdits: {deviceNodes: [{path: /dev/nvidia0}]}
- name: "1"
  containerEdits: {deviceNodes: [{path: /dev/nvidia1}]}
- name: GPU-11111111-2222-3333-4444-555555555555
  containerEdits: {deviceNodes: [{path: /dev/nvidia1}]}
containerEdits: {deviceNodes: [{path: /dev/nvidiactl}]}
)");
  REQUIRE(tool_on(root, {"grant", "team-a", "--device", "nvidia.com/gpu=0", "--exclusive"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "team-b", "--device", "nvidia.com/gpu=GPU-11111111-2222-3333-4444-555555555555"})
              .exit_code == 0);
  // The driver hands out the minors the other way round at this boot.
  MachineBuilder m(root);
  m.nvidia_proc_gpu({"0000:41:00.0", "NVIDIA H100 80GB HBM3", "GPU-11111111-2222-3333-4444-555555555555", 0});
  m.nvidia_proc_gpu({"0001:c1:00.0", "NVIDIA H100 80GB HBM3", "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", 1});
  const auto a = admit_create(root, "team-a", "nvidia.com/gpu=0");
  CHECK(a.exit_code == 1);
  CHECK_THAT(a.out, Contains("granted on GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee, now "
                             "GPU-11111111-2222-3333-4444-555555555555"));
  // Until the toolkit regenerates its spec, the UUID name maps the other GPU's node: refused too.
  const auto stale = admit_create(root, "team-b", "nvidia.com/gpu=GPU-11111111-2222-3333-4444-555555555555");
  CHECK(stale.exit_code == 1);
  CHECK_THAT(stale.out, Contains("is keyed by GPU-11111111-2222-3333-4444-555555555555 but maps "
                                 "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee now") &&
                            Contains("the specs are stale: run rediacc-gpu setup"));
  auto spec = root.read("/etc/cdi/nvidia.yaml");
  spec.replace(spec.rfind("/dev/nvidia1"), 12, "/dev/nvidia0");
  root.write("/etc/cdi/nvidia.yaml", spec);
  // team-b's daemon reads its view, which still maps /dev/nvidia1 until the views follow.
  CHECK_FALSE(ran_ok(admit_create(root, "team-b", "nvidia.com/gpu=GPU-11111111-2222-3333-4444-555555555555")));
  REQUIRE(tool_on(root, {"cdi", "views"}).exit_code == 0);  // what the views' path unit runs
  CHECK(ran_ok(admit_create(root, "team-b", "nvidia.com/gpu=GPU-11111111-2222-3333-4444-555555555555")));
  // doctor names the index grant that moved, with both ways out, and not the UUID grant that stayed.
  const auto doctor = tool_on(root, {"doctor", "-o", "json"});
  std::vector<json> failed;
  const auto report = json::parse(doctor.out);
  for (const auto& c : report["checks"]) {
    if (c["id"] == "grants" && c["status"] == "fail") failed.push_back(c);
  }
  INFO(doctor.out);
  REQUIRE(failed.size() == 1);
  CHECK(failed[0]["subject"] == "team-a");
  CHECK_THAT(failed[0]["observed"].get<std::string>(),
             Contains("team-a holds nvidia.com/gpu=0, which now reaches other hardware than was granted"));
  CHECK_THAT(failed[0]["decision"].get<std::string>(),
             Contains("rediacc-gpu grant team-a --device nvidia.com/gpu=0") && Contains("keyed by the card"));
  CHECK(doctor.exit_code == 1);
}

TEST_CASE("grants apply: a listed name that moved is refused as a move unless --accept-moves") {
  FixtureRoot root;
  workstation(root, {128, 129, 130});
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  root.write("/tmp/desired.yaml", "schema: 1\nrepositories:\n- name: alpha\n  grants: [rediacc.io/dri=renderD129]\n");
  REQUIRE(tool_on(root, {"grants", "apply", root.host("/tmp/desired.yaml").string()}).exit_code == 0);
  workstation(root, {128, 130, 129});
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  const auto refused = tool_on(root, {"grants", "apply", root.host("/tmp/desired.yaml").string()});
  CHECK(refused.exit_code != 0);
  CHECK_THAT(refused.out + refused.err,
             Contains("now reaches other hardware than was granted to alpha") && Contains("--accept-moves"));
  CHECK(grant_of(root, "alpha", "rediacc.io/dri=renderD129")["hardware"] == json::array({kUuid4090}));
  const auto accepted = tool_on(root, {"grants", "apply", root.host("/tmp/desired.yaml").string(), "--accept-moves"});
  CHECK(accepted.exit_code == 0);
  CHECK_THAT(accepted.out, Contains("reaches other hardware now"));
  CHECK(grant_of(root, "alpha", "rediacc.io/dri=renderD129")["hardware"] == json::array({"0000:03:00.0"}));
  CHECK(ran_ok(admit_create(root, "alpha", "rediacc.io/dri=renderD129")));
}

TEST_CASE("setup after a swap: a warning and -o json name each moved grant, its view drops it, metrics count it") {
  FixtureRoot root;
  workstation(root, {128, 129, 130});
  const std::vector<std::string> setup = {"setup", "--install-nvidia-toolkit", "false"};
  REQUIRE(tool_on(root, setup).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "alpha", "--device", "rediacc.io/dri=renderD129"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "alpha", "--device", "rediacc.io/dri=pci-0000-01-00.0"}).exit_code == 0);
  const auto view = [&] {
    std::string all;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root.host("/var/lib/rediacc/gpu/cdi/alpha")))
      if (e.is_regular_file()) all += root.read(e.path().string().substr(root.str().size()));
    return all;
  };
  CHECK_THAT(view(), Contains("renderD129") && Contains("pci-0000-01-00.0"));
  workstation(root, {128, 130, 129});
  auto args = setup;
  args.insert(args.end(), {"-o", "json"});
  const auto r = tool_on(root, args);
  REQUIRE(r.exit_code == 0);
  const auto out = json::parse(r.out);
  REQUIRE(out["moved_grants"].size() == 1);
  CHECK(out["moved_grants"][0]["repo"] == "alpha");
  CHECK(out["moved_grants"][0]["device"] == "rediacc.io/dri=renderD129");
  CHECK(out["moved_grants"][0]["granted_on"] == json::array({kUuid4090}));
  CHECK(out["moved_grants"][0]["now"] == json::array({"0000:03:00.0"}));
  CHECK_THAT(r.err, Contains("repository \"alpha\"'s rediacc.io/dri=renderD129 now reaches other hardware than was "
                             "granted") &&
                        Contains("its view leaves it out"));
  // The keyed name follows its card into the view; the moved one is gone from it.
  const auto now = view();
  CHECK_THAT(now, Contains("pci-0000-01-00.0") && Contains("/dev/dri/renderD130"));
  CHECK_THAT(now, !Contains("renderD129"));
  CHECK_THAT(tool_on(root, {"metrics"}).out, Contains("rediacc_gpu_grants_moved 1"));
  CHECK_THAT(tool_on(root, {"grants"}).out, Contains("rediacc.io/dri=renderD129 (MOVED)"));
  // A re-grant accepts the move: the next setup is quiet about it.
  REQUIRE(tool_on(root, {"grant", "alpha", "--device", "rediacc.io/dri=renderD129"}).exit_code == 0);
  CHECK(json::parse(tool_on(root, args).out)["moved_grants"].empty());
  CHECK_THAT(tool_on(root, {"metrics"}).out, Contains("rediacc_gpu_grants_moved 0"));
}

// The plugin lives for months: what it learned is checked again at every request, so a spec
// rewritten (directly, or through a link's target) and cards renumbered are seen at the next one.
TEST_CASE("a long-lived gate sees spec changes and renumbered cards at the next request") {
  FixtureRoot root;
  workstation(root, {128, 129, 130});
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  const RootFs fs(root.path());
  gate::SpecReviews specs(fs);
  CHECK(specs.hardware("rediacc.io/dri=renderD129") == std::vector<std::string>{kUuid4090});
  CHECK(specs.hardware("vendor.com/xpu=a") == std::vector<std::string>{});
  root.write("/opt/vendor.yaml",
             "cdiVersion: 0.5.0\nkind: vendor.com/xpu\ndevices:\n- name: a\n  containerEdits:\n"
             "    deviceNodes: [{path: /dev/dri/renderD128}]\n");
  root.link("/etc/cdi/vendor.yaml", "../../opt/vendor.yaml");
  CHECK(specs.hardware("vendor.com/xpu=a") == std::vector<std::string>{"0000:00:02.0"});
  auto text = root.read("/opt/vendor.yaml");
  text.replace(text.find("renderD128"), 10, "renderD130");
  root.write("/opt/vendor.yaml", text);  // the link's target changes; the spec directory does not
  CHECK(specs.hardware("vendor.com/xpu=a") == std::vector<std::string>{"0000:03:00.0"});
  workstation(root, {128, 130, 129});
  CHECK(specs.hardware("rediacc.io/dri=renderD129") == std::vector<std::string>{"0000:03:00.0"});
  CHECK(specs.hardware("vendor.com/xpu=a") == std::vector<std::string>{kUuid4090});
  // The card fell off the bus: the kernel's links to its node go.
  std::filesystem::remove(root.host("/sys/class/drm/renderD130"));
  std::filesystem::remove(root.host("/sys/dev/char/226:130"));
  const auto gone = specs.hardware("vendor.com/xpu=a");
  REQUIRE_FALSE(gone);
  CHECK_THAT(gone.error().message, Contains("cannot tell which hardware /dev/dri/renderD130 reaches"));
}

// The repository's daemon resolves names from its view, not from /etc/cdi: a view not refreshed
// after the machine changed still maps the old node, and the gate judges those nodes too.
TEST_CASE("a view left stale after a swap: the nodes the daemon would map are the ones judged") {
  FixtureRoot root;
  workstation(root, {128, 129, 130});
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "alpha", "--device", "rediacc.io/dri=pci-0000-01-00.0"}).exit_code == 0);
  const std::string view = "/var/lib/rediacc/gpu/cdi/alpha/rediacc.io-dri.json";
  const std::string before = root.read(view);
  REQUIRE_THAT(before, Contains("renderD129"));
  workstation(root, {128, 130, 129});
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  CHECK(ran_ok(admit_create(root, "alpha", "rediacc.io/dri=pci-0000-01-00.0")));
  root.write(view, before);  // the views' refresh failed or has not run yet
  const auto stale = admit_create(root, "alpha", "rediacc.io/dri=pci-0000-01-00.0");
  CHECK(stale.exit_code == 1);
  CHECK_THAT(stale.out, Contains("rediacc.io/dri=pci-0000-01-00.0 is keyed by 0000:01:00.0 but maps "
                                 "0000:01:00.0, 0000:03:00.0 now") &&
                            Contains("the specs are stale"));
}

TEST_CASE("a plain re-grant of an exclusive name that moved is checked as the reservation it stays") {
  FixtureRoot root;
  workstation(root, {128, 129, 130});
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "team-a", "--device", "rediacc.io/dri=renderD129", "--exclusive"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "team-b", "--device", "rediacc.io/amd=pci-0000-03-00.0"}).exit_code == 0);
  workstation(root, {128, 130, 129});  // renderD129 is team-b's AMD card now
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  const auto accept = tool_on(root, {"grant", "team-a", "--device", "rediacc.io/dri=renderD129"});
  CHECK(accept.exit_code != 0);
  CHECK_THAT(accept.err, Contains("cannot reserve rediacc.io/dri=renderD129 exclusively: repository \"team-b\" holds "
                                  "rediacc.io/amd=pci-0000-03-00.0"));
  CHECK(grant_of(root, "team-a", "rediacc.io/dri=renderD129")["hardware"] == json::array({kUuid4090}));
  CHECK(ran_ok(admit_create(root, "team-b", "rediacc.io/amd=pci-0000-03-00.0")));
}
