#include <catch2/catch.hpp>

#include "cdi-gen/spec_index.h"
#include "tests/support/fixture_root.h"

using namespace rgpu;
using rgpu::test::FixtureRoot;

TEST_CASE("cdi index: names and device nodes from a YAML spec like nvidia-ctk writes") {
  auto devices = cdi::parse_spec(
      "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: \"0\"\n  containerEdits:\n    deviceNodes:\n"
      "    - path: /dev/nvidia0\n    - path: /dev/dri/card1\n    - path: /dev/dri/renderD128\n- name: all\n"
      "  containerEdits:\n    deviceNodes:\n    - path: /dev/nvidia0\ncontainerEdits:\n  deviceNodes:\n  - path: "
      "/dev/nvidiactl\n",
      "/etc/cdi/nvidia.yaml");
  REQUIRE(devices);
  REQUIRE(devices->size() == 2);
  CHECK((*devices)[0].qualified_name == "nvidia.com/gpu=0");
  CHECK((*devices)[0].device_nodes ==
        std::vector<std::string>{"/dev/dri/card1", "/dev/dri/renderD128", "/dev/nvidia0"});
  CHECK((*devices)[1].qualified_name == "nvidia.com/gpu=all");
}

TEST_CASE("cdi index: a JSON spec, with hostPath taken as the host's node") {
  auto devices = cdi::parse_spec(
      R"({"cdiVersion":"0.6.0","kind":"rediacc.io/dri","devices":[{"name":"renderD128","containerEdits":)"
      R"({"deviceNodes":[{"path":"/dev/dri/renderD0","hostPath":"/dev/dri/renderD128"}]}}]})",
      "/etc/cdi/rediacc.io-dri.json");
  REQUIRE(devices);
  CHECK((*devices)[0].qualified_name == "rediacc.io/dri=renderD128");
  CHECK((*devices)[0].device_nodes == std::vector<std::string>{"/dev/dri/renderD128"});
}

TEST_CASE("cdi index: specs that break the naming rules are refused with the reason") {
  auto bad_kind = cdi::parse_spec("kind: nvidia\ndevices: []\n", "/etc/cdi/a.yaml");
  REQUIRE_FALSE(bad_kind);
  CHECK_THAT(bad_kind.error().message, Catch::Contains("vendor.com/class"));
  auto bad_name = cdi::parse_spec("kind: a.com/gpu\ndevices:\n- name: \"-x\"\n", "/etc/cdi/b.yaml");
  REQUIRE_FALSE(bad_name);
  CHECK_THAT(bad_name.error().message, Catch::Contains("\"-x\""));
}

TEST_CASE("cdi index: a name defined twice keeps the first file's definition") {
  FixtureRoot root;
  root.write("/etc/cdi/a.yaml", "kind: x.com/gpu\ndevices:\n- name: one\n");
  root.write("/etc/cdi/b.yaml", "kind: x.com/gpu\ndevices:\n- name: one\n- name: two\n");
  root.write("/etc/cdi/notes.txt", "not a spec");
  auto index = cdi::read_spec_index(RootFs(root.path()));
  REQUIRE(index.devices.size() == 2);
  CHECK(index.devices[0].spec_path == "/etc/cdi/a.yaml");
  REQUIRE(index.problems.size() == 1);
  CHECK(index.problems[0].spec_path == "/etc/cdi/b.yaml");
}

TEST_CASE("cdi index: the vendor, class and device-name rules") {
  CHECK(cdi::valid_vendor("nvidia.com"));
  CHECK_FALSE(cdi::valid_vendor("1nvidia.com"));
  CHECK(cdi::valid_class("gpu"));
  CHECK_FALSE(cdi::valid_class("gpu-"));
  CHECK(cdi::valid_device_name("GPU-11111111-2222-3333-4444-555555555555"));
  CHECK(cdi::valid_device_name("0"));
  CHECK(cdi::valid_device_name("mig-1:0"));
  CHECK_FALSE(cdi::valid_device_name("a b"));
}
