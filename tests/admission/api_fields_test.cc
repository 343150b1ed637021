// Fields the gate does not know are refused while they carry a value, the table of the fields it
// knows holds every field of dockerd's own request types, and bodies up to dockerd's plugin limit
// (4 MiB) are judged.

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "admission/api_fields.h"
#include "admission/authz_request.h"
#include "admission/decide.h"
#include "core/split.h"
#include "docker/go_json.h"
#include "tests/support/authz_envelope.h"
#include "tests/support/build_paths.h"
#include "tests/support/fixture_root.h"
#include "tests/support/gate_requests.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu;
using namespace rgpu::admission;
using namespace rgpu::grants;
using namespace rgpu::test;

namespace {

Decision post(const std::string& uri, const std::string& body) {
  return decide(web_holding({"nvidia.com/gpu=all"}), kGateRepo, req("POST", uri, body));
}

Decision create_body(const std::string& body) { return post("/v1.53/containers/create", body); }

// A create body of exactly `size` bytes: a long environment, as a real workload may carry.
std::string create_body_of(size_t size) {
  const std::string head = R"({"Image":"img","Env":["BIG=)";
  const std::string tail = R"("],"HostConfig":{"NetworkMode":"default"}})";
  REQUIRE(size > head.size() + tail.size());
  return head + std::string(size - head.size() - tail.size(), 'x') + tail;
}

}  // namespace

TEST_CASE(
    "admission: a field the gate does not know is refused while it carries a value, named with the API it knows") {
  refused(create_body(R"({"Image":"img","HostConfig":{"FutureDevices":["/dev/dri/renderD128"]}})"),
          "HostConfig sets \"FutureDevices\", a field the gate does not know (it knows Docker's API up to 1.56)");
  refused(create_body(R"({"Image":"img","NetDevices":{"eth9":{}}})"), "the create body sets \"NetDevices\"");
  // Zero values, which the CLI sends for every field it knows, pass: dockerd applies nothing for them.
  for (const char* zero : {"null", "false", "0", "0.0", "\"\"", "[]", "{}"}) {
    INFO(zero);
    allowed(create_body(std::string(R"({"Image":"img","Future":)") + zero + R"(,"HostConfig":{"FutureDevices":)" +
                        zero + "}}"));
  }
  // Every object of a body that dockerd decodes into a struct.
  refused(post("/v1.53/containers/abc/update", R"({"Memory":0,"FutureDevices":["/dev/kfd"]})"),
          "the update body sets \"FutureDevices\"");
  refused(post("/v1.53/containers/create",
               R"({"HostConfig":{"Mounts":[{"Type":"volume","Target":"/d","Backing":"/dev/sda"}]}})"),
          "Mounts[] sets \"Backing\"");
  refused(
      post("/v1.53/containers/create",
           R"({"HostConfig":{"Mounts":[{"Type":"bind","Source":"/srv","Target":"/d","BindOptions":{"Device":"x"}}]}})"),
      "Mounts[].BindOptions sets \"Device\"");
  refused(
      post(
          "/v1.53/containers/create",
          R"({"HostConfig":{"Mounts":[{"Type":"volume","Target":"/d","VolumeOptions":{"DriverConfig":{"Name":"local","Host":"/"}}}]}})"),
      "Mounts[].VolumeOptions.DriverConfig sets \"Host\"");
  refused(post("/v1.53/containers/create",
               R"({"HostConfig":{"Mounts":[{"Type":"tmpfs","Target":"/d","TmpfsOptions":{"Device":"/dev/sda"}}]}})"),
          "Mounts[].TmpfsOptions sets \"Device\"");
  refused(
      post(
          "/v1.53/containers/create",
          R"({"HostConfig":{"DeviceRequests":[{"Driver":"cdi","DeviceIDs":["nvidia.com/gpu=all"],"NetDevices":["eth0"]}]}})"),
      "DeviceRequests[] sets \"NetDevices\"");
  refused(post("/v1.53/volumes/create", R"({"Name":"v","Driver":"local","Backing":"/dev/sda"})"),
          "the volume body sets \"Backing\"");
  // Go matches a key to a field without case, and only with its own folding: "privileged" is
  // Privileged; a dotless i makes a key dockerd 20.10 ignores, and a newer one might not.
  refused(create_body(R"({"HostConfig":{"privileged":true}})"), "--privileged");
  refused(create_body("{\"HostConfig\":{\"Pr\\u0131vileged\":true}}"), "HostConfig sets \"Pr\xC4\xB1vileged\"");
  // Fields of every version from 20.10 to the newest read are known, judged or harmless.
  allowed(create_body(
      R"({"Image":"img","MacAddress":"02:42:ac:11:00:02","HostConfig":{"KernelMemory":1048576,"Annotations":{},"Mounts":[{"Type":"bind","Source":"/srv/rediacc-gpu/web/data","Target":"/d","BindOptions":{"ReadOnlyForceRecursive":true,"CreateMountpoint":true}},{"Type":"image","Source":"img","Target":"/i","ImageOptions":{"Subpath":"usr"}}]}})"));
  allowed(post("/v1.53/containers/abc/exec", R"({"Cmd":["true"],"ConsoleSize":[24,80],"Detach":true})"));
}

TEST_CASE(
    "admission: the table of fields holds every field dockerd 20.10 and 28.5 decode in the bodies the gate judges",
    "[oracle]") {
  // 28.5 reads no HostConfig field at the top level (API 1.44's types), and adds fields in
  // bind, tmpfs, volume, image and cluster options and exec's ConsoleSize: the table holds both.
  const bool newer = GENERATE(false, true);
  const auto r = run_program(newer ? api_fields_oracle_28_program() : api_fields_oracle_program(), {});
  INFO((newer ? "dockerd 28.5" : "dockerd 20.10") << ": " << r.err);
  REQUIRE(r.exit_code == 0);
  std::set<std::pair<std::string, std::string>> table;
  static const std::map<ApiObject, std::string> kNames = {{ApiObject::create, "create"},
                                                          {ApiObject::host_config, "host_config"},
                                                          {ApiObject::update, "update"},
                                                          {ApiObject::exec, "exec"},
                                                          {ApiObject::mount, "mount"},
                                                          {ApiObject::bind_options, "bind_options"},
                                                          {ApiObject::volume_options, "volume_options"},
                                                          {ApiObject::volume_driver, "volume_driver"},
                                                          {ApiObject::tmpfs_options, "tmpfs_options"},
                                                          {ApiObject::image_options, "image_options"},
                                                          {ApiObject::device_request, "device_request"},
                                                          {ApiObject::volume_create, "volume_create"}};
  for (const auto& f : api_fields()) {
    const std::string object = kNames.at(f.object);
    CHECK(table.emplace(object, std::string(f.name)).second);  // listed once
    // A create body reads HostConfig's fields at its top level too (engines up to 26.1).
    if (f.object == ApiObject::host_config) table.emplace("create", std::string(f.name));
  }
  std::istringstream lines(r.out);
  int fields = 0;
  bool top_level_privileged = false;
  for (std::string object, name; lines >> object >> name; ++fields) {
    INFO(object << " " << name);
    CHECK(table.count({object, name}) == 1);
    top_level_privileged = top_level_privileged || (object == "create" && name == "Privileged");
  }
  CHECK(fields > (newer ? 170 : 200));
  CHECK(top_level_privileged == !newer);  // the gate still judges it there, for 26.1 and earlier
}

TEST_CASE("admission: no field of a real CLI's request or of dockerd 26's stored container is unknown to the gate") {
  std::ifstream in(fixture_path("docker-cli/corpus.jsonl"));
  REQUIRE(in);
  int bodies = 0;
  for (std::string line; std::getline(in, line);) {
    const auto request = parse_authz_request(line);
    REQUIRE(request);
    if (request->body.empty()) continue;
    auto doc = rgpu::docker::read_go_json(request->body);
    REQUIRE(doc);
    const auto host_config = doc->root().field("HostConfig");
    INFO(request->uri);
    CHECK_FALSE(check_known_fields(doc->root(), ApiObject::create));
    if (host_config) CHECK_FALSE(check_known_fields(*host_config, ApiObject::host_config));
    ++bodies;
  }
  CHECK(bodies > 10);
  for (const char* fixture : {"plain-26.1.5.json", "cdi-device-26.1.5.json"}) {
    std::ifstream f(fixture_path(std::string("docker-inspect/") + fixture));
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    auto doc = rgpu::docker::read_go_json(text);
    REQUIRE(doc);
    INFO(fixture);
    CHECK_FALSE(check_known_fields(doc->root().field("HostConfig").value(), ApiObject::host_config));
  }
}

TEST_CASE("admission: bodies up to dockerd's 4 MiB plugin limit are judged, a larger one refused, through admit") {
  constexpr size_t kMiB = 1024 * 1024;
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  std::string input;
  const std::vector<size_t> sizes = {kMiB - 1, 2 * kMiB, 4 * kMiB, 4 * kMiB + 1};
  for (const size_t size : sizes) {
    const std::string body = create_body_of(size);
    REQUIRE(body.size() == size);
    input += authz_post("/v1.53/containers/create", body) + "\n";
    if (size == 4 * kMiB) allowed(create_body(body));
    if (size == 4 * kMiB + 1) refused(create_body(body), "over 4 MiB");
  }
  const auto out = run_tool({"admit", "--repo", "web", "--jsonl", "--root", root.str()}, input);
  const auto lines = rgpu::split(out.out, '\n', rgpu::EmptyFields::keep);
  INFO(out.err);
  REQUIRE(lines.size() == sizes.size());
  CHECK(lines[0] == "{\"Allow\":true}");
  CHECK(lines[1] == "{\"Allow\":true}");
  CHECK(lines[2] == "{\"Allow\":true}");
  CHECK_THAT(lines[3], Catch::Contains("over 4 MiB"));
  // A body dockerd cut or dropped still fails closed.
  refused(create_body(""), "no body");
  refused(create_body(create_body_of(2 * kMiB).substr(0, kMiB)), "not valid JSON");
}
