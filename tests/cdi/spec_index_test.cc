#include <catch2/catch.hpp>
#include <filesystem>
#include <map>

#include "cdi/reach_rules.h"
#include "cdi/spec_index.h"
#include "tests/support/fixture_root.h"

using namespace rgpu;
using rgpu::test::FixtureRoot;

namespace {
const char* kMinimal = "cdiVersion: 0.3.0\nkind: x.com/gpu\ndevices:\n";
std::string device(const std::string& name) {
  return "- name: " + name + "\n  containerEdits:\n    deviceNodes:\n    - path: /dev/x" + name + "\n";
}
}  // namespace

TEST_CASE("cdi index: names and device nodes from a YAML spec like nvidia-ctk writes, its top-level nodes in each") {
  auto devices = cdi::parse_spec(
      "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: \"0\"\n  containerEdits:\n    deviceNodes:\n"
      "    - path: /dev/nvidia0\n    - path: /dev/dri/card1\n    - path: /dev/dri/renderD128\n- name: all\n"
      "  containerEdits:\n    deviceNodes:\n    - path: /dev/nvidia0\ncontainerEdits:\n  deviceNodes:\n"
      "  - path: /dev/nvidiactl\n",
      "/etc/cdi/nvidia.yaml");
  REQUIRE(devices);
  REQUIRE(devices->size() == 2);
  CHECK((*devices)[0].qualified_name == "nvidia.com/gpu=0");
  // CDI injects the spec's own nodes with every name of it.
  CHECK((*devices)[0].device_nodes ==
        std::vector<std::string>{"/dev/dri/card1", "/dev/dri/renderD128", "/dev/nvidia0", "/dev/nvidiactl"});
  CHECK((*devices)[1].qualified_name == "nvidia.com/gpu=all");
  CHECK((*devices)[1].device_nodes == std::vector<std::string>{"/dev/nvidia0", "/dev/nvidiactl"});
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

TEST_CASE("cdi index: specs that break the CDI rules are refused with the reason") {
  struct Case {
    std::string text, reason;
  };
  std::vector<Case> cases = {
      {"cdiVersion: 0.3.0\nkind: nvidia\ndevices: []\n", "vendor.com/class"},
      {std::string(kMinimal) + "- name: \"-x\"\n  containerEdits:\n    env: [A=1]\n", "\"-x\""},
      {std::string(kMinimal) + "- name: \"a b\"\n  containerEdits:\n    env: [A=1]\n", "\"a b\""},
      {std::string(kMinimal) + device("one") + device("one"), "\"one\" twice"},
      {std::string(kMinimal) + "- name: bare\n", "no containerEdits"},
      {"cdiVersion: 9.9.9\nkind: x.com/gpu\ndevices:\n" + device("a"), "cdiVersion"},
      {std::string(kMinimal) + device("a") + "  unknown: 1\n", "unknown field \"unknown\""},
      {std::string(kMinimal) + "- name: n\n  containerEdits:\n    deviceNodes: [{path: /dev/x, type: x}]\n",
       "type \"x\""},
      {std::string(kMinimal) + "- name: n\n  containerEdits:\n    hooks: [{hookName: onStart, path: /bin/x}]\n",
       "no OCI hook point"},
      {std::string(kMinimal) + "- name: n\n  containerEdits:\n    env: [NOEQUALS]\n", "NOEQUALS"},
      {std::string(kMinimal) + "- name: n\n  containerEdits:\n    mounts: [{containerPath: /x}]\n", "no hostPath"},
      {"cdiVersion: 0.3.0\nkind: x.com/gpu\nkind: y.com/gpu\ndevices:\n" + device("a"), "\"kind\" twice"},
      {"cdiVersion: 0.5.0\nkind: x.com/gpu.x\ndevices:\n" + device("a"), "0.6.0 introduced"},
      {"cdiVersion: 0.3.0\nkind: x.com/gpu\ndevices:\n- name: n\n  containerEdits:\n"
       "    deviceNodes: [{path: /dev/x, hostPath: /dev/y}]\n",
       "0.5.0 introduced"},
      {"cdiVersion: 0.5.0\nkind: x/gpu\ndevices:\n" + device("a"), "crashes the CDI library"},
      {"cdiVersion: 0.2.0\nkind: x.com/gpu\ndevices:\n" + device("a"), "0.3.0 introduced"},
      {std::string(kMinimal) + "- name: n\n  containerEdits:\n    deviceNodes: [{path: /dev/x, major: \"1\"}]\n",
       "not an integer"},
      // Found by the differential against 0.7.2: the library's YAML layer turns the document into
      // JSON first, and a key that is null or not a scalar has no JSON spelling.
      {"cdiVersion: 0.6.0\nkind: x.com/gpu\nannotations:\n  : x\ndevices:\n" + device("a"), "null key"},
      {"cdiVersion: 0.6.0\nkind: x.com/gpu\nannotations:\n  ~: x\ndevices:\n" + device("a"), "null key"},
      {"cdiVersion: 0.6.0\nkind: x.com/gpu\ndevices:\n- name: a\n  annotations: {? [k]: x}\n"
       "  containerEdits: {env: [A=1]}\n",
       "not a string"},
      {"cdiVersion: 0.7.0\nkind: x.com/gpu\ndevices:\n- name: a\n  containerEdits:\n    intelRdt: {closID: a/b}\n",
       "closID \"a/b\""},
      {"cdiVersion: 0.6.0\nkind: x.com/gpu\ndevices:\n- name: a\n  containerEdits:\n    additionalGids: [44]\n",
       "0.7.0 introduced"},
      {"", "no CDI spec"},
      {"kind: [unclosed\n", "not valid YAML"},
  };
  for (const auto& c : cases) {
    auto r = cdi::parse_spec(c.text, "/etc/cdi/t.yaml");
    INFO(c.text);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("/etc/cdi/t.yaml") && Catch::Contains(c.reason));
  }
}

TEST_CASE("cdi index: what the CDI library loads loads here too") {
  // YAML in a .json file, keys in another case, plain scalars read as YAML 1.1 reads them.
  auto yaml_in_json = cdi::parse_spec(
      "cdiVersion: 0.5.0\nKind: x.com/gpu\nDevices:\n- name: 0\n  containerEdits:\n"
      "    env: [A=1]\n- name: on\n  containerEdits: {env: [B=2]}\n",
      "/etc/cdi/t.json");
  REQUIRE(yaml_in_json);
  REQUIRE(yaml_in_json->size() == 2);
  CHECK((*yaml_in_json)[0].qualified_name == "x.com/gpu=0");
  CHECK((*yaml_in_json)[1].qualified_name == "x.com/gpu=true");
  // Newer than Debian's 0.5.2, as Docker 26 reads: annotations and a dotted class at 0.6.0.
  auto newer = cdi::parse_spec(
      R"({"cdiVersion":"0.6.0","kind":"x.com/gpu.v2","annotations":{"a":"b"},"devices":[{"name":"a",)"
      R"("annotations":{"c":"d"},"containerEdits":{"deviceNodes":[{"path":"/dev/a","hostPath":"/dev/b"}]}}]})",
      "/etc/cdi/t.json");
  REQUIRE(newer);
  CHECK((*newer)[0].qualified_name == "x.com/gpu.v2=a");
  CHECK((*newer)[0].device_nodes == std::vector<std::string>{"/dev/b"});
  // The root CLOS "/" as 1.1.0 (Docker 29.2+) accepts it; 0.7.2 and 1.0.1 refuse the file.
  CHECK(
      cdi::parse_spec("cdiVersion: 0.7.0\nkind: x.com/gpu\ndevices:\n- name: a\n  containerEdits:\n"
                      "    intelRdt: {closID: /}\n",
                      "/etc/cdi/t.yaml"));
  // An annotation key may be any scalar but null: an empty quoted one, a number, a bool.
  CHECK(
      cdi::parse_spec("cdiVersion: 0.6.0\nkind: x.com/gpu\nannotations: {\"\": a, 1: b, true: c, 1.5: d}\n"
                      "devices:\n" +
                          device("a"),
                      "/etc/cdi/t.yaml"));
  // 0.5.2 loads a spec with no devices silently; 1.0.1 (Docker 28.5's) reports it broken, as we do.
  auto empty = cdi::parse_spec("cdiVersion: 0.3.0\nkind: x.com/gpu\ndevices: []\n", "/etc/cdi/t.yaml");
  REQUIRE_FALSE(empty);
  CHECK_THAT(empty.error().message, Catch::Contains("defines no devices"));
}

// Found by the differential against the CDI library: it reads every *.json and *.yaml entry that
// is not itself a directory, links followed, so a link to a directory, to nothing or round in a
// loop is a file it reports broken; a directory of that name it skips.
TEST_CASE("cdi index: a spec-named link to a directory, to nothing or in a loop is reported, a directory skipped") {
  FixtureRoot root;
  root.write("/etc/cdi/ok.json",
             R"({"cdiVersion":"0.3.0","kind":"x.com/gpu","devices":[{"name":"a","containerEdits":{"env":["A=1"]}}]})");
  std::filesystem::create_directories(root.host("/etc/cdi/sub"));
  std::filesystem::create_directories(root.host("/etc/cdi/dir.json"));
  std::filesystem::create_symlink("sub", root.host("/etc/cdi/to-dir.json"));
  std::filesystem::create_symlink("missing.json", root.host("/etc/cdi/dangling.yaml"));
  std::filesystem::create_symlink("loop-b.json", root.host("/etc/cdi/loop-a.json"));
  std::filesystem::create_symlink("loop-a.json", root.host("/etc/cdi/loop-b.json"));
  const auto index = cdi::read_spec_index(RootFs(root.str()));
  REQUIRE(index.devices.size() == 1);
  std::map<std::string, std::string> problems;
  for (const auto& p : index.problems) problems[p.spec_path] = p.reason;
  CHECK_THAT(problems["/etc/cdi/to-dir.json"], Catch::Contains("is a link to a directory"));
  CHECK_THAT(problems["/etc/cdi/dangling.yaml"], Catch::Contains("is a link to nothing"));
  CHECK(problems.count("/etc/cdi/loop-a.json") == 1);
  CHECK(problems.count("/etc/cdi/loop-b.json") == 1);
  CHECK(problems.count("/etc/cdi/dir.json") == 0);
  CHECK(problems.size() == 4);
}

TEST_CASE("cdi index: a name two files define is a conflict, left out, both files named") {
  FixtureRoot root;
  root.write("/etc/cdi/a.yaml", std::string(kMinimal) + device("one"));
  root.write("/etc/cdi/b.yaml", std::string(kMinimal) + device("one") + device("two"));
  auto index = cdi::read_spec_index(RootFs(root.path()));
  REQUIRE(index.devices.size() == 1);
  CHECK(index.devices[0].qualified_name == "x.com/gpu=two");
  REQUIRE(index.problems.size() == 2);
  CHECK(index.problems[0].spec_path == "/etc/cdi/a.yaml");
  CHECK(index.problems[1].spec_path == "/etc/cdi/b.yaml");
  CHECK_THAT(index.problems[0].reason, Catch::Contains("x.com/gpu=one"));
}

TEST_CASE("cdi index: only .json and .yaml count, as for every CDI consumer") {
  FixtureRoot root;
  root.write("/etc/cdi/a.yml", std::string(kMinimal) + device("yml"));
  root.write("/etc/cdi/notes.txt", "not a spec");
  root.mkdir("/etc/cdi/sub.yaml");
  root.write("/etc/cdi/ok.json",
             R"({"cdiVersion":"0.3.0","kind":"x.com/gpu","devices":[{"name":"j","containerEdits":{"env":["A=1"]}}]})");
  auto index = cdi::read_spec_index(RootFs(root.path()));
  REQUIRE(index.devices.size() == 1);
  CHECK(index.devices[0].qualified_name == "x.com/gpu=j");
  CHECK(index.problems.empty());
}

TEST_CASE("cdi index: a broken file is skipped and the others still count") {
  FixtureRoot root;
  root.write("/etc/cdi/broken.yaml", "kind: [oops\n");
  root.write("/etc/cdi/good.yaml", std::string(kMinimal) + device("g"));
  auto index = cdi::read_spec_index(RootFs(root.path()));
  REQUIRE(index.devices.size() == 1);
  REQUIRE(index.problems.size() == 1);
  CHECK(index.problems[0].spec_path == "/etc/cdi/broken.yaml");
}

TEST_CASE("cdi index: the vendor, class and device-name rules") {
  CHECK(cdi::valid_vendor("nvidia.com"));
  CHECK(cdi::valid_vendor("a"));
  CHECK_FALSE(cdi::valid_vendor("1nvidia.com"));
  CHECK(cdi::valid_class("gpu"));
  CHECK_FALSE(cdi::valid_class("gpu-"));
  CHECK_FALSE(cdi::valid_class("gpu/x"));
  CHECK(cdi::valid_device_name("GPU-11111111-2222-3333-4444-555555555555"));
  CHECK(cdi::valid_device_name("0"));
  CHECK(cdi::valid_device_name("0:1"));
  CHECK_FALSE(cdi::valid_device_name("a b"));
  CHECK_FALSE(cdi::valid_device_name("x="));
}
