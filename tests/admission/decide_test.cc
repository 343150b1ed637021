#include <poll.h>
#include <unistd.h>

#include <boost/process.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "admission/decide.h"
#include "core/split.h"
#include "docker/go_json.h"
#include "grants/cache.h"
#include "grants/store.h"
#include "tests/support/build_paths.h"
#include "tests/support/fake_world.h"
#include "tests/support/fixture_root.h"
#include "tests/support/gate_requests.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu;
using namespace rgpu::admission;
using namespace rgpu::grants;
using namespace rgpu::test;

namespace {

GrantSet web_grants() { return web_holding({"nvidia.com/gpu=all", "rediacc.io/dri=renderD128"}); }

Decision create(const std::string& host_config_json) {
  return decide(web_grants(), "web",
                req("POST", "/v1.41/containers/create", R"({"Image":"img","HostConfig":)" + host_config_json + "}"));
}

}  // namespace

TEST_CASE("admission: the requests the real docker CLI 28 sends are decided as expected") {
  std::ifstream in(fixture_path("docker-cli/corpus.jsonl"));
  REQUIRE(in);
  int lines = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    const auto j = nlohmann::json::parse(line);
    auto request = parse_authz_request(line);
    REQUIRE(request);
    const auto d = decide(web_grants(), "web", *request);
    INFO(j["Form"].get<std::string>() << " -> " << d.msg);
    CHECK(d.allow == (j["Expect"] == "allow"));
    if (!d.allow) CHECK_THAT(d.msg, Catch::StartsWith("refused: "));
  }
  CHECK(lines >= 20);
}

TEST_CASE("admission: allowed requests, so a checker that refuses everything fails") {
  CHECK(create(R"({})").allow);
  CHECK(create(R"({"GroupAdd":["video","render"]})").allow);
  CHECK(
      create(
          R"({"DeviceRequests":[{"Driver":"cdi","Count":0,"DeviceIDs":["nvidia.com/gpu=all"],"Capabilities":null,"Options":null}]})")
          .allow);
  // Compose deploy.resources.reservations.devices with driver cdi adds capabilities the daemon ignores.
  CHECK(
      create(
          R"({"DeviceRequests":[{"Driver":"cdi","DeviceIDs":["rediacc.io/dri=renderD128"],"Capabilities":[["gpu"]]}]})")
          .allow);
  CHECK(
      create(
          R"({"Runtime":"runc","CapAdd":["NET_ADMIN"],"Binds":["/srv/rediacc-gpu/web/data:/data","vol:/v"],"SecurityOpt":["no-new-privileges"]})")
          .allow);
  CHECK(create(R"({"Mounts":[{"Type":"volume","Target":"/x","VolumeOptions":{"DriverConfig":{"Name":"local"}}}]})")
            .allow);
  CHECK(decide(web_grants(), "web", req("GET", "/v1.41/containers/json")).allow);
  CHECK(decide(web_grants(), "web", req("POST", "/v1.41/containers/abc/start", "", "")).allow);
  CHECK(decide(web_grants(), "web", req("POST", "/v1.41/containers/abc/exec", R"({"Cmd":["ls"]})")).allow);
  CHECK(decide(web_grants(), "web", req("POST", "/v1.41/volumes/create", R"({"Name":"v","Driver":"local"})")).allow);
  CHECK(decide(web_grants(), "web", req("POST", "/v1.41/containers/abc/update", R"({"Memory":1048576})")).allow);
}

TEST_CASE("admission: device requests other than cdi, and malformed cdi requests, are refused") {
  refused(create(R"({"DeviceRequests":[{"Driver":"","Count":-1,"Capabilities":[["gpu"]]}]})"), "--gpus");
  refused(create(R"({"DeviceRequests":[{"Driver":"nvidia","DeviceIDs":["0"]}]})"), "driver \"nvidia\"");
  refused(create(R"({"DeviceRequests":[{"Driver":"CDI","DeviceIDs":["nvidia.com/gpu=all"]}]})"), "driver \"CDI\"");
  refused(create(R"({"DeviceRequests":[{"Driver":"cdi","Count":1,"DeviceIDs":["nvidia.com/gpu=all"]}]})"), "Count");
  refused(create(R"({"DeviceRequests":[{"Driver":"cdi","Options":{"a":"b"},"DeviceIDs":["nvidia.com/gpu=all"]}]})"),
          "Options");
  refused(create(R"({"DeviceRequests":[{"Driver":"cdi","DeviceIDs":[]}]})"), "names no device");
  refused(create(R"({"DeviceRequests":[{"Driver":"cdi","DeviceIDs":["/dev/dri/renderD128"]}]})"),
          "not a qualified CDI name");
  refused(create(R"({"DeviceRequests":[{"Driver":"cdi","DeviceIDs":["nvidia.com/gpu=0"]}]})"),
          "repository \"web\" has no grant for nvidia.com/gpu=0; it holds nvidia.com/gpu=all, "
          "rediacc.io/dri=renderD128; an operator can grant it with: rediacc-gpu grant web --device nvidia.com/gpu=0");
  // A grant belongs to its repository: a fork has none.
  refused(decide(web_grants(), "web-fork",
                 req("POST", "/containers/create",
                     R"({"HostConfig":{"DeviceRequests":[{"Driver":"cdi","DeviceIDs":["nvidia.com/gpu=all"]}]}})")),
          "no grant for nvidia.com/gpu=all");
  // NVIDIA's management device (every capability node, MIG configuration included) is refused even
  // when a hand-edited grants file holds it: grant never records it.
  GrantSet edited = web_grants();
  edited.grants.push_back({"web", "management.nvidia.com/gpu=all", false, "2026-11-29T00:00:00Z"});
  refused(
      decide(
          edited, "web",
          req("POST", "/containers/create",
              R"({"HostConfig":{"DeviceRequests":[{"Driver":"cdi","DeviceIDs":["management.nvidia.com/gpu=all"]}]}})")),
      "management device");
}

// Docker 29.2 and later turn these into CDI names by number on the daemon's side (29.3 for AMD), so
// the request is refused as sent, whatever names it would become, and says what to ask for instead.
TEST_CASE(
    "admission: what a Docker 29 client sends for --gpus is refused, naming numbered names and the granted ones") {
  const char* const kBodies[] = {
      // docker create --gpus all, --gpus 2, --gpus device=0 and device=UUID, as the CLI encodes them
      R"({"Driver":"","Count":-1,"DeviceIDs":null,"Capabilities":[["gpu"]],"Options":{}})",
      R"({"Driver":"","Count":2,"DeviceIDs":null,"Capabilities":[["gpu"]],"Options":{}})",
      R"({"Driver":"","Count":0,"DeviceIDs":["0"],"Capabilities":[["gpu"]],"Options":{}})",
      R"({"Driver":"","Count":0,"DeviceIDs":["GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"],"Capabilities":[["gpu"]]})",
      // a DeviceID holding "=" goes to the cdi driver whole in 29.2: even a granted name is refused
      R"({"Driver":"","Count":0,"DeviceIDs":["nvidia.com/gpu=all"],"Capabilities":[["gpu"]]})",
      R"({"Driver":"","Count":1,"Capabilities":[["compute","utility"]]})",
      // Compose's deploy reservations, 29.2's explicit NVIDIA drivers, 29.3's AMD one
      R"({"Driver":"nvidia","Count":-1,"Capabilities":[["gpu"]]})",
      R"({"Driver":"nvidia.cdi","DeviceIDs":["0"]})",
      R"({"Driver":"nvidia.runtime-hook","DeviceIDs":["0"]})",
      R"({"Driver":"amd","Count":-1,"Capabilities":[["gpu"]]})",
  };
  for (const char* body : kBodies) {
    INFO(body);
    const std::string create_body = std::string(R"({"HostConfig":{"DeviceRequests":[)") + body + "]}}";
    const auto held = decide(web_grants(), "web", req("POST", "/v1.53/containers/create", create_body));
    refused(held,
            "Docker 29.2 and later turn --gpus into numbered names (--gpus 2 is nvidia.com/gpu=0 and "
            "nvidia.com/gpu=1), and a number can name another card after a reboot");
    refused(held,
            "docker run --device nvidia.com/gpu=all (Compose: devices: [nvidia.com/gpu=all]); repository "
            "\"web\" holds nvidia.com/gpu=all, rediacc.io/dri=renderD128.");
    // A repository holding nothing is told so and how an operator grants, with no name it does not
    // hold (it was shown nvidia.com/gpu=all, which it does not hold either).
    const auto fresh = decide(web_grants(), "fresh", req("POST", "/v1.53/containers/create", create_body));
    refused(fresh,
            "devices are asked for by CDI name, and repository \"fresh\" holds none: an operator grants one with "
            "rediacc-gpu grant fresh --device NAME (rediacc-gpu cdi list names them).");
    CHECK(fresh.msg.find("nvidia.com/gpu=all") == std::string::npos);
  }
}

TEST_CASE("admission: every other way to devices names only what the repository holds, or how to be granted") {
  const auto holding_nothing = [](const std::string& host_config) {
    return decide(web_grants(), "fresh",
                  req("POST", "/v1.41/containers/create", R"({"Image":"img","HostConfig":)" + host_config + "}"));
  };
  const char* kNone =
      "repository \"fresh\" holds none: an operator grants one with rediacc-gpu grant fresh --device NAME";
  for (const char* hc : {R"({"Privileged":true})", R"({"Runtime":"nvidia"})",
                         R"({"Annotations":{"cdi.k8s.io/x":"nvidia.com/gpu=all"}})"}) {
    INFO(hc);
    const auto d = holding_nothing(hc);
    refused(d, kNone);
    CHECK(d.msg.find("nvidia.com/gpu=all (") == std::string::npos);
    refused(create(hc),
            "ask for devices by CDI name: docker run --device nvidia.com/gpu=all (Compose: devices: "
            "[nvidia.com/gpu=all]); repository \"web\" holds nvidia.com/gpu=all, rediacc.io/dri=renderD128.");
  }
}

TEST_CASE("admission: runtimes, annotations, devices, cgroup rules, privileges and unconfining options are refused") {
  refused(create(R"({"Runtime":"nvidia"})"), "runtime \"nvidia\"");
  refused(create(R"({"Annotations":{"cdi.k8s.io/x":"nvidia.com/gpu=all"}})"), "cdi.k8s.io/x");
  // runc reads these from the OCI spec dockerd writes: the container's scope, CRIU's options file.
  refused(create(R"({"Annotations":{"org.systemd.property.DeviceAllow":"'char-nvidia rwm'"}})"),
          "annotations reach the runtime");
  refused(create(R"({"Annotations":{"org.criu.config":"/srv/rediacc-gpu/web/criu.conf"}})"), "org.criu.config");
  refused(create(R"({"Annotations":{"example.com/owner":"team-a"}})"), "use a label");
  allowed(create(R"({"Annotations":{}})"));
  refused(
      create(
          R"({"Devices":[{"PathOnHost":"/dev/dri/renderD128","PathInContainer":"/dev/dri/renderD128","CgroupPermissions":"rwm"}]})"),
      "--device rediacc.io/dri=renderD128");
  refused(create(R"({"Devices":[{"PathOnHost":"/dev/kfd","PathInContainer":"/dev/kfd"}]})"), "rediacc.io/amd=gpu0");
  refused(create(R"({"DeviceCgroupRules":["c 226:* rmw"]})"), "device cgroup rules");
  refused(create(R"({"Privileged":true})"), "--privileged");
  for (const char* cap : {"ALL", "SYS_ADMIN", "cap_sys_admin", "sys_rawio", "CAP_SYS_MODULE"}) {
    refused(create(std::string(R"({"CapAdd":[")") + cap + R"("]})"), "capability");
  }
  for (const char* opt : {"apparmor=unconfined", "apparmor:unconfined", "seccomp=unconfined", "seccomp:unconfined",
                          "systempaths=unconfined", "label=disable", "label:disable"}) {
    refused(create(std::string(R"({"SecurityOpt":[")") + opt + R"("]})"), "security option");
  }
}

TEST_CASE("admission: binds and mounts of /dev, /sys and /run/udev are refused after normalisation") {
  for (const char* bind : {"/dev:/x", "/dev/dri:/dev/dri", "//dev//dri:/x", "/dev/../dev/dri:/x", "/sys:/s:ro",
                           "/run/udev:/u", "/:/host", "/srv/../dev:/x"}) {
    refused(create(std::string(R"({"Binds":[")") + bind + R"("]})"), "a bind of");
  }
  refused(create(R"({"Mounts":[{"Type":"bind","Source":"/dev/dri","Target":"/dev/dri"}]})"), "a mount of");
  refused(
      create(
          R"({"Mounts":[{"Type":"volume","Target":"/x","VolumeOptions":{"DriverConfig":{"Name":"local","Options":{"type":"none","o":"bind","device":"/dev/dri"}}}}]})"),
      "can bind or mount a host device");
  refused(create(R"({"Mounts":[{"Type":"volume","Target":"/x","VolumeOptions":{"DriverConfig":{"Name":"rexray"}}}]})"),
          "volume driver \"rexray\"");
  refused(create(R"({"VolumeDriver":"rexray"})"), "volume driver");
  refused(decide(web_grants(), "web",
                 req("POST", "/volumes/create", R"({"Name":"v","DriverOpts":{"device":"/dev/sdb1","type":"ext4"}})")),
          "option");
  refused(decide(web_grants(), "web", req("POST", "/volumes/create", R"({"Name":"v","Driver":"nfs"})")),
          "volume driver");
}

TEST_CASE("admission: other routes that can reach hardware are refused") {
  refused(decide(web_grants(), "web",
                 req("POST", "/containers/abc/update", R"({"Devices":[{"PathOnHost":"/dev/nvidia0"}]})")),
          "devices cannot be changed on an existing container");
  // Even a granted name: a container's devices are fixed when it is made.
  refused(decide(web_grants(), "web",
                 req("POST", "/containers/abc/update",
                     R"({"DeviceRequests":[{"Driver":"cdi","DeviceIDs":["nvidia.com/gpu=0"]}]})")),
          "docker update sets DeviceRequests, but devices cannot be changed on an existing container");
  refused(decide(web_grants(), "web", req("POST", "/v1.23/containers/abc/start", R"({"Privileged":true})")),
          "containers/start");
  refused(decide(web_grants(), "web", req("POST", "/containers/abc/exec", R"({"Cmd":["sh"],"Privileged":true})")),
          "privileged exec");
  refused(decide(web_grants(), "web", req("POST", "/services/create", "{}")), "swarm");
  refused(decide(web_grants(), "web", req("POST", "/services/abc/update", "{}")), "swarm");
  refused(decide(web_grants(), "web", req("POST", "/swarm/init", "{}")), "swarm");
  refused(decide(web_grants(), "web", req("POST", "/swarm/join", "{}")), "swarm");
  for (const char* p : {"/plugins/pull?remote=x", "/plugins/create?name=x", "/plugins/x/upgrade", "/plugins/x/set",
                        "/plugins/x/enable"}) {
    refused(decide(web_grants(), "web", req("POST", p, "[]")), "plugins");
  }
  refused(decide(web_grants(), "web", req("POST", "/session", "", "")), "BuildKit");
  refused(decide(web_grants(), "web", req("POST", "/grpc", "", "")), "DOCKER_BUILDKIT=0");
  CHECK(decide(web_grants(), "web", req("POST", "/session", "", ""),
               DecideOptions{.allow_buildkit = true, .world = null_world()})
            .allow);
}

TEST_CASE("admission: bodies are read as Go reads them: folded keys, escapes, duplicates, legacy top level") {
  auto body = [](const std::string& b) { return decide(web_grants(), "web", req("POST", "/containers/create", b)); };
  refused(body(R"({"hostconfig":{"privileged":true}})"), "--privileged");
  refused(body("{\"Ho\xC5\xBFtConfig\":{\"Privileged\":true}}"), "--privileged");                     // long s
  refused(body("{\"HostConfig\":{\"DeviceRequest\xC5\xBF\":[{\"Driver\":\"nvidia\"}]}}"), "driver");  // long s
  refused(body(R"({"HostConfig":{"Privil\u0065ged":true}})"), "--privileged");
  refused(body(R"({"HostConfig":{},"hostconfig":{"Privileged":true}})"), "two keys that Docker reads as one");
  refused(body(R"({"HostConfig":{"Privileged":false,"PRIVILEGED":true}})"), "two keys");
  refused(body(R"({"Image":"x","Privileged":true})"), "--privileged");  // engines up to 26.1
  refused(body(R"({"Image":"x","Devices":[{"PathOnHost":"/dev/dri/renderD128"}]})"), "raw device");
  CHECK(rgpu::docker::go_fold("Ho\xC5\xBFtConfig") == "HOSTCONFIG");
  CHECK(rgpu::docker::go_fold("\xE2\x84\xAA") == "K");
}

TEST_CASE("admission: pick and field find a name under every spelling Go folds to it, and no other, at any length") {
  std::mt19937 random(20261201);
  const std::string bytes = "abcxyzABCXYZ@`[{_019~^";
  int matched = 0;
  for (int round = 0; round < 4000; ++round) {
    std::string name(1 + random() % 20, 'a');
    for (auto& c : name) c = bytes[random() % bytes.size()];
    std::string key = name;
    switch (random() % 4) {
      case 0: break;
      case 1:  // flip the case bit of one byte: a match only where it is a letter
      case 2: key[random() % key.size()] ^= 0x20; break;
      default: key[random() % key.size()] = bytes[random() % bytes.size()];
    }
    if (random() % 2) {  // and other letters in other cases, which always match
      for (auto& c : key) {
        if (std::isalpha(static_cast<unsigned char>(c)) && random() % 2) c ^= 0x20;
      }
    }
    const bool same = rgpu::docker::go_fold(key) == rgpu::docker::go_fold(name);
    matched += same;
    const std::string text = nlohmann::json{{"Other", 1}, {key, 7}}.dump();
    auto doc = rgpu::docker::read_go_json(text);
    REQUIRE(doc);
    INFO(name << " / " << key);
    const std::string_view names[] = {"Other", name};
    std::optional<rgpu::docker::GoValue> out[2];
    doc->root().pick(names, out);
    CHECK(out[1].has_value() == same);
    CHECK(doc->root().field(name).has_value() == same);
  }
  CHECK(matched > 1000);
  CHECK(matched < 3000);
}

TEST_CASE("admission: folded duplicates are refused in every object the gate reads, of any size, at any depth") {
  auto body = [](const std::string& b) { return decide(web_grants(), "web", req("POST", "/containers/create", b)); };
  std::string filler;
  for (int i = 0; i < 500; ++i) filler += "\"Unknown" + std::to_string(i) + "\":\"\",";  // zero: allowed
  CHECK(body(R"({"Image":"x","HostConfig":{)" + filler + R"("Privileged":false}})").allow);
  refused(body(R"({"Image":"x","HostConfig":{"Privileged":false,)" + filler + R"("privileged":true}})"),
          "two keys that Docker reads as one: \"privileged\"");
  refused(body(R"({"Image":"x","HostConfig":{"Binds":[],)" + filler + "\"Bind\u0073\":[\"/dev:/d\"]}}"), "two keys");
  refused(body(R"({"HostConfig":{"Mounts":[{"VolumeOptions":{"DriverConfig":{"Name":"local","name":"x"}}}]}})"),
          "two keys");
  refused(body(R"({"HostConfig":{"DeviceRequests":[{"Driver":"cdi","driver":"nvidia"}]}})"), "two keys");
  refused(body("{\"HostConfig\":{\"Ho\xC5\xBFtConfig\":1,\"Privileged\":false,\"PRIVILEGED\":true}}"), "two keys");
  refused(body(R"({"WorkingDir":"/w","workingdir":"/proc/1/cwd"})"), "two keys");
  refused(body(R"({"Image":"x","Privileged":false,"PRIVILEGED":true})"), "two keys");  // the top level
}

TEST_CASE("admission: keys that differ only in case are two entries of a map, and no object the gate reads") {
  // Go keeps "a" and "A" apart in a map (Labels, Env as a map, Volumes), and an object the gate
  // never reads cannot change what dockerd applies to devices: neither is a reason to refuse.
  auto body = [](const std::string& b) { return decide(web_grants(), "web", req("POST", "/containers/create", b)); };
  std::string labels;
  for (int i = 0; i < 500; ++i) labels += "\"label" + std::to_string(i) + "\":\"x\",";
  CHECK(body(R"({"Image":"x","Labels":{)" + labels + R"("LABEL250":"y"}})").allow);
  CHECK(body(R"({"Image":"x","Labels":{)" + labels + "\"labe\u006c7\":\"y\"}}").allow);
  CHECK(body(R"({"Image":"x","Volumes":{"/data":{},"/DATA":{}},"Healthcheck":{"Test":[],"test":[]}})").allow);
  // LogConfig is read since its driver can ship output to any address: two spellings are refused.
  refused(body(R"({"Image":"x","HostConfig":{"LogConfig":{"Type":"","type":"syslog"}}})"), "two keys");
}

TEST_CASE("admission: a key folded through an escaped rune is read as Go reads it, in an all-ASCII body") {
  // \u017f is U+017F (long s), which Go folds to 'S': the text is ASCII, the key is not.
  auto body = [](const std::string& b) { return decide(web_grants(), "web", req("POST", "/containers/create", b)); };
  refused(body(R"({"Image":"x","Bind\u017f":["/dev:/x"]})"), "/dev");
  refused(body(R"({"Image":"x","HO\u017ftCOnfig":{"Devices":[{"PathOnHost":"/dev/kfd"}]}})"), "/dev/kfd");
  refused(body(R"({"HostConfig":{"DeviceCgroupRules":["c 226:* rmw"],"DeviceCgroupRule\u017f":[]}})"), "two keys");
  CHECK(body(R"({"Image":"x","Labels":{"a\u003cb":"\u0026"}})").allow);  // escapes that stay ASCII
}

TEST_CASE("admission: keys crafted to share a hash cannot make one decision take seconds") {
  // 40,000 distinct keys of one length, alike in their first and last eight bytes: a hash of
  // only those once made the duplicate check compare every pair (about 10 s for this body). In
  // HostConfig, which the gate reads, and in Labels, which it does not.
  std::string labels;
  char key[32];
  for (int i = 0; i < 40000; ++i) {
    std::snprintf(key, sizeof key, "\"AAAAAAAA%05dBBBBBBBB\":0,", i);
    labels += key;
  }
  for (const std::string object : {"HostConfig", "Labels"}) {
    const std::string body = R"({"Image":"x",")" + object + R"(":{)" + labels + R"("last":0}})";
    REQUIRE(body.size() < kMaxBody);
    const auto t0 = std::chrono::steady_clock::now();
    const auto d = decide(web_grants(), "web", req("POST", "/containers/create", body));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(d.allow);
    CHECK(seconds < 1.0);  // linear: a few milliseconds; the bound only catches quadratic work
  }
}

TEST_CASE("admission: RequestBody is standard base64, and nothing else") {
  CHECK(base64_decode("").value() == "");
  CHECK(base64_decode("YQ==").value() == "a");
  CHECK(base64_decode("YWI=").value() == "ab");
  CHECK(base64_decode("YWJj").value() == "abc");
  CHECK(base64_decode("eyJhIjoxfQ==").value() == R"({"a":1})");
  CHECK(base64_decode("+/+/").value() == "\xfb\xff\xbf");
  for (const char* bad : {"YQ=", "Y===", "YQ=a", "Y=Q=", "=YQ=", "YW J", "YWJj\n", "-_-_", "YQ==YQ=="}) {
    INFO(bad);
    CHECK_FALSE(base64_decode(bad));
  }
}

TEST_CASE("admission: fail closed on bodies the gate cannot read") {
  auto create_with = [](const std::string& b, const std::string& ct = "application/json") {
    return decide(web_grants(), "web", req("POST", "/containers/create", b, ct));
  };
  refused(create_with(""), "no body");
  refused(create_with(R"({"Image":"x"})", "text/plain"), "not application/json");
  refused(create_with(R"({"Image":"x"})", ""), "not application/json");
  CHECK(create_with(R"({"Image":"x"})", "application/json; charset=utf-8").allow);
  refused(create_with(R"({"Image":"x"} {"HostConfig":{"Privileged":true}})"), "not valid JSON");
  refused(create_with(R"({"Image":"x")"), "not valid JSON");
  refused(create_with("[1,2]"), "not a JSON object");
  refused(create_with(R"({"Image":")" + std::string(kMaxBody, 'a') + R"("})"), "over 4 MiB");
  refused(create_with(std::string(100, '[') + std::string(100, ']')), "nested deeper");
}

TEST_CASE("admission: paths are routed as dockerd routes them") {
  const std::string privileged = R"({"HostConfig":{"Privileged":true}})";
  for (const char* uri :
       {"/containers/create", "/v1.41/containers/create?name=x", "/containers/%63reate", "/v1.41%2Fcontainers/create",
        "http://localhost/v1.41/containers/create?x=/auth", "/v1.47/containers/create"}) {
    INFO(uri);
    refused(decide(web_grants(), "web", req("POST", uri, privileged)), "--privileged");
  }
  for (const char* uri :
       {"//containers/create", "/containers/./create", "/v1.41/../containers/create", "/containers/create%"}) {
    INFO(uri);
    CHECK_FALSE(decide(web_grants(), "web", req("POST", uri, privileged)).allow);
  }
}

TEST_CASE("admission: a grant or revoke takes effect at the next decision, without a restart") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  RootFs fs(root.path());
  MachineFileSink sink(fs);
  GrantsCache cache(fs);
  const auto request =
      req("POST", "/containers/create",
          R"({"HostConfig":{"DeviceRequests":[{"Driver":"cdi","DeviceIDs":["nvidia.com/gpu=all"]}]}})");
  CHECK_FALSE(decide(**cache.current(), "web", request).allow);
  REQUIRE(add_grant(fs, sink, cdi::read_spec_index(fs), "web", "nvidia.com/gpu=all", false,
                    std::chrono::system_clock::now()));
  CHECK(decide(**cache.current(), "web", request).allow);
  REQUIRE(remove_grant(fs, sink, "web", "nvidia.com/gpu=all"));
  CHECK_FALSE(decide(**cache.current(), "web", request).allow);
}

TEST_CASE("admit: one request on stdin, the plugin's answer on stdout, exit 0 or 1, and --jsonl for many") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  REQUIRE(run_tool({"grant", "web", "--device", "nvidia.com/gpu=all", "--root", root.str()}).exit_code == 0);
  std::ifstream in(fixture_path("docker-cli/corpus.jsonl"));
  std::string corpus((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string first = corpus.substr(0, corpus.find('\n'));
  auto one = run_tool({"admit", "--repo", "web", "--root", root.str()}, first);
  CHECK(one.exit_code == 0);
  CHECK(one.out == "{\"Allow\":true}\n");
  auto bad = run_tool(
      {"admit", "--repo", "web", "--root", root.str()},
      R"({"RequestMethod":"POST","RequestUri":"/containers/create","RequestHeaders":{"Content-Type":"application/json"},"RequestBody":"eyJIb3N0Q29uZmlnIjp7IlByaXZpbGVnZWQiOnRydWV9fQ=="})");
  CHECK(bad.exit_code == 1);
  CHECK_THAT(bad.out, Catch::StartsWith("{\"Allow\":false,\"Msg\":\"refused: --privileged"));
  // A path that decodes to bytes that are not UTF-8 is named in the refusal, which stays JSON.
  const std::string bad_path =
      R"({"RequestMethod":"POST","RequestUri":"/v1.41/%FF/../containers/create","RequestHeaders":{}})";
  auto odd = run_tool({"admit", "--repo", "web", "--root", root.str()}, bad_path);
  CHECK(odd.exit_code == 1);
  CHECK_THAT(odd.out,
             Catch::StartsWith("{\"Allow\":false,\"Msg\":\"refused: the request path \\\"/v1.41/\xEF\xBF\xBD/"));
  auto odd_then_good = run_tool({"admit", "--repo", "web", "--jsonl", "--root", root.str()}, bad_path + "\n" + first);
  CHECK(odd_then_good.exit_code == 0);
  CHECK_THAT(odd_then_good.out, Catch::EndsWith("\n{\"Allow\":true}\n"));
  auto garbage = run_tool({"admit", "--repo", "web", "--root", root.str()}, "not json");
  CHECK(garbage.exit_code == 1);
  CHECK_THAT(garbage.out, Catch::Contains("\"Allow\":false"));
  auto many = run_tool({"admit", "--repo", "web", "--jsonl", "--root", root.str()}, corpus);
  CHECK(many.exit_code == 0);
  CHECK(std::count(many.out.begin(), many.out.end(), '\n') == std::count(corpus.begin(), corpus.end(), '\n'));
}

TEST_CASE("admit --jsonl reads lines split across reads, longer than its buffer, and a last one without newline") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  REQUIRE(run_tool({"grant", "web", "--device", "nvidia.com/gpu=all", "--root", root.str()}).exit_code == 0);
  std::ifstream in(fixture_path("docker-cli/corpus.jsonl"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  REQUIRE_FALSE(lines.empty());
  // A create with a 600 KB environment: one line over twice the 256 KB read.
  nlohmann::json body = {{"Image", "img"}, {"Env", nlohmann::json::array()}, {"HostConfig", {{"Privileged", true}}}};
  for (int i = 0; i < 6000; ++i) body["Env"].push_back("VAR_" + std::to_string(i) + "=" + std::string(90, 'x'));
  std::string text = body.dump();
  text.resize((text.size() + 2) / 3 * 3, ' ');  // JSON's trailing spaces: base64 without padding
  std::string b64;
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < text.size(); i += 3) {
    const unsigned v = static_cast<unsigned char>(text[i]) << 16 | static_cast<unsigned char>(text[i + 1]) << 8 |
                       static_cast<unsigned char>(text[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) b64 += alphabet[(v >> shift) & 63];
  }
  const std::string big = R"({"RequestMethod":"POST","RequestUri":"/v1.41/containers/create",)"
                          R"("RequestHeaders":{"Content-Type":"application/json"},"RequestBody":")" +
                          b64 + "\"}";
  std::string input;
  size_t expected = 0;
  for (int i = 0; i < 400; ++i) {  // ~1 MB: many lines cross a read's end
    input += (i == 150 ? big : lines[i % lines.size()]) + "\n";
    ++expected;
    if (i == 200) input += "\n";  // an empty line is no request
  }
  input += lines[0];  // no newline at the end
  ++expected;
  const auto out = run_tool({"admit", "--repo", "web", "--jsonl", "--root", root.str()}, input);
  CHECK(out.exit_code == 0);
  const auto answers = rgpu::split(out.out, '\n', rgpu::EmptyFields::keep);
  REQUIRE(answers.size() == expected);
  CHECK_THAT(answers[150], Catch::StartsWith("{\"Allow\":false,\"Msg\":\"refused: --privileged"));
  CHECK(answers.back() == "{\"Allow\":true}");
}

TEST_CASE("admit --jsonl answers each request as it comes, for a gateway that waits for the answer") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  std::ifstream in(fixture_path("docker-cli/corpus.jsonl"));
  std::string first;
  std::getline(in, first);
  boost::process::pipe to_child, from_child;
  boost::process::child child(tool_path(), "admit", "--repo", "web", "--jsonl", "--root", root.str(),
                              boost::process::std_in<to_child, boost::process::std_out> from_child);
  // Reads one answer line, giving up after 10 s: an answer held back in a buffer never comes.
  auto answer = [&]() {
    std::string line;
    char c = 0;
    while (line.empty() || line.back() != '\n') {
      pollfd p{from_child.native_source(), POLLIN, 0};
      if (::poll(&p, 1, 10000) != 1 || ::read(from_child.native_source(), &c, 1) != 1) return line + "<no answer>";
      line += c;
    }
    return line;
  };
  for (int i = 0; i < 3; ++i) {
    const std::string request = first + "\n";
    REQUIRE(::write(to_child.native_sink(), request.data(), request.size()) == static_cast<ssize_t>(request.size()));
    CHECK(answer() == "{\"Allow\":true}\n");
  }
  to_child.close();
  child.wait();
  CHECK(child.exit_code() == 0);
}

TEST_CASE("admission: answers are the JSON dockerd reads, quoted and non-UTF-8 messages included") {
  const auto expected = [](const Decision& d) {
    nlohmann::ordered_json j = {{"Allow", d.allow}};
    if (!d.allow) j["Msg"] = d.msg;
    return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  };
  for (const Decision& d : {Decision{true, ""}, Decision{false, "refused: raw device \"/dev/dri\"; ask by CDI name."},
                            Decision{false, "refused: plain words, a / slash and ~ tilde."},
                            Decision{false, std::string("tab\there, back\\slash, bell\x07, del\x7f")},
                            Decision{false, "not UTF-8: \xff\xfe, and \xc3\xa9 is"}}) {
    INFO(d.msg);
    CHECK(authz_response(d) == expected(d));
    CHECK_NOTHROW(nlohmann::json::parse(authz_response(d)));
  }
}

TEST_CASE("admission: the AVX2 base64 decoder reads every body as the table decoder does, bad ones included") {
  std::mt19937 random(20261130);
  const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  int refused = 0;
  for (int round = 0; round < 20000; ++round) {
    const size_t bytes = random() % 400;
    std::string text;
    for (size_t i = 0; i < bytes; i += 3) {  // encode random bytes, padding the last quad
      const size_t n = std::min<size_t>(3, bytes - i);
      const uint32_t v = static_cast<uint32_t>(random() & 0xFFFFFF);
      for (size_t k = 0; k < 4; ++k) text += k <= n ? alphabet[(v >> (18 - 6 * k)) & 63] : '=';
    }
    if (round % 2 == 1 && !text.empty()) {  // one byte anywhere becomes any byte
      text[random() % text.size()] = static_cast<char>(random() & 0xFF);
    }
    const auto vector = base64_decode(text);
    const auto scalar = base64_decode_scalar(text);
    INFO(text);
    REQUIRE(vector.has_value() == scalar.has_value());
    if (vector) {
      CHECK(*vector == *scalar);
    } else {
      ++refused;
    }
  }
  CHECK(refused > 5000);
}

// What a tenant reads through docker run: only names this machine defines are suggested, the
// repository's own first, and never a grant command for a name no spec defines.
TEST_CASE("admission: a refused name suggests only names this machine defines, the repository's own first") {
  FakeWorld machine;
  machine.names = {"nvidia.com/gpu=0", "nvidia.com/gpu=1", "nvidia.com/gpu=all", "rediacc.io/dri=renderD128"};
  const DecideOptions options{.world = machine};
  const auto create = [&](const std::string& id, const GrantSet& grants) {
    return decide(
        grants, "web",
        req("POST", "/containers/create",
            R"({"Image":"i","HostConfig":{"DeviceRequests":[{"Driver":"cdi","DeviceIDs":[")" + id + R"("]}]}})"),
        options);
  };
  auto typo = create("nvidia.com/gpu=al", web_grants());
  refused(typo,
          "no CDI spec on this machine defines nvidia.com/gpu=al; repository \"web\" holds nvidia.com/gpu=all, "
          "rediacc.io/dri=renderD128.");
  CHECK_THAT(typo.msg, !Catch::Contains("rediacc-gpu grant"));
  auto stranger = create("nvidia.com/gpu=al", GrantSet{});
  refused(stranger,
          "names this machine defines: nvidia.com/gpu=all, nvidia.com/gpu=0, nvidia.com/gpu=1 (an operator "
          "can grant one)");
  // A grant of a name that vanished is not offered.
  GrantSet stale;
  stale.grants = {{"web", "nvidia.com/gpu=7", false, "2026-11-29T00:00:00Z"}};
  CHECK_THAT(create("nvidia.com/gpu=8", stale).msg, !Catch::Contains("gpu=7"));
}

TEST_CASE("admission: unreadable grants tell the tenant to ask an operator, the path and error go to the log") {
  const GrantsSource broken = []() -> Result<std::shared_ptr<const GrantSet>> {
    return fail("/etc/rediacc/gpu/grants.json: [json.exception.parse_error.101] syntax error at line 1, column 2");
  };
  auto d = decide(
      broken, "web",
      req("POST", "/containers/create",
          R"({"Image":"i","HostConfig":{"DeviceRequests":[{"Driver":"cdi","DeviceIDs":["nvidia.com/gpu=0"]}]}})"));
  refused(d, "this machine's grants cannot be read");
  CHECK_THAT(d.msg,
             Catch::Contains("ask an operator") && !Catch::Contains("/etc/rediacc") && !Catch::Contains("json."));
  CHECK_THAT(d.detail, Catch::Contains("/etc/rediacc/gpu/grants.json"));
}
