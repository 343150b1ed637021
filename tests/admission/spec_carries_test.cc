// What a granted name carries besides its nodes: hooks (host programs run as root for every
// container asking for the name), mounts and net devices are shown; a hook outside the allow-list
// or a net device needs the operator's say at grant; the gate refuses the name once its spec
// carries more than the grant reviewed.

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cdi/spec_index.h"
#include "core/root_fs.h"
#include "tests/support/admit_on.h"
#include "tests/support/authz_envelope.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu;
using namespace rgpu::test;
using nlohmann::json;

namespace {

// The vendor's nodes are on the machine: a node the runtime cannot find is refused at grant.
void vendor_machine(const FixtureRoot& root) {
  two_nvidia_datacenter(root, true);
  root.char_node("/dev/null", 1, 3);
  root.char_node("/dev/zero", 1, 5);
  root.write("/etc/cdi/vendor.com-xpu.yaml", vendor_xpu_spec("--flag"));
}

constexpr const char* kOtherNic = R"(cdiVersion: "1.1.0"
kind: other.com/net
devices:
  - name: nic2
    containerEdits:
      netDevices: [{hostInterfaceName: eth1, name: net0}]
)";

}  // namespace

TEST_CASE("cdi list and grants: each name shows the hooks, mounts and net devices it brings") {
  FixtureRoot root;
  vendor_machine(root);
  const auto listed = tool_on(root, {"cdi", "list", "-o", "json"});
  REQUIRE(listed.exit_code == 0);
  json hooked;
  const auto listed_doc = json::parse(listed.out);
  CHECK(listed_doc["schema"] == 1);
  for (const auto& d : listed_doc["devices"]) {
    if (d["name"] == "vendor.com/xpu=hooked") hooked = d;
  }
  REQUIRE_FALSE(hooked.is_null());
  CHECK(hooked["hooks"] ==
        json::parse(R"([{"hook":"createContainer","path":"/opt/vendor/bin/hook","args":["hook","--flag"]}])"));
  // The spec's own edits come with every one of its names.
  CHECK(hooked["mounts"] == json::parse(R"([{"host_path":"/opt/vendor/lib","container_path":"/usr/lib/vendor"}])"));
  CHECK(hooked["net_devices"].empty());
  const auto wide = tool_on(root, {"cdi", "list", "-o", "wide"});
  CHECK_THAT(wide.out, Catch::Contains("HOOKS") && Catch::Contains("NET DEVICES") &&
                           Catch::Contains("createContainer /opt/vendor/bin/hook --flag") &&
                           Catch::Contains("/opt/vendor/lib -> /usr/lib/vendor") && Catch::Contains("eth1 as eth0"));
  REQUIRE(tool_on(root, {"grant", "web", "--device", "vendor.com/xpu=hooked", "--allow-hooks"}).exit_code == 0);
  const auto grants = json::parse(tool_on(root, {"grants", "-o", "json"}).out)["grants"];
  REQUIRE(grants.size() == 1);
  CHECK(grants[0]["hooks"][0]["path"] == "/opt/vendor/bin/hook");
  CHECK(grants[0]["reviewed"] ==
        json::array({"hook createContainer /opt/vendor/bin/hook --flag (not in the allow-list)"}));
  CHECK_THAT(tool_on(root, {"grants"}).out, Catch::Contains("CARRIES") && Catch::Contains("1 hook, 1 mount"));
  CHECK_THAT(tool_on(root, {"grants", "-o", "wide"}).out,
             Catch::Contains("createContainer /opt/vendor/bin/hook --flag"));
  REQUIRE(tool_on(root, {"probe"}).exit_code == 0);
  CHECK_THAT(tool_on(root, {"list", "-o", "wide"}).out, Catch::Contains("CDI CARRIES"));
}

TEST_CASE("grant: a hook outside the allow-list or a net device needs the operator's say") {
  FixtureRoot root;
  vendor_machine(root);
  root.write("/etc/cdi/other.com-net.yaml", kOtherNic);
  const auto hooked = tool_on(root, {"grant", "web", "--device", "vendor.com/xpu=hooked"});
  CHECK(hooked.exit_code != 0);
  CHECK_THAT(hooked.err, Catch::Contains("vendor.com/xpu=hooked makes the runtime run hook createContainer "
                                         "/opt/vendor/bin/hook --flag (not in the allow-list) on the host, as root") &&
                             Catch::Contains("--allow-hooks") && Catch::Contains("/etc/rediacc/gpu/allowed-hooks"));
  CHECK_FALSE(std::filesystem::exists(root.host("/etc/rediacc/gpu/grants.json")));
  // The operator's allow-list takes the program; a comment and blanks are ignored.
  root.write("/etc/rediacc/gpu/allowed-hooks", "# vendor's hook, reviewed 2026-12-01\n  /opt/vendor/bin/hook  \n");
  CHECK(tool_on(root, {"grant", "web", "--device", "vendor.com/xpu=hooked"}).exit_code == 0);
  // The toolkit's own hook is allowed, unless someone other than root may change the program.
  CHECK(tool_on(root, {"grant", "web", "--device", "vendor.com/xpu=toolkit"}).exit_code == 0);
  root.write("/usr/bin/nvidia-cdi-hook", "#!/bin/sh\n");
  ::chmod(root.host("/usr/bin/nvidia-cdi-hook").c_str(), 0777);
  const auto writable = tool_on(root, {"grant", "api", "--device", "vendor.com/xpu=toolkit"});
  CHECK(writable.exit_code != 0);
  CHECK_THAT(writable.err, Catch::Contains("/usr/bin/nvidia-cdi-hook update-ldcache (writable by others than root)"));
  ::chmod(root.host("/usr/bin/nvidia-cdi-hook").c_str(), 0755);
  const auto nic = tool_on(root, {"grant", "web", "--device", "vendor.com/xpu=nic"});
  CHECK(nic.exit_code != 0);
  CHECK_THAT(nic.err,
             Catch::Contains("moves a host network interface into the container (net device eth1 (as eth0))") &&
                 Catch::Contains("--allow-net-devices"));
  REQUIRE(tool_on(root, {"grant", "web", "--device", "vendor.com/xpu=nic", "--allow-net-devices"}).exit_code == 0);
  // Two names that move the same host interface reach the same thing.
  REQUIRE(tool_on(root, {"grant", "api", "--device", "other.com/net=nic2", "--allow-net-devices"}).exit_code == 0);
  const auto grants = json::parse(tool_on(root, {"grants", "api", "-o", "json"}).out)["grants"];
  REQUIRE(grants.size() == 1);
  CHECK(grants[0]["same_gpu_also_granted_to"] == json::parse(R"([{"repo":"web","device":"vendor.com/xpu=nic"}])"));
}

TEST_CASE("gate: a granted name whose spec now carries what its grant did not review is refused, naming it") {
  FixtureRoot root;
  vendor_machine(root);
  REQUIRE(tool_on(root, {"grant", "web", "--device", "vendor.com/xpu=hooked", "--allow-hooks"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "web", "--device", "vendor.com/xpu=toolkit"}).exit_code == 0);
  CHECK(admit_create(root, "web", "vendor.com/xpu=hooked").exit_code == 0);
  CHECK(admit_create(root, "web", "vendor.com/xpu=toolkit").exit_code == 0);
  // The vendor's spec changes after the grant: other arguments, and a hook on the toolkit's name.
  std::string changed = vendor_xpu_spec("--other");
  changed.replace(changed.find("path: /usr/bin/nvidia-cdi-hook"), 30, "path: /tmp/x");
  root.write("/etc/cdi/vendor.com-xpu.yaml", changed);
  const auto hooked = admit_create(root, "web", "vendor.com/xpu=hooked");
  CHECK(hooked.exit_code == 1);
  CHECK_THAT(
      hooked.out,
      Catch::Contains("the spec of vendor.com/xpu=hooked changed after it was granted to repository \\\"web\\\": it "
                      "now carries hook createContainer /opt/vendor/bin/hook --other (not in the allow-list)") &&
          Catch::Contains("rediacc-gpu grant web --device vendor.com/xpu=hooked --allow-hooks"));
  const auto toolkit = admit_create(root, "web", "vendor.com/xpu=toolkit");
  CHECK(toolkit.exit_code == 1);
  CHECK_THAT(toolkit.out, Catch::Contains("hook createContainer /tmp/x update-ldcache (not in the allow-list)"));
  // The view, refreshed as the spec directory's watch does, maps neither: a restart policy's
  // restore or a build's RUN --device would run the hooks without asking the gate.
  const auto view = [&] {
    std::string all;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(root.host("/var/lib/rediacc/gpu/cdi/web"), ec))
      all += root.read("/var/lib/rediacc/gpu/cdi/web/" + e.path().filename().string());
    return all;
  };
  REQUIRE(tool_on(root, {"cdi", "views"}).exit_code == 0);
  CHECK(view().find("--other") == std::string::npos);
  CHECK(view().find("/tmp/x") == std::string::npos);
  // Reviewed again, it passes, and its view maps it again.
  REQUIRE(tool_on(root, {"grant", "web", "--device", "vendor.com/xpu=hooked", "--allow-hooks"}).exit_code == 0);
  CHECK(admit_create(root, "web", "vendor.com/xpu=hooked").exit_code == 0);
  CHECK(view().find("--other") != std::string::npos);
  CHECK(view().find("/tmp/x") == std::string::npos);
}

TEST_CASE("cdi generate: rediacc.io's own specs carry no hook, mount or net device, on every machine") {
  for (const auto& machine : named_machines()) {
    INFO(machine.name);
    FixtureRoot root;
    machine.build(root);
    REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
    const RootFs fs(root.path());
    for (const auto& d : cdi::read_spec_index(fs).devices) {
      if (!d.qualified_name.starts_with("rediacc.io/")) continue;
      INFO(d.qualified_name);
      CHECK(d.carried == cdi::Carried{});
    }
  }
}
