// The gate and doctor judge a grant against the hardware with one function (grants::grant_move):
// on the same machine, every grant the gate refuses for its hardware is the one doctor fails for
// the same reason, and every grant the gate lets through doctor finds nothing wrong with.

#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/admit_on.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"

using namespace rgpu::test;

namespace {

struct Held {
  std::string repo, device;
};

// What is wrong with a grant's hardware, by the words of each side; "" when nothing is.
const std::vector<std::pair<std::string, std::string>> kGrantGateWords = {
    {"unreadable", "cannot tell which hardware"},
    {"undefined", "no CDI spec on this machine defines"},
    {"stale", "is keyed by"},
    {"moved", "now reaches other hardware than was granted"},
    {"reserved", "which another repository reserved"}};

std::string gate_verdict(const FixtureRoot& root, const Held& g) {
  const auto r = admit_create(root, g.repo, g.device);
  if (r.exit_code == 0) return "";
  for (const auto& [kind, words] : kGrantGateWords) {
    if (r.out.find(words) != std::string::npos) return kind;
  }
  return "other: " + r.out;
}

// Doctor's grants findings about `g`, the first kind in the gate's order.
std::string doctor_verdict(const nlohmann::json& checks, const Held& g) {
  const std::string holds = g.repo + " holds " + g.device + ", ";
  const std::vector<std::pair<std::string, std::string>> words = {
      {"unreadable", holds + "whose hardware cannot be told now"},
      {"undefined", holds + "which no spec defines now"},
      {"stale", holds + "which is keyed by"},
      {"moved", holds + "which now reaches other hardware than was granted"},
      {"reserved", ", and " + g.repo + "'s " + g.device + " reaches it now"}};
  for (const auto& [kind, text] : words) {
    for (const auto& c : checks) {
      if (c["id"] == "grants" && c["status"] != "ok" &&
          c["observed"].get<std::string>().find(text) != std::string::npos)
        return kind;
    }
  }
  return "";
}

// Each grant's verdict by both sides, which must agree; returned by device, for the cases below.
std::map<std::string, std::string> same_verdicts(const FixtureRoot& root, const std::vector<Held>& held) {
  const auto d = tool_on(root, {"doctor", "-o", "json"});
  const auto checks = nlohmann::json::parse(d.out)["checks"];
  std::map<std::string, std::string> out;
  for (const auto& g : held) {
    INFO(g.repo << " " << g.device << "\n" << d.out);
    const auto gate = gate_verdict(root, g);
    CHECK(gate == doctor_verdict(checks, g));
    out[g.device] = gate;
  }
  return out;
}

}  // namespace

TEST_CASE(
    "grants: the gate and doctor give each grant the same verdict on the hardware, before and after the specs "
    "follow the cards") {
  FixtureRoot root;
  workstation_numbered(root, {128, 129, 130});
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  // alpha reserves the 4090; beta and delta share the AMD card; gamma has the Intel iGPU.
  const std::vector<Held> held = {{"alpha", "rediacc.io/dri=renderD129"},
                                  {"alpha", "rediacc.io/dri=pci-0000-01-00.0"},
                                  {"beta", "rediacc.io/amd=gpu0"},
                                  {"gamma", "rediacc.io/dri=renderD128"},
                                  {"delta", "rediacc.io/dri=renderD130"}};
  for (const auto& g : held) {
    std::vector<std::string> args = {"grant", g.repo, "--device", g.device};
    if (g.repo == "alpha") args.push_back("--exclusive");
    const auto granted = tool_on(root, args);
    INFO(granted.err);
    REQUIRE(granted.exit_code == 0);
  }
  for (const auto& [device, verdict] : same_verdicts(root, held)) CHECK(verdict == "");

  // The Intel iGPU gone: every render number moves down one, and the specs still map the old nodes.
  workstation_numbered(root, {std::nullopt, 128, 129});
  const auto before = same_verdicts(root, held);
  CHECK(before.at("rediacc.io/dri=renderD129") == "moved");
  CHECK(before.at("rediacc.io/dri=pci-0000-01-00.0") == "stale");
  CHECK(before.at("rediacc.io/dri=renderD128") == "moved");  // onto alpha's reserved card
  CHECK(before.at("rediacc.io/dri=renderD130") == "unreadable");

  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  const auto after = same_verdicts(root, held);
  CHECK(after.at("rediacc.io/dri=renderD129") == "moved");
  CHECK(after.at("rediacc.io/dri=pci-0000-01-00.0") == "");
  CHECK(after.at("rediacc.io/amd=gpu0") == "");
  CHECK(after.at("rediacc.io/dri=renderD128") == "moved");
  CHECK(after.at("rediacc.io/dri=renderD130") == "undefined");
}
