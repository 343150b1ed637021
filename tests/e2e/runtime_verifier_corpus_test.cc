// One judgement on both sides of dockerd: every create of the gate's corpus of renet's shapes
// (tests/fixtures/docker-cli/rediacc-corpus.jsonl, the real docker CLI's and Compose's requests) is
// judged by the gate as the plugin would (`admit`, on the machine where the verifier is wired), and
// made by a real dockerd behind no plugin but with the verifier in front of runc, which judges the
// config.json dockerd wrote from it. What the gate allows the verifier allows; what the verifier
// refuses the gate refused too; a request whose container never reached runc says why.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "admission/base64.h"
#include "tests/support/authz_envelope.h"
#include "tests/support/build_paths.h"
#include "tests/support/cdi_docker.h"
#include "tests/support/machines.h"
#include "tests/support/raw_http.h"
#include "tests/support/renet_repository.h"
#include "tests/support/run_binary.h"

using namespace rgpu::test;
namespace fs = std::filesystem;

namespace {

// The corpus was recorded for an NVIDIA machine; this one is AMD: the granted name and one that is
// not, in the same places of the same requests.
std::string on_this_machine(std::string body) {
  for (const auto& [from, to] :
       {std::pair{std::string("nvidia.com/gpu=all"), std::string("rediacc.io/dri=renderD128")},
        std::pair{std::string("nvidia.com/gpu=0"), std::string("rediacc.io/dri=renderD129")}}) {
    for (size_t at = 0; (at = body.find(from, at)) != std::string::npos; at += to.size())
      body.replace(at, from.size(), to);
  }
  return body;
}

struct Case {
  std::string form;
  std::string uri;
  std::string body;  // JSON, on this machine
  nlohmann::json line;
};

std::vector<Case> creates() {
  std::ifstream in(fixture_path("docker-cli/rediacc-corpus.jsonl"));
  REQUIRE(in);
  std::vector<Case> out;
  for (std::string text; std::getline(in, text);) {
    auto line = nlohmann::json::parse(text);
    if (line["RequestUri"].get<std::string>().find("/containers/create") == std::string::npos) continue;
    const auto decoded = rgpu::admission::base64_decode(line["RequestBody"].get<std::string>());
    REQUIRE(decoded);
    auto parsed = nlohmann::json::parse(on_this_machine(*decoded));
    // The image here has no command of its own (what it runs is not what either side judges).
    if (parsed["Cmd"].is_null()) parsed["Cmd"] = {"true"};
    const std::string body = parsed.dump();
    line["RequestBody"] = base64(body);
    // Docker 26 answers API 1.45 at most; the bodies are the same shapes.
    if (cdi_docker_major() == 26) {
      std::string uri = line["RequestUri"];
      if (uri.starts_with("/v1.47/")) uri.replace(0, 7, "/v1.45/");
      line["RequestUri"] = uri;
    }
    out.push_back({line["Form"], line["RequestUri"], body, line});
  }
  return out;
}

std::string id_of(const std::string& response) {
  const auto start = response.find("\r\n\r\n");
  const auto doc = nlohmann::json::parse(start == std::string::npos ? "" : response.substr(start + 4), nullptr, false);
  return doc.is_object() && doc.contains("Id") ? doc["Id"].get<std::string>() : "";
}

}  // namespace

TEST_CASE(
    "runtime verifier: what the gate allows of renet's shapes, dockerd makes into a config the verifier allows, "
    "and what the verifier refuses the gate refused",
    "[e2e][cdi-docker]") {
  FixtureRoot machine;
  rediacc_machine(machine);
  grant_web(machine, "rediacc.io/dri=renderD128");
  wire_runtime_verifier(machine, "910001", true);
  CdiDockerOptions o;
  o.rediacc_id = "2816";
  o.plugin = false;
  o.runtime_verifier = true;
  o.mount_from_machine = true;
  CdiDocker docker(machine, o);
  docker.import_busybox("img");
  machine.link("/run/rediacc/docker-2816.sock", docker.root() + "/run/rediacc/docker-2816.sock");
  const std::string host = "unix://" + machine.host("/run/rediacc/docker-2816.sock").string();

  const auto cases = creates();
  REQUIRE(cases.size() >= 30);
  std::string jsonl;
  for (const auto& c : cases) jsonl += c.line.dump() + "\n";
  const auto gate =
      run_tool({"admit", "--jsonl", "--repo", "2816", "--root", machine.str(), "--docker-host", host}, jsonl);
  INFO(gate.err);
  REQUIRE(gate.exit_code == 0);
  std::vector<nlohmann::json> answers;
  for (size_t at = 0, nl; (nl = gate.out.find('\n', at)) != std::string::npos; at = nl + 1)
    answers.push_back(nlohmann::json::parse(gate.out.substr(at, nl - at)));
  REQUIRE(answers.size() == cases.size());

  std::map<std::string, int> tally;
  std::string only_the_gate;
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const bool gate_allows = answers[i]["Allow"].get<bool>();
    // Made behind no plugin: dockerd's own checks alone, then runc through the verifier.
    const auto created = raw_http(docker.socket_path(), json_post(c.uri, c.body));
    const std::string id = id_of(created);
    INFO(c.form << "\ngate: " << answers[i].dump() << "\ncreate: " << created);
    if (id.empty()) {
      // dockerd refused to make it (a Mounts bind source missing in the daemon's root, a name it
      // cannot resolve): no config reached runc, so the request could not show the verifier.
      CHECK(http_status(created) >= 400);
      ++tally[gate_allows ? "gate allows, dockerd refused to create" : "gate refuses, dockerd refused to create"];
      continue;
    }
    const auto started = docker.docker({"start", id});
    const bool verifier_refuses = started.err.find("runtime create failed: refused: ") != std::string::npos;
    const bool ran = started.exit_code == 0;
    INFO("start: " << started.err);
    if (gate_allows) {
      CHECK(ran);
      ++tally["gate allows, verifier allows"];
    } else if (verifier_refuses) {
      ++tally["gate refuses, verifier refuses"];
    } else if (ran) {
      // Stricter before dockerd than at runc, where only a request shows it: a raw device that is
      // the very node a granted name maps (the gate asks for the name; runc sees the same node).
      CHECK_THAT(answers[i]["Msg"].get<std::string>(), Catch::Contains("raw device \"/dev/dri/renderD128\""));
      ++tally["gate refuses, verifier allows"];
      only_the_gate +=
          "\n    " + c.form.substr(0, 160) + " (gate: " + answers[i]["Msg"].get<std::string>().substr(0, 120) + ")";
    } else {
      // Neither: dockerd failed to start it before runc (a CDI name its /etc/cdi does not define).
      ++tally["gate refuses, dockerd failed before runc"];
    }
    CHECK((!verifier_refuses || !gate_allows));
    docker.docker({"rm", "-f", id});
  }
  std::string summary;
  for (const auto& [what, n] : tally) summary += "\n  " + what + ": " + std::to_string(n);
  WARN("Docker " << cdi_docker_major() << ", " << cases.size() << " creates of renet's shapes:" << summary
                 << "\n  refused by the gate alone:" << only_the_gate);
  CHECK(tally["gate allows, verifier allows"] >= 10);
  CHECK(tally["gate refuses, verifier refuses"] >= 5);
}
