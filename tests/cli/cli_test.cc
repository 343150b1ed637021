// The built binary, end to end, on fixture roots and on the real machine.

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/structured_text.h"
#include "core/time_text.h"
#include "tests/support/build_paths.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu::test;

namespace {

const char* kInventory = "/etc/rediacc/gpu/inventory.json";

size_t line_count(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST_CASE("cli: --help works for the tool and every subcommand, and names --root") {
  auto top = run_tool({"--help"});
  CHECK(top.exit_code == 0);
  CHECK_THAT(top.out, Catch::Contains("probe") && Catch::Contains("list"));
  for (const char* sub : {"probe", "list"}) {
    auto r = run_tool({sub, "--help"});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("--root"));
  }
}

TEST_CASE("cli: usage errors exit 2") {
  CHECK(run_tool({}).exit_code == 2);
  CHECK(run_tool({"frobnicate"}).exit_code == 2);
  CHECK(run_tool({"list", "-o", "yaml"}).exit_code == 2);
  auto r = run_tool({"probe", "--root", "/definitely/not/here"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("/definitely/not/here"));
}

// Each command that asks a daemon takes --docker-host the same way: one that is no unix socket is a
// usage error before the command acts (revoke would otherwise revoke first), also from the plugin's
// environment variable.
TEST_CASE("cli: a --docker-host that is no unix socket is a usage error, naming it, for every command that takes it") {
  FixtureRoot root;  // never read: the command stops at its options
  no_gpu(root);
  const std::string tcp = "tcp://10.0.0.1:2375";
  const std::string why = "--docker-host: the Docker daemon at \"" + tcp + "\" is not on a unix socket";
  for (const std::vector<std::string>& command :
       std::vector<std::vector<std::string>>{{"admit", "--repo", "web"},
                                             {"authz-plugin", "--repo", "web"},
                                             {"canary", "--repo", "web"},
                                             {"check-image", "busybox"},
                                             {"doctor"},
                                             {"revoke", "web", "--device", "nvidia.com/gpu=0"}}) {
    auto args = command;
    args.insert(args.end(), {"--docker-host", tcp, "--root", root.str()});
    const auto r = run_tool(args);
    INFO(command.front() << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(why));
  }
  const auto from_env =
      run_tool({"admit", "--repo", "web", "--root", root.str()}, "", {{"REDIACC_GPU_DOCKER_HOST", tcp}});
  CHECK(from_env.exit_code == 2);
  CHECK_THAT(from_env.err, Catch::Contains(why));
}

// An empty or mistyped root has no GPU, no driver and no daemon: read as a machine it would pass
// for a healthy one with nothing on it, so every command that reads the machine refuses it.
TEST_CASE("cli: a --root with neither /sys nor /proc is refused, naming it, by every command that reads the machine") {
  FixtureRoot empty;
  const std::string dir = empty.str();
  const std::vector<std::vector<std::string>> commands = {{"probe"},
                                                          {"list"},
                                                          {"cdi", "list"},
                                                          {"setup", "--dry-run"},
                                                          {"grant", "web", "--device", "rediacc.io/dri=renderD128"},
                                                          {"revoke", "web", "--device", "rediacc.io/dri=renderD128"},
                                                          {"grants"},
                                                          {"doctor"},
                                                          {"check-image", "img"},
                                                          {"usage"},
                                                          {"canary", "--repo", "web", "--image", "img"},
                                                          {"admit", "--repo", "web"},
                                                          {"authz-plugin", "--repo", "web"},
                                                          {"metrics"}};
  for (auto args : commands) {
    args.insert(args.end(), {"--root", dir});
    INFO(args[0]);
    const auto r = run_tool(args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--root: " + dir + " has neither /sys nor /proc"));
  }
  const auto global = run_tool({"--root", dir, "probe"});
  CHECK(global.exit_code == 2);
  CHECK_THAT(global.err, Catch::Contains("--root: " + dir + " has neither /sys nor /proc"));

  // Either one is enough: a container's root may lack /sys, an image's /proc may be empty.
  empty.mkdir("/proc");
  CHECK(run_tool({"probe", "--root", dir}).exit_code == 0);
}

TEST_CASE("cli: every subcommand's --help ends with examples an operator can paste") {
  const auto top = run_tool({"--help"});
  for (const char* sub : {"setup", "probe", "list", "cdi", "grant", "revoke", "grants", "admit", "doctor", "metrics",
                          "authz-plugin", "completion"}) {
    INFO(sub);
    const auto help = run_tool({sub, "--help"}).out;
    const auto at = help.find("\nExamples:\n  ");
    REQUIRE(at != std::string::npos);
    CHECK_THAT(help.substr(at), Catch::Matches("\nExamples:\n(  [^\n]+\n)+\n*"));
    CHECK(help.find(std::string("rediacc-gpu ") + sub, at) != std::string::npos);
  }
}

TEST_CASE("cli: a mistyped command gets a suggestion, and usage errors read like every other error") {
  auto typo = run_tool({"lst"});
  CHECK(typo.exit_code == 2);
  CHECK(typo.err == "rediacc-gpu: unknown command 'lst'; did you mean 'list'?\n");
  CHECK_THAT(run_tool({"--root", "/", "grnat"}).err, Catch::Contains("did you mean 'grant'?"));
  auto unknown = run_tool({"frobnicate"});
  CHECK_THAT(unknown.err, Catch::StartsWith("rediacc-gpu: unknown command 'frobnicate'; the commands are setup,"));
  auto option = run_tool({"list", "--bogus"});
  CHECK(option.exit_code == 2);
  CHECK_THAT(option.err, Catch::StartsWith("rediacc-gpu: The following argument was not expected: --bogus\n"));
  auto version = run_tool({"--version"});
  CHECK_THAT(version.out, Catch::Matches("rediacc-gpu 0\\.1\\.0( \\(commit [0-9a-f]{12}\\))?\n"));
  // Usage lines name the tool, not the path it was started from.
  CHECK_THAT(run_tool({"list", "--help"}).out,
             Catch::Contains("Usage: rediacc-gpu list") && !Catch::Contains(tool_path()));
}

TEST_CASE("cli: list names each GPU's driver and version, an in-tree driver's being the kernel's release") {
  FixtureRoot root;
  intel_discrete(root);
  root.write("/proc/sys/kernel/osrelease", "6.1.0-28-amd64\n");
  root.mkdir("/sys/module/i915");  // in-tree: no version file
  REQUIRE(run_tool({"probe", "--root", root.str()}).exit_code == 0);
  auto r = run_tool({"list", "--root", root.str()});
  CHECK_THAT(r.out, Catch::Contains("i915 6.1.0-28-amd64"));
  auto inv = nlohmann::json::parse(root.read("/etc/rediacc/gpu/inventory.json"));
  CHECK(inv["gpus"][0]["driver_version"] == "6.1.0-28-amd64");

  // An out-of-tree module says its own version.
  root.write("/sys/module/i915/version", "1.2.3\n");
  REQUIRE(run_tool({"probe", "--root", root.str()}).exit_code == 0);
  CHECK_THAT(run_tool({"list", "--root", root.str()}).out, Catch::Contains("i915 1.2.3"));
}

TEST_CASE("cli: probe writes the inventory and prints a line per GPU") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  auto r = run_tool({"probe", "--root", root.str()});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK_THAT(
      r.out,
      Catch::Contains(
          "0000:41:00.0  nvidia  NVIDIA H100 80GB HBM3  79.6 GiB  /dev/dri/renderD128  driver nvidia 550.54.15"));
  CHECK_THAT(r.out, Catch::Contains("2 GPUs (platform native)"));
  auto j = rgpu::parse_json(root.read(kInventory), kInventory);
  REQUIRE(j);
  CHECK((*j)["gpus"].size() == 2);
  CHECK(rgpu::parse_rfc3339_utc((*j)["generated_at"].get<std::string>()));
  for (const char* key : {"schema", "generated_at", "hostname", "platform", "gpus", "cdi_devices"})
    CHECK(j->contains(key));
  for (const char* key : {"pci_address", "vendor", "vendor_id", "device_id", "name", "driver", "driver_version",
                          "memory_bytes", "render_node", "cdi_devices"}) {
    CHECK((*j)["gpus"][0].contains(key));
  }
}

TEST_CASE("cli: the global --root before the subcommand works too") {
  FixtureRoot root;
  intel_discrete(root);
  CHECK(run_tool({"--root", root.str(), "probe"}).exit_code == 0);
  CHECK(run_tool({"--root", root.str(), "list"}).exit_code == 0);
}

// The name keyed by the card (its UUID or PCI address) comes first: the one to grant.
TEST_CASE("cli: list shows name, driver, memory, platform, age and CDI names") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  REQUIRE(run_tool({"probe", "--root", root.str()}).exit_code == 0);
  auto r = run_tool({"list", "--root", root.str()});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("PCI ADDRESS") && Catch::Contains("CDI DEVICES"));
  CHECK_THAT(r.out, Catch::Contains("NVIDIA H100 80GB HBM3  nvidia 550.54.15  79.6 GiB  native    just now"));
  CHECK_THAT(
      r.out,
      Catch::Contains("nvidia.com/gpu=GPU-11111111-2222-3333-4444-555555555555, nvidia.com/gpu=1, nvidia.com/gpu=all"));
  CHECK(line_count(r.out) == 3);
}

TEST_CASE("cli: list shows partitions under their GPU, and -o wide adds NUMA node and PCIe link") {
  FixtureRoot root;
  amd_mi300x_partitioned(root);
  REQUIRE(run_tool({"probe", "--root", root.str()}).exit_code == 0);
  REQUIRE(run_tool({"cdi", "generate", "--root", root.str()}).exit_code == 0);
  auto r = run_tool({"list", "--root", root.str()});
  REQUIRE(r.exit_code == 0);
  CHECK(line_count(r.out) == 1 + 2 + 16);
  CHECK_THAT(r.out, Catch::Contains("rediacc.io/amd=pci-0000-26-00.0, rediacc.io/amd=all, rediacc.io/amd=gpu1\n  - 0"));
  // The line itself, not a "(.|\n)*" regex over the table: std::regex overflows the stack on it.
  const auto at = r.out.find("\n  - 3 ");
  REQUIRE(at != std::string::npos);
  const std::string line = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
  CHECK_THAT(line, Catch::Contains("CPX partition 3 (renderD131)") && Catch::Contains("24.0 GiB") &&
                       Catch::EndsWith("rediacc.io/amd=pci-0000-05-00.0-cpx3, rediacc.io/dri=pci-0000-05-00.0-cpx3, "
                                       "rediacc.io/amd=gpu0-cpx3, rediacc.io/dri=renderD131"));
  CHECK_THAT(r.out, !Catch::Contains("NUMA"));
  auto wide = run_tool({"list", "--root", root.str(), "-o", "wide"});
  CHECK_THAT(wide.out, Catch::Contains("NUMA  PCIE LINK"));
  CHECK_THAT(wide.out, Catch::Contains("just now  1     32 GT/s x16  rediacc.io/amd=pci-0000-26-00.0, "
                                       "rediacc.io/amd=all, rediacc.io/amd=gpu1"));
}

TEST_CASE("cli: list -o json prints the inventory exactly as recorded") {
  FixtureRoot root;
  wsl2_nvidia(root);
  REQUIRE(run_tool({"probe", "--root", root.str()}).exit_code == 0);
  auto r = run_tool({"list", "--root", root.str(), "-o", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == root.read(kInventory));
}

TEST_CASE("cli: list shows the inventory's age") {
  FixtureRoot root;
  no_gpu(root);
  root.write(
      kInventory,
      R"({"schema":1,"generated_at":"2020-01-01T00:00:00Z","hostname":null,"platform":"native","gpus":[],"cdi_devices":[]})");
  auto r = run_tool({"list", "--root", root.str()});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("no GPU found; inventory made") && Catch::Contains("d ago"));
}

TEST_CASE("cli: list without an inventory says to run probe, exit 1") {
  FixtureRoot root;
  intel_discrete(root);  // a machine never probed: no inventory yet
  auto r = run_tool({"list", "--root", root.str()});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("run `rediacc-gpu probe` first"));
  CHECK(line_count(r.err) == 1);
}

TEST_CASE("cli: an inventory that is not JSON is named, and probe does not overwrite it") {
  FixtureRoot root;
  intel_discrete(root);
  root.write(kInventory, "{ this is not json");
  auto list = run_tool({"list", "--root", root.str()});
  CHECK(list.exit_code == 1);
  CHECK_THAT(list.err, Catch::Contains(root.host(kInventory).string()));
  CHECK(line_count(list.err) == 1);
  auto probe = run_tool({"probe", "--root", root.str()});
  CHECK(probe.exit_code == 1);
  CHECK_THAT(probe.err, Catch::Contains(root.host(kInventory).string()));
  CHECK(root.read(kInventory) == "{ this is not json");
}

TEST_CASE("cli: a probe that fails leaves the previous inventory whole and no temp file") {
  FixtureRoot root;
  intel_discrete(root);
  REQUIRE(run_tool({"probe", "--root", root.str()}).exit_code == 0);
  const std::string before = root.read(kInventory);
  std::filesystem::remove_all(root.host("/sys/bus/pci/devices"));
  root.write("/sys/bus/pci/devices", "not a directory\n");
  auto r = run_tool({"probe", "--root", root.str()});
  CHECK(r.exit_code == 1);
  CHECK(line_count(r.err) == 1);
  CHECK(root.read(kInventory) == before);
  size_t files = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(root.host("/etc/rediacc/gpu"))) ++files;
  CHECK(files == 1);
}

TEST_CASE("cli: warnings go to stderr and the probe still succeeds") {
  FixtureRoot root;
  two_amd_instinct(root);
  root.write("/sys/class/kfd/kfd/topology/nodes/3/properties", "simd_count 4");
  auto r = run_tool({"probe", "--root", root.str()});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::StartsWith("warning: skipping KFD topology node 3"));
}

// The machine's own /sys, /proc and /dev, through a throwaway overlay of its root: what it writes
// (the inventory) is gone when the run ends, and the machine's /etc is left as it was. The
// overlay starts without the inventory an earlier `setup` (the README's main job) left on this
// machine, so the verdict is the probe's and never depends on what the product left here.
TEST_CASE("cli: probe and list on the real machine running the tests") {
  const bool had_inventory = std::filesystem::exists(kInventory);
  const auto binary = std::filesystem::path(tool_path());
  const std::string tool = "/opt/under-test/" + binary.filename().string();
  auto r = run_program(source_path("/tests/support/throwaway_root.sh"),
                       {binary.parent_path().string(), "/bin/sh", "-c",
                        "rm -f /etc/rediacc/gpu/inventory.json && " + tool + " probe >/dev/null && " + tool +
                            " list -o json >/tmp/list.json && python3 -m json.tool /tmp/list.json >/dev/null && "
                            "head -c 1 /tmp/list.json"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("{wrote /etc/rediacc/gpu/inventory.json\n"));
  CHECK(std::filesystem::exists(kInventory) == had_inventory);
}

TEST_CASE("cli: probing an unchanged machine again leaves the inventory untouched") {
  FixtureRoot root;
  two_amd_instinct(root);
  REQUIRE(run_tool({"probe", "--root", root.str()}).exit_code == 0);
  const auto path = root.host(kInventory);
  const auto before = std::filesystem::last_write_time(path);
  const std::string text = root.read(kInventory);
  auto again = run_tool({"probe", "--root", root.str()});
  REQUIRE(again.exit_code == 0);
  CHECK_THAT(again.out, Catch::Contains("inventory unchanged at"));
  CHECK(root.read(kInventory) == text);
  CHECK(std::filesystem::last_write_time(path) == before);
}

TEST_CASE("cli: a hardware change rewrites the inventory") {
  FixtureRoot root;
  two_amd_instinct(root);
  REQUIRE(run_tool({"probe", "--root", root.str()}).exit_code == 0);
  root.write("/sys/devices/pci0000:00/0000:c3:00.0/mem_info_vram_total", "1024\n");
  auto again = run_tool({"probe", "--root", root.str()});
  REQUIRE(again.exit_code == 0);
  CHECK_THAT(again.out, Catch::Contains("inventory written to"));
  CHECK_THAT(root.read(kInventory), Catch::Contains("\"memory_bytes\": 1024"));
}

TEST_CASE("cli: cdi generate writes our specs, then the inventory lists their names") {
  FixtureRoot root;
  two_amd_instinct(root);
  auto r = run_tool({"cdi", "generate", "--root", root.str()});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::Contains("write " + root.host("/etc/cdi/rediacc.io-dri.json").string()));
  CHECK_THAT(r.out, Catch::Contains("write " + root.host("/etc/cdi/rediacc.io-amd.json").string()));
  CHECK_THAT(r.out, Catch::Contains("write " + root.host(kInventory).string()));
  auto inv = rgpu::parse_json(root.read(kInventory), kInventory);
  REQUIRE(inv);
  CHECK((*inv)["cdi_devices"] ==
        nlohmann::json::array({"rediacc.io/amd=all", "rediacc.io/amd=gpu0", "rediacc.io/amd=gpu1",
                               "rediacc.io/amd=pci-0000-43-00.0", "rediacc.io/amd=pci-0000-c3-00.0",
                               "rediacc.io/dri=pci-0000-43-00.0", "rediacc.io/dri=pci-0000-c3-00.0",
                               "rediacc.io/dri=renderD128", "rediacc.io/dri=renderD129"}));
  CHECK((*inv)["gpus"][0]["cdi_devices"] ==
        nlohmann::json::array({"rediacc.io/amd=all", "rediacc.io/amd=gpu0", "rediacc.io/amd=pci-0000-43-00.0",
                               "rediacc.io/dri=pci-0000-43-00.0", "rediacc.io/dri=renderD128"}));
  auto again = run_tool({"cdi", "generate", "--root", root.str()});
  REQUIRE(again.exit_code == 0);
  CHECK(again.out.find("write") == std::string::npos);
  CHECK(line_count(again.out) == 3);
}

TEST_CASE("cli: cdi list shows every name with its file, ours and NVIDIA's, and reports broken specs") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  REQUIRE(run_tool({"cdi", "generate", "--root", root.str()}).exit_code == 0);
  root.write("/etc/cdi/broken.yaml", "kind: [\n");
  auto r = run_tool({"cdi", "list", "--root", root.str()});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("nvidia.com/gpu=GPU-11111111-2222-3333-4444-555555555555  /etc/cdi/nvidia.yaml"));
  CHECK_THAT(r.out, Catch::Contains("rediacc.io/dri=renderD129"));
  CHECK(line_count(r.out) == 10);  // header, 5 NVIDIA names, 2 render nodes by number and by PCI address
  CHECK_THAT(r.err, Catch::StartsWith("warning: skipping CDI spec " + root.host("/etc/cdi/broken.yaml").string()));
  auto j = run_tool({"cdi", "list", "--root", root.str(), "-o", "json"});
  auto doc = rgpu::parse_json(j.out, "stdout");
  REQUIRE(doc);
  CHECK((*doc)["schema"] == 1);
  const auto* parsed = &(*doc)["devices"];
  CHECK(parsed->size() == 9);
  CHECK((*parsed)[0]["name"] == "nvidia.com/gpu=0");
  CHECK((*parsed)[0]["spec"] == "/etc/cdi/nvidia.yaml");
  // The spec's top-level nodes come with every name of it.
  CHECK((*parsed)[0]["device_nodes"] ==
        nlohmann::json::array({"/dev/dri/card2", "/dev/dri/renderD129", "/dev/nvidia-modeset", "/dev/nvidia-uvm",
                               "/dev/nvidia-uvm-tools", "/dev/nvidia0", "/dev/nvidiactl"}));
}

TEST_CASE("cli: cdi needs generate or list") {
  CHECK(run_tool({"cdi"}).exit_code == 2);
  CHECK(run_tool({"cdi", "generate", "--help"}).exit_code == 0);
}

// A number is not a card: grant says so when it is given one, and names the card's own name.
TEST_CASE("cli: grant of a numbered name warns that it can move to another card, and names the stable one") {
  FixtureRoot root;
  mixed_workstation(root);
  REQUIRE(run_tool({"cdi", "generate", "--root", root.str()}).exit_code == 0);
  const auto numbered = run_tool({"grant", "alpha", "--device", "rediacc.io/dri=renderD128", "--root", root.str()});
  REQUIRE(numbered.exit_code == 0);
  CHECK(numbered.out == "granted rediacc.io/dri=renderD128 to alpha\n");
  CHECK(numbered.err ==
        "warning: rediacc.io/dri=renderD128 is a number given in the order the cards were probed: after a card is "
        "added, removed or moved, or a reboot, it can name another card; grant rediacc.io/dri=pci-0000-01-00.0 to "
        "name this card by its address or UUID\n");
  const auto amd = run_tool({"grant", "beta", "--device", "rediacc.io/amd=gpu0", "--root", root.str()});
  CHECK_THAT(amd.err,
             Catch::EndsWith("grant rediacc.io/amd=pci-0000-03-00.0 to name this card by its address or UUID\n"));
  for (const char* stable : {"rediacc.io/dri=pci-0000-01-00.0", "rediacc.io/amd=all"}) {
    const auto r = run_tool({"grant", "gamma", "--device", stable, "--root", root.str()});
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
  }
}

// Issue: "setup --help says --repo-daemon-unit defaults to rediacc-docker@.service; it defaults to
// auto (finding renet's units first)". The prose never names another default than the option's.
TEST_CASE("cli: setup --help says --repo-daemon-unit's default is auto, as the option is, nowhere the template") {
  const auto r = run_tool({"setup", "--help"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("--repo-daemon-unit TEXT=auto"));
  std::string flat;  // the help's prose rewrapped onto one line
  for (char c : r.out) flat += c == '\n' ? ' ' : c;
  while (flat.find("  ") != std::string::npos) flat.replace(flat.find("  "), 2, " ");
  CHECK_THAT(flat, !Catch::Contains("default `rediacc-docker@.service`") &&
                       Catch::Contains("its default, `auto`, is renet's `rediacc-docker-.service` where renet's units "
                                       "or sockets are found, else `rediacc-docker@.service`"));
}
