// grants apply: a file of desired grants made true in one change, or nothing changed and every
// reason said.

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/state_paths.h"
#include "grants/apply.h"
#include "tests/support/fixture_root.h"
#include "tests/support/grant_machine.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu;
using namespace rgpu::grants;
using namespace rgpu::test;
using nlohmann::json;

namespace {

const auto kNow = std::chrono::system_clock::now();
const auto kLater = kNow + std::chrono::hours(1);

struct Machine : GrantMachine {
  Result<ApplyOutcome> apply(const std::string& text, bool prune = false, SystemTime at = kNow) {
    RGPU_TRY_ASSIGN(const auto desired, parse_desired_grants(text, "desired.json", "gpu-dc-01"));
    return apply_grants(fs, sink, index, desired, prune, at);
  }
  std::string grants_file() const { return root.read(state::kGrantsPath); }
};

std::vector<std::string> names(const std::vector<Grant>& grants) {
  std::vector<std::string> out;
  for (const auto& g : grants) out.push_back(g.repo + " " + g.device + (g.exclusive ? " exclusive" : ""));
  return out;
}

using Names = std::vector<std::string>;

const std::string kTwoTeams = R"({"schema": 1, "repositories": [
  {"name": "team-a", "grants": [{"device": "nvidia.com/gpu=0", "exclusive": true}]},
  {"name": "team-b", "grants": ["nvidia.com/gpu=1"]}]})";

}  // namespace

TEST_CASE("grants apply: the file's grants are written, and applying it again changes nothing") {
  Machine m;
  auto first = m.apply(kTwoTeams);
  REQUIRE(first);
  CHECK(first->refused.empty());
  CHECK(first->changed());
  CHECK(names(first->added) == Names{"team-a nvidia.com/gpu=0 exclusive", "team-b nvidia.com/gpu=1"});
  CHECK(first->change.kind == Change::Kind::write);
  const auto written = m.grants_file();
  auto again = m.apply(kTwoTeams, true, kLater);
  REQUIRE(again);
  CHECK_FALSE(again->changed());
  CHECK(again->change.kind == Change::Kind::unchanged);
  CHECK(names(again->unchanged) == Names{"team-a nvidia.com/gpu=0 exclusive", "team-b nvidia.com/gpu=1"});
  CHECK(m.grants_file() == written);  // not even the grant times move
}

TEST_CASE("grants apply: YAML says the same as JSON") {
  Machine json_machine, yaml_machine;
  REQUIRE(json_machine.apply(kTwoTeams));
  REQUIRE(
      yaml_machine.apply("schema: 1\nrepositories:\n  - name: team-a\n    grants:\n"
                         "      - {device: nvidia.com/gpu=0, exclusive: true}\n"
                         "  - name: team-b@gpu-dc-01\n    grants: [nvidia.com/gpu=1]\n"));
  CHECK(yaml_machine.grants_file() == json_machine.grants_file());
}

TEST_CASE("grants apply: one refused entry writes nothing, and every refusal is reported") {
  Machine m;
  REQUIRE(m.apply(R"({"schema": 1, "repositories": [{"name": "ml", "grants": [{"device": "nvidia.com/gpu=0",
                      "exclusive": true}]}]})"));
  const auto before = m.grants_file();
  auto r = m.apply(R"({"schema": 1, "repositories": [
      {"name": "web", "grants": ["nvidia.com/gpu=1", "nvidia.com/gpu=7", "nvidia.com/gpu=all"]},
      {"name": "db", "grants": [{"device": "nvidia.com/gpu=1", "exclusive": true}]}]})");
  REQUIRE(r);
  CHECK(m.grants_file() == before);
  CHECK(r->change.kind == Change::Kind::unchanged);
  std::vector<std::string> refused;
  for (const auto& f : r->refused) refused.push_back(f.repo + " " + f.device + ": " + f.reason);
  INFO(Catch::Detail::stringify(refused));
  REQUIRE(refused.size() == 4);
  // A name no spec defines, with the names that are.
  CHECK_THAT(refused[0], Catch::StartsWith("web nvidia.com/gpu=7: no CDI spec in /etc/cdi defines") &&
                             Catch::Contains("Closest names: nvidia.com/gpu=0"));
  // Two entries of the file that cannot both hold: each pair said once.
  CHECK(refused[1] ==
        "web nvidia.com/gpu=1: nvidia.com/gpu=1 is reserved exclusively by repository \"db\"; this file lists both: "
        "change one of them.");
  CHECK(refused[2] ==
        "web nvidia.com/gpu=all: nvidia.com/gpu=all is reserved exclusively by repository \"db\" through "
        "nvidia.com/gpu=1, which reaches the same GPU; this file lists both: change one of them.");
  // A reservation in force, held by a repository the file does not list.
  CHECK(refused[3] ==
        "web nvidia.com/gpu=all: nvidia.com/gpu=all is reserved exclusively by repository \"ml\" through "
        "nvidia.com/gpu=0, which reaches the same GPU; revoke it there first.");
}

TEST_CASE("grants apply: --prune revokes what a listed repository holds beyond the file, and no other's") {
  Machine m;
  REQUIRE(m.apply(R"({"schema": 1, "repositories": [
      {"name": "team-a", "grants": ["nvidia.com/gpu=0", "nvidia.com/gpu=1"]},
      {"name": "other", "grants": ["nvidia.com/gpu=all"]}]})"));
  const std::string only_a0 = R"({"schema": 1, "repositories": [{"name": "team-a", "grants": ["nvidia.com/gpu=0"]}]})";
  auto kept = m.apply(only_a0);
  REQUIRE(kept);
  CHECK_FALSE(kept->changed());  // without --prune, what the file does not list stays
  CHECK(names(kept->unchanged) == Names{"team-a nvidia.com/gpu=0", "team-a nvidia.com/gpu=1"});
  auto pruned = m.apply(only_a0, true);
  REQUIRE(pruned);
  CHECK(names(pruned->revoked) == Names{"team-a nvidia.com/gpu=1"});
  auto set = load_grants(m.fs);
  CHECK(names(set->grants) == Names{"other nvidia.com/gpu=all", "team-a nvidia.com/gpu=0"});
  // A listed repository with no grants, pruned, holds nothing; an empty file prunes nothing.
  REQUIRE(m.apply(R"({"schema": 1, "repositories": [{"name": "team-a", "grants": []}]})", true));
  REQUIRE(m.apply(R"({"schema": 1, "repositories": []})", true));
  CHECK(names(load_grants(m.fs)->grants) == Names{"other nvidia.com/gpu=all"});
}

TEST_CASE("grants apply: a reservation moves between repositories in one apply, judged on the result") {
  Machine m;
  REQUIRE(m.apply(R"({"schema": 1, "repositories": [{"name": "team-a", "grants": [
                      {"device": "nvidia.com/gpu=0", "exclusive": true}]}]})"));
  const std::string moved = R"({"schema": 1, "repositories": [{"name": "team-a", "grants": []},
      {"name": "team-b", "grants": [{"device": "nvidia.com/gpu=0", "exclusive": true}]}]})";
  auto without_prune = m.apply(moved);  // team-a would still hold it
  REQUIRE(without_prune);
  REQUIRE(without_prune->refused.size() == 1);
  CHECK_THAT(without_prune->refused[0].reason,
             Catch::EndsWith("this file does not list that grant of team-a: apply with --prune to revoke it."));
  auto r = m.apply(moved, true);
  REQUIRE(r);
  CHECK(r->refused.empty());
  CHECK(names(r->revoked) == Names{"team-a nvidia.com/gpu=0 exclusive"});
  CHECK(names(r->added) == Names{"team-b nvidia.com/gpu=0 exclusive"});
}

TEST_CASE("grants apply: exclusive is what the file says, and a changed grant says why") {
  Machine m;
  REQUIRE(m.apply(R"({"schema": 1, "repositories": [{"name": "ml", "grants": [
                      {"device": "nvidia.com/gpu=0", "exclusive": true}]}]})"));
  auto r = m.apply(R"({"schema": 1, "repositories": [{"name": "ml", "grants": ["nvidia.com/gpu=0"]}]})", false, kLater);
  REQUIRE(r);
  REQUIRE(r->updated.size() == 1);
  CHECK(r->updated[0].why == "no longer exclusive");
  CHECK_FALSE(load_grants(m.fs)->grants[0].exclusive);
  CHECK(load_grants(m.fs)->grants[0].granted_at == format_rfc3339_utc(kLater));
}

TEST_CASE("grants apply: a name that runs a hook is granted only when its entry accepts it") {
  Machine m;
  m.root.char_node("/dev/null", 1, 3);
  m.root.write("/etc/cdi/vendor.com-xpu.yaml",
               "cdiVersion: \"0.6.0\"\nkind: vendor.com/xpu\ndevices:\n  - name: hooked\n    containerEdits:\n"
               "      deviceNodes: [{path: /dev/null}]\n"
               "      hooks: [{hookName: createContainer, path: /opt/vendor/bin/hook}]\n");
  m.index = cdi::read_spec_index(m.fs);
  auto refused = m.apply(R"({"schema": 1, "repositories": [{"name": "web", "grants": ["vendor.com/xpu=hooked"]}]})");
  REQUIRE(refused);
  REQUIRE(refused->refused.size() == 1);
  CHECK_THAT(refused->refused[0].reason, Catch::Contains("/opt/vendor/bin/hook") && Catch::Contains("--allow-hooks"));
  auto accepted = m.apply(R"({"schema": 1, "repositories": [{"name": "web", "grants": [
                              {"device": "vendor.com/xpu=hooked", "allow_hooks": true}]}]})");
  REQUIRE(accepted);
  CHECK(accepted->refused.empty());
  CHECK(load_grants(m.fs)->grants[0].reviewed.value_or(Names{}).size() == 1);
}

TEST_CASE("grants apply: a file it cannot take is refused, naming where it is wrong") {
  const auto error = [](const std::string& text) {
    auto r = parse_desired_grants(text, "desired.yaml", "gpu-dc-01");
    REQUIRE_FALSE(r);
    return r.error().message;
  };
  CHECK(error(R"({"repositories": []})") == "desired.yaml has no \"schema\": add \"schema\": 1");
  CHECK_THAT(error(R"({"schema": 2, "repositories": []})"), Catch::Contains("upgrade rediacc-gpu"));
  CHECK(error(R"({"schema": 1, "repositories": [{"name": "a", "grants": [{"device": "x/y=z", "exclusiv": true}]}]})") ==
        "desired.yaml: repositories[0].grants[0] has the field \"exclusiv\", which is not one of device, exclusive, "
        "allow_hooks, allow_net_devices");
  CHECK(
      error(R"({"schema": 1, "repositories": [{"name": "a", "grants": [{"device": "x/y=z", "exclusive": "yes"}]}]})") ==
      "desired.yaml: repositories[0].grants[0].exclusive is not true or false");
  CHECK(error(R"({"schema": 1, "repositories": [{"name": "a"}, {"name": "a"}]})") ==
        "desired.yaml: repositories[1] lists repository a a second time");
  CHECK(error(R"({"schema": 1, "repositories": [{"name": "a", "grants": ["x/y=z", "x/y=z"]}]})") ==
        "desired.yaml: repositories[0].grants[1] lists x/y=z a second time for a");
  CHECK_THAT(error(R"({"schema": 1, "repositories": [{"name": "a@gpu-02"}]})"),
             Catch::Contains("names machine \"gpu-02\""));
  CHECK_THAT(error(R"({"schema": 1, "repositories": [{"name": "../etc"}]})"), Catch::Contains("not a valid name"));
  CHECK_THAT(error("schema: 1\nrepositories: [\n"), Catch::StartsWith("desired.yaml"));
  CHECK_THAT(error(R"({"schema": 1, "repositories": {})"), Catch::StartsWith("desired.yaml is not valid JSON"));
}

TEST_CASE("grants apply: the command, its dry run, its JSON and the views it updates") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.write("/desired.json", kTwoTeams);
  const std::string file = root.host("/desired.json").string();
  auto dry = run_tool({"grants", "apply", file, "--dry-run", "--root", root.str()});
  INFO(dry.out << dry.err);
  CHECK(dry.exit_code == 0);
  CHECK(dry.out ==
        "would grant nvidia.com/gpu=0 to team-a exclusively\nwould grant nvidia.com/gpu=1 to team-b\n"
        "would change: 2 added, 0 updated, 0 revoked, 0 unchanged\n");
  CHECK_FALSE(std::filesystem::exists(root.host(state::kGrantsPath)));
  auto applied = run_tool({"grants", "apply", file, "-o", "json", "--root", root.str()});
  INFO(applied.out << applied.err);
  REQUIRE(applied.exit_code == 0);
  const auto doc = json::parse(applied.out);
  CHECK(doc["schema"] == 1);
  CHECK(doc["changed"] == true);
  CHECK(doc["added"] == json::parse(R"([{"repo":"team-a","device":"nvidia.com/gpu=0","exclusive":true},
                                        {"repo":"team-b","device":"nvidia.com/gpu=1","exclusive":false}])"));
  CHECK(doc["revoked"].empty());
  // Each repository's daemon sees only what it holds.
  CHECK_THAT(root.read("/var/lib/rediacc/gpu/cdi/team-a/nvidia.yaml"), Catch::Contains("\"name\": \"0\""));
  CHECK_THAT(root.read("/var/lib/rediacc/gpu/cdi/team-a/nvidia.yaml"), !Catch::Contains("\"name\": \"1\""));
  CHECK_THAT(root.read("/var/lib/rediacc/gpu/cdi/team-b/nvidia.yaml"), Catch::Contains("\"name\": \"1\""));
  auto again = run_tool({"grants", "apply", file, "-o", "json", "--root", root.str()});
  CHECK(json::parse(again.out)["changed"] == false);
  CHECK(run_tool({"grants", "apply", file, "--root", root.str()}).out == "nothing to change: 2 grants as listed\n");

  // Pruned from standard input: the view of team-b is emptied.
  auto pruned = run_tool({"grants", "apply", "-", "--prune", "--root", root.str()},
                         R"({"schema":1,"repositories":[{"name":"team-b","grants":[]}]})");
  CHECK(pruned.exit_code == 0);
  CHECK(pruned.out == "revoked nvidia.com/gpu=1 from team-b\napplied: 0 added, 0 updated, 1 revoked, 0 unchanged\n");
  CHECK_FALSE(std::filesystem::exists(root.host("/var/lib/rediacc/gpu/cdi/team-b/nvidia.yaml")));

  // Refused: exit 1, every refusal on stderr, nothing written.
  const auto before = root.read(state::kGrantsPath);
  auto refused =
      run_tool({"grants", "apply", "-", "--root", root.str()},
               R"({"schema":1,"repositories":[{"name":"x","grants":["nvidia.com/gpu=9","nvidia.com/gpu=0"]}]})");
  CHECK(refused.exit_code == 1);
  CHECK(refused.out.empty());
  CHECK_THAT(refused.err, Catch::Contains("rediacc-gpu: refused x nvidia.com/gpu=9: no CDI spec") &&
                              Catch::Contains("rediacc-gpu: refused x nvidia.com/gpu=0: nvidia.com/gpu=0 is reserved "
                                              "exclusively by repository \"team-a\"") &&
                              Catch::EndsWith("rediacc-gpu: standard input: 2 grants were refused, so nothing was "
                                              "changed\n"));
  CHECK(root.read(state::kGrantsPath) == before);
  auto refused_json = run_tool({"grants", "apply", "-", "-o", "json", "--root", root.str()},
                               R"({"schema":1,"repositories":[{"name":"x","grants":["nvidia.com/gpu=9"]}]})");
  CHECK(refused_json.exit_code == 1);
  CHECK(json::parse(refused_json.out)["refused"][0]["device"] == "nvidia.com/gpu=9");
  CHECK(json::parse(refused_json.out)["changed"] == false);
  auto missing = run_tool({"grants", "apply", root.str() + "/nope.json", "--root", root.str()});
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.err, Catch::Contains("cannot read " + root.str() + "/nope.json: No such file or directory"));
}
