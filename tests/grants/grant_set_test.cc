#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <future>

#include "core/state_paths.h"
#include "core/structured_text.h"
#include "grants/store.h"
#include "tests/support/fixture_root.h"
#include "tests/support/grant_machine.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu;
using namespace rgpu::grants;
using namespace rgpu::test;

namespace {

const auto kTestStart = std::chrono::system_clock::now();

}  // namespace

TEST_CASE("grants: repositories are name or name@machine, and the machine must be this one") {
  CHECK(parse_repo("web", "gpu-01").value() == "web");
  CHECK(parse_repo("web@gpu-01", "gpu-01").value() == "web");
  auto other = parse_repo("web@gpu-02", "gpu-01");
  REQUIRE_FALSE(other);
  CHECK_THAT(other.error().message, Catch::Contains("\"gpu-02\"") && Catch::Contains("\"gpu-01\""));
  CHECK_FALSE(parse_repo("", "gpu-01"));
  CHECK_FALSE(parse_repo("../etc", "gpu-01"));
  CHECK_FALSE(parse_repo("a b", "gpu-01"));
}

// dockerd finds plugin rediacc-gpu-NAME at /run/docker/plugins/rediacc-gpu-NAME.sock, 37 bytes
// besides the name; a unix socket's path holds 107 (sun_path's 108 less the NUL).
TEST_CASE("grants: a repository name is refused when its plugin socket's path would not fit a unix socket") {
  const std::string longest(70, 'a');
  CHECK(parse_repo(longest, "gpu-01").value() == longest);
  CHECK(parse_repo(longest + "@gpu-01", "gpu-01").value() == longest);
  for (const size_t length : {71, 128, 129, 300}) {
    INFO(length);
    const std::string name(length, 'a');
    const auto refused = parse_repo(name, "gpu-01");
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message == "repository \"" + name + "\" is too long: its plugin socket " +
                                         "/run/docker/plugins/rediacc-gpu-" + name + ".sock would be " +
                                         std::to_string(37 + length) +
                                         " bytes, past the 107 a unix socket path may hold; use a shorter name.");
  }
  // The characters are checked first: a long name with a space is refused for the space.
  CHECK_THAT(parse_repo(std::string(200, 'a') + " b", "gpu-01").error().message, Catch::Contains("not a valid name"));
}

TEST_CASE("grants: a grant is recorded once, and granting twice is harmless") {
  GrantMachine m;
  auto first = m.grant("web", "nvidia.com/gpu=all");
  REQUIRE(first);
  CHECK(first->change.kind == Change::Kind::write);
  auto again = m.grant("web", "nvidia.com/gpu=all");
  REQUIRE(again);
  CHECK(again->change.kind == Change::Kind::unchanged);
  auto set = load_grants(m.fs);
  REQUIRE(set->grants.size() == 1);
  CHECK(set->grants[0] == Grant{"web", "nvidia.com/gpu=all", false, format_rfc3339_utc(m.now),
                                std::vector<std::string>{"/dev/dri/card1", "/dev/dri/card2", "/dev/dri/renderD128",
                                                         "/dev/dri/renderD129", "/dev/nvidia0", "/dev/nvidia1"},
                                std::nullopt,
                                std::vector<std::string>{"GPU-11111111-2222-3333-4444-555555555555",
                                                         "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"}});
}

TEST_CASE("grants: a name no spec defines is refused with the closest names, and nothing is recorded") {
  GrantMachine m;
  auto r = m.grant("web", "nvidia.com/gpu=al");
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("Closest names: nvidia.com/gpu=all"));
  CHECK_FALSE(std::filesystem::exists(m.root.host(state::kGrantsPath)));
}

TEST_CASE("grants: an exclusive name refuses every other repository, naming the holder") {
  GrantMachine m;
  REQUIRE(m.grant("ml", "nvidia.com/gpu=0", true));
  auto other = m.grant("web", "nvidia.com/gpu=0");
  REQUIRE_FALSE(other);
  CHECK_THAT(other.error().message, Catch::Contains("reserved exclusively by repository \"ml\""));
  REQUIRE(m.grant("ml", "nvidia.com/gpu=0"));  // its holder may grant it again
  REQUIRE(m.grant("web", "nvidia.com/gpu=1"));
  auto reserve = m.grant("ml", "nvidia.com/gpu=1", true);
  REQUIRE_FALSE(reserve);
  CHECK_THAT(reserve.error().message, Catch::Contains("repository \"web\" holds it"));
}

// An exclusive grant reserves the GPU, not the string: every other name reaching it is refused to
// every other repository, both ways round, naming the holder and the name it holds.
TEST_CASE("grants: an exclusive grant reserves the GPU: another repository's alias of it is refused both ways") {
  GrantMachine m;
  REQUIRE(m.grant("web", "nvidia.com/gpu=all"));
  auto r = m.grant("ml", "nvidia.com/gpu=GPU-11111111-2222-3333-4444-555555555555", true);
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("cannot reserve nvidia.com/gpu=GPU-11111111") &&
                                    Catch::Contains("repository \"web\" holds nvidia.com/gpu=all, which reaches "
                                                    "the same GPU") &&
                                    Catch::Contains("nothing was granted"));
  REQUIRE(remove_grant(m.fs, m.sink, "web", "nvidia.com/gpu=all"));
  REQUIRE(m.grant("ml", "nvidia.com/gpu=0", true));
  for (const char* alias : {"nvidia.com/gpu=all", "nvidia.com/gpu=GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"}) {
    INFO(alias);
    auto other = m.grant("web", alias);
    REQUIRE_FALSE(other);
    CHECK_THAT(other.error().message, Catch::Contains("reserved exclusively by repository \"ml\" through "
                                                      "nvidia.com/gpu=0, which reaches the same GPU"));
  }
  CHECK(m.grant("web", "nvidia.com/gpu=1"));  // the other GPU
  CHECK(cdi::ReachMap(m.index, std::nullopt).aliases_of("nvidia.com/gpu=0") ==
        std::vector<std::string>{"nvidia.com/gpu=GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", "nvidia.com/gpu=all"});
}

// The case operators met: an AMD card reserved by gpu<N>, then taken by all= or by its render node.
TEST_CASE("grants: an exclusive AMD card refuses amd=all and its render node to another repository") {
  GrantMachine m(two_amd_instinct);
  REQUIRE(run_tool({"setup", "--root", m.root.str(), "--install-nvidia-toolkit", "false"}).exit_code == 0);
  m.reindex();
  REQUIRE(m.grant("team-a", "rediacc.io/amd=gpu0", true));
  for (const char* name : {"rediacc.io/amd=all", "rediacc.io/dri=renderD128"}) {
    INFO(name);
    auto r = m.grant("team-b", name, false);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("\"team-a\" through rediacc.io/amd=gpu0"));
  }
  CHECK(m.grant("team-b", "rediacc.io/amd=gpu1", false));
  const auto table = run_tool({"grants", "--root", m.root.str()});
  size_t exclusive_rows = 0;
  for (size_t at = 0; (at = table.out.find(" yes ", at)) != std::string::npos; ++at) ++exclusive_rows;
  CHECK(exclusive_rows == 1);
}

// A spec that maps only a GPU's card node and one that maps only its render node share no node,
// yet reach one GPU: the inventory's grouping of the GPU's nodes decides, as `list` shows it.
TEST_CASE("grants: names mapping different nodes of one GPU reach it alike, by the inventory's grouping") {
  GrantMachine m(two_amd_instinct);
  m.root.write("/etc/cdi/card-only.yaml",
               "cdiVersion: 0.3.0\nkind: example.com/card\ndevices:\n- name: a\n"
               "  containerEdits:\n    deviceNodes:\n    - path: /dev/dri/card1\n");
  m.root.write("/etc/cdi/render-only.yaml",
               "cdiVersion: 0.3.0\nkind: example.com/render\ndevices:\n- name: a\n"
               "  containerEdits:\n    deviceNodes:\n    - path: /dev/dri/renderD128\n");
  REQUIRE(run_tool({"setup", "--root", m.root.str(), "--install-nvidia-toolkit", "false"}).exit_code == 0);
  m.reindex();
  const auto listed = run_tool({"list", "-o", "json", "--root", m.root.str()});
  CHECK_THAT(listed.out, Catch::Contains("example.com/card=a") && Catch::Contains("example.com/render=a"));
  CHECK(machine_reach(m.fs, m.index).reach_same("example.com/card=a", "example.com/render=a"));
  REQUIRE(m.grant("team-a", "example.com/card=a", true));
  auto r = m.grant("team-b", "example.com/render=a", false);
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("\"team-a\" through example.com/card=a"));
}

// /dev/kfd (and /dev/nvidiactl, /dev/nvidia-uvm) is every GPU's control node: sharing it makes two
// names reach the same driver, not the same GPU.
TEST_CASE("grants: names reach the same GPU only through its own nodes, never through shared control nodes") {
  GrantMachine m(two_amd_instinct);
  REQUIRE(run_tool({"cdi", "generate", "--root", m.root.str()}).exit_code == 0);
  m.reindex();
  REQUIRE(m.index.devices.size() > 3);
  CHECK(cdi::ReachMap(m.index, std::nullopt).aliases_of("rediacc.io/amd=gpu0") ==
        std::vector<std::string>{"rediacc.io/amd=all", "rediacc.io/amd=pci-0000-43-00.0",
                                 "rediacc.io/dri=pci-0000-43-00.0", "rediacc.io/dri=renderD128"});
  REQUIRE(m.grant("web", "rediacc.io/amd=gpu0", false));
  // The other card shares only /dev/kfd with it: no reservation stands in the way.
  REQUIRE(m.grant("ml", "rediacc.io/amd=gpu1", true));
  auto same = m.grant("ml", "rediacc.io/dri=renderD128", true);
  REQUIRE_FALSE(same);
  CHECK_THAT(same.error().message, Catch::Contains("\"web\" holds rediacc.io/amd=gpu0"));
  // The card's PCI name is the same card: no way around a holder through it either.
  auto keyed = m.grant("ml", "rediacc.io/amd=pci-0000-43-00.0", true);
  REQUIRE_FALSE(keyed);
  CHECK_THAT(keyed.error().message, Catch::Contains("\"web\" holds rediacc.io/amd=gpu0"));
  const auto table = run_tool({"grants", "--root", m.root.str()});
  CHECK_THAT(table.out, !Catch::Contains("ml: rediacc.io/amd=gpu1"));  // another card, not an alias
  CHECK_THAT(table.out, Catch::Matches("(.|\n)*\nml +rediacc.io/amd=gpu1 +yes +[0-9TZ:-]+ +- +-\n(.|\n)*"));
}

TEST_CASE("grants: a fork is another repository and starts with no grant") {
  GrantMachine m;
  REQUIRE(m.grant("web", "nvidia.com/gpu=0"));
  auto set = load_grants(m.fs);
  CHECK(set->find("web", "nvidia.com/gpu=0"));
  CHECK_FALSE(set->find("web-fork", "nvidia.com/gpu=0"));
}

TEST_CASE("grants: revoking removes the grant, and revoking what is not there says so") {
  GrantMachine m;
  REQUIRE(m.grant("web", "nvidia.com/gpu=0"));
  CHECK(remove_grant(m.fs, m.sink, "web", "nvidia.com/gpu=0")->change.kind == Change::Kind::write);
  auto none = remove_grant(m.fs, m.sink, "web", "nvidia.com/gpu=0");
  REQUIRE(none);
  CHECK(none->change.kind == Change::Kind::unchanged);
  CHECK_THAT(none->change.detail, Catch::Contains("holds no grant for nvidia.com/gpu=0"));
  CHECK(load_grants(m.fs)->grants.empty());
}

TEST_CASE("grants: a grants file that does not parse is refused by every command and never overwritten") {
  GrantMachine m;
  m.root.write(state::kGrantsPath, "{ not json");
  auto g = m.grant("web", "nvidia.com/gpu=0");
  REQUIRE_FALSE(g);
  CHECK_THAT(g.error().message,
             Catch::Contains(m.root.host(state::kGrantsPath).string()) && Catch::Contains("never overwrites"));
  CHECK_FALSE(remove_grant(m.fs, m.sink, "web", "nvidia.com/gpu=0"));
  CHECK(m.root.read(state::kGrantsPath) == "{ not json");
  auto list = run_tool({"grants", "--root", m.root.str()});
  CHECK(list.exit_code == 1);
  CHECK_THAT(list.err, Catch::Contains(m.root.host(state::kGrantsPath).string()));
}

TEST_CASE("grants: the file is written not world-writable") {
  GrantMachine m;
  REQUIRE(m.grant("web", "nvidia.com/gpu=0"));
  auto perms = std::filesystem::status(m.root.host(state::kGrantsPath)).permissions();
  CHECK((perms & std::filesystem::perms::others_write) == std::filesystem::perms::none);
}

TEST_CASE("grants: fifty processes race for one exclusive name and exactly one wins") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  std::vector<std::future<RunResult>> racers;
  for (int i = 0; i < 50; ++i) {
    racers.push_back(std::async(std::launch::async, [&root, i] {
      return run_tool(
          {"grant", "repo" + std::to_string(i), "--device", "nvidia.com/gpu=all", "--exclusive", "--root", root.str()});
    }));
  }
  int winners = 0;
  for (auto& r : racers) winners += r.get().exit_code == 0 ? 1 : 0;
  CHECK(winners == 1);
  auto set = parse_grants(root.read(state::kGrantsPath), "grants.json");
  REQUIRE(set);
  CHECK(set->grants.size() == 1);
}

TEST_CASE("grants: a process killed in the middle of writing grants leaves a valid file") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  for (int round = 0; round < 20; ++round) {
    pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      RootFs fs(root.path());
      MachineFileSink sink(fs);
      auto index = cdi::read_spec_index(fs);
      // Repository names appended, not "r" + std::string: GCC 12's -O3 -Wrestrict false positive.
      auto repo = [](int n) { return std::string("r").append(std::to_string(n % 40)); };
      for (int i = 0;; ++i) {
        (void)add_grant(fs, sink, index, repo(i), "nvidia.com/gpu=1", false, kTestStart);
        (void)remove_grant(fs, sink, repo(i + 20), "nvidia.com/gpu=1");
      }
    }
    ::usleep(static_cast<useconds_t>(2000 + round * 700));
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    if (!std::filesystem::exists(root.host(state::kGrantsPath))) continue;
    INFO("round " << round);
    CHECK(parse_grants(root.read(state::kGrantsPath), "grants.json"));
  }
}

TEST_CASE("grants: the commands as an operator runs them") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  auto typo = run_tool({"grant", "web", "--device", "nvidia.com/gpu=al", "--root", root.str()});
  CHECK(typo.exit_code == 1);
  CHECK_THAT(typo.err, Catch::Contains("Closest names: nvidia.com/gpu=all"));
  auto ok = run_tool({"grant", "web@gpu-dc-01", "--device", "nvidia.com/gpu=all", "--root", root.str()});
  CHECK(ok.exit_code == 0);
  CHECK(ok.out == "granted nvidia.com/gpu=all to web\n");
  auto excl = run_tool({"grant", "ml", "--device", "nvidia.com/gpu=0", "--exclusive", "--root", root.str()});
  CHECK(excl.exit_code == 1);
  CHECK(excl.err ==
        "rediacc-gpu: cannot reserve nvidia.com/gpu=0 exclusively: repository \"web\" holds nvidia.com/gpu=all, "
        "which reaches the same GPU; nothing was granted. Revoke it there first.\n");
  auto shared = run_tool({"grant", "ml", "--device", "nvidia.com/gpu=0", "--root", root.str()});
  CHECK(shared.exit_code == 0);
  auto table = run_tool({"grants", "--root", root.str()});
  CHECK_THAT(table.out, Catch::Contains("ml    nvidia.com/gpu=0    no") && Catch::Contains("web: nvidia.com/gpu=all"));
  auto listed = run_tool({"grants", "ml", "--root", root.str(), "-o", "json"});
  auto doc = parse_json(listed.out, "stdout");
  REQUIRE(doc);
  CHECK((*doc)["schema"] == 1);
  const auto* parsed = &(*doc)["grants"];
  REQUIRE(parsed->size() == 1);
  CHECK((*parsed)[0]["repo"] == "ml");
  CHECK((*parsed)[0]["exclusive"] == false);
  CHECK((*parsed)[0].contains("granted_at"));
  // Every column the table shows: the aliases too.
  CHECK((*parsed)[0]["same_gpu_also_granted_to"] ==
        nlohmann::json::parse(R"([{"repo":"web","device":"nvidia.com/gpu=all"}])"));
  auto revoke = run_tool({"revoke", "ml", "--device", "nvidia.com/gpu=1", "--root", root.str()});
  CHECK(revoke.exit_code == 0);
  CHECK(revoke.out ==
        "repository \"ml\" holds no grant for nvidia.com/gpu=1; nothing to revoke. It holds: nvidia.com/gpu=0.\n");
  auto none = run_tool({"revoke", "db", "--device", "nvidia.com/gpu=1", "--root", root.str()});
  CHECK_THAT(none.out, Catch::EndsWith("It holds no grant.\n"));
}

namespace {

const std::string kMig1 = "nvidia.com/gpu=MIG-0b1c2d3e-4f50-5617-8293-a4b5c6d7e8f9";  // the MIG device 0:1

}  // namespace

// Every slice's spec entry carries its parent's /dev/nvidiaN; "the same device" must still tell a
// slice from its GPU: a slice and its GPU are aliases, two slices of one GPU are not.
TEST_CASE("grants: a MIG slice and its GPU reach the same hardware, two slices of one GPU do not") {
  GrantMachine m([](const FixtureRoot& r) { nvidia_mig(r, true); });
  CHECK(cdi::ReachMap(m.index, std::nullopt).aliases_of("nvidia.com/gpu=0:1") ==
        std::vector<std::string>{"nvidia.com/gpu=0", "nvidia.com/gpu=GPU-41255406-c9af-f94b-4ebf-9d57ad1853da", kMig1,
                                 "nvidia.com/gpu=all"});
  SECTION("the GPU exclusively while another repository holds a slice: refused") {
    REQUIRE(m.grant("web", "nvidia.com/gpu=0:1"));
    auto r = m.grant("ml", "nvidia.com/gpu=0", true);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("\"web\" holds nvidia.com/gpu=0:1"));
  }
  SECTION("a slice exclusively while another repository holds the GPU, or all: refused") {
    REQUIRE(m.grant("web", "nvidia.com/gpu=0"));
    REQUIRE(m.grant("ops", "nvidia.com/gpu=all"));
    CHECK_FALSE(m.grant("ml", "nvidia.com/gpu=0:1", true));
  }
  SECTION("a slice exclusively while another holds another slice of the same GPU: granted") {
    REQUIRE(m.grant("web", "nvidia.com/gpu=0:3"));
    REQUIRE(m.grant("web", "nvidia.com/gpu=1"));
    REQUIRE(m.grant("ml", "nvidia.com/gpu=0:1", true));
    auto table = run_tool({"grants", "--root", m.root.str()});
    CHECK_THAT(table.out, Catch::Matches("(.|\n)*\nml +nvidia.com/gpu=0:1 +yes +[0-9TZ:-]+ +- +-\n(.|\n)*"));
    // The reserved slice's whole GPU is refused to the other repository.
    CHECK_FALSE(m.grant("web", "nvidia.com/gpu=0"));
  }
  SECTION("a slice exclusively while another holds its MIG UUID name: the same slice, refused") {
    REQUIRE(m.grant("web", kMig1));
    auto r = m.grant("ml", "nvidia.com/gpu=0:1", true);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("\"web\" holds " + kMig1));
  }
}

TEST_CASE("grants: NVIDIA's management device is never granted, nor anything that maps the MIG config capability") {
  GrantMachine m([](const FixtureRoot& r) { nvidia_mig(r, false); });
  auto r = m.grant("web", "management.nvidia.com/gpu=all");
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("never a tenant") && Catch::Contains("nothing was granted"));
  CHECK_FALSE(load_grants(m.fs)->find("web", "management.nvidia.com/gpu=all"));
  // A hand-written spec that slips the config capability into a plain-looking name.
  m.root.write("/etc/cdi/sneaky.yaml",
               "cdiVersion: 0.5.0\nkind: example.com/gpu\ndevices:\n  - name: slice\n    containerEdits:\n"
               "      deviceNodes:\n      - path: /dev/nvidia1\n      - path: /dev/nvidia-caps/nvidia-cap1\n");
  m.reindex();
  auto sneaky = m.grant("web", "example.com/gpu=slice");
  REQUIRE_FALSE(sneaky);
  CHECK_THAT(sneaky.error().message, Catch::Contains("/dev/nvidia-caps/nvidia-cap1"));
  // And the inventory never offers them.
  REQUIRE(run_tool({"probe", "--root", m.root.str()}).exit_code == 0);
  CHECK_THAT(m.root.read("/etc/rediacc/gpu/inventory.json"),
             !Catch::Contains("management.nvidia.com") && !Catch::Contains("example.com/gpu=slice"));
}

TEST_CASE("grants: a file that does not parse is named with the line and column, never the parser's own words") {
  const auto broken = parse_grants("{\"schema\": 1,\n  \"grants\": [\n    {\"repo\": \"web\",, }\n]}\n", "grants.json");
  REQUIRE_FALSE(broken);
  CHECK_THAT(broken.error().message, Catch::StartsWith("grants.json is not valid JSON at line 3, column ") &&
                                         Catch::Contains("never overwrites") && !Catch::Contains("json.exception"));
  const auto wrong_type = parse_grants(
      R"({"schema":1,"grants":[{"repo":"web","device":"a.com/b=c","exclusive":"yes","granted_at":"t"}]})", "g.json");
  REQUIRE_FALSE(wrong_type);
  CHECK_THAT(
      wrong_type.error().message,
      Catch::StartsWith("g.json: grants[0].exclusive is missing or not true/false") && !Catch::Contains("type_error"));
  const auto newer = parse_grants(R"({"schema":7,"grants":[]})", "g.json");
  REQUIRE_FALSE(newer);
  CHECK(newer.error().message ==
        "g.json was written by a newer rediacc-gpu (schema 7; this one reads up to 1): upgrade rediacc-gpu; it is "
        "never overwritten by an older one.");
  CHECK_FALSE(parse_grants("[]", "g.json"));
}

TEST_CASE("grants: a grant and a revoke bring the repository's view along under their own lock, and say so") {
  GrantMachine m;
  const auto in_view = [&](const std::vector<Change>& views, Change::Kind kind) {
    return std::any_of(views.begin(), views.end(), [&](const Change& c) {
      return c.kind == kind && c.target.starts_with(std::string(state::kViewsDir) + "/web/");
    });
  };
  auto granted = m.grant("web", "nvidia.com/gpu=0");
  REQUIRE(granted);
  CHECK(in_view(granted->views, Change::Kind::write));
  // Granted again: nothing to write, and the view is as it should be (mended if it was not).
  auto again = m.grant("web", "nvidia.com/gpu=0");
  REQUIRE(again);
  CHECK(again->change.kind == Change::Kind::unchanged);
  CHECK_FALSE(in_view(again->views, Change::Kind::write));
  auto revoked = remove_grant(m.fs, m.sink, "web", "nvidia.com/gpu=0");
  REQUIRE(revoked);
  CHECK(revoked->change.kind == Change::Kind::write);
  CHECK((in_view(revoked->views, Change::Kind::write) || in_view(revoked->views, Change::Kind::remove)));
}
