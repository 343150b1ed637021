// Whether a repository's daemon may build with BuildKit is one verdict, which the gate refuses by
// and doctor reports: both judge the daemon's spec directories (docker::reads_only_view) and its
// builder's entitlements (docker::builder_reach) with the same functions, so on the same machine
// the gate's answer and doctor's are the same.

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <utility>

#include "core/host_policy.h"
#include "core/state_paths.h"
#include "docker/builder_entitlements.h"
#include "docker/client.h"
#include "docker/running_daemons.h"
#include "gate/build_safety.h"
#include "tests/support/admit_on.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/stand_in_daemon.h"

using namespace rgpu;
using namespace rgpu::test;
using namespace std::string_literals;
namespace fs = std::filesystem;

namespace {

constexpr const char* kConfig = "/etc/rediacc-docker/web.json";

// A machine whose repository "web" holds one name, so it has a view.
void machine_with_view(const FixtureRoot& root) {
  two_nvidia_datacenter(root, true);
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "web", "--device", "rediacc.io/dri=renderD128"}).exit_code == 0);
}

// dockerd 4242 of repository web, started `ago` before now with its daemon.json, listening on the
// socket a stand-in answers at (its /proc/4242/root/run/d.sock).
void build_repo_daemon(const FixtureRoot& root, const std::string& config, std::chrono::seconds ago) {
  root.write("/proc/4242/cmdline",
             "/usr/sbin/dockerd\0--host=unix:///run/d.sock\0--authorization-plugin=rediacc-gpu-web\0--config-file\0"s +
                 kConfig + "\0"s);
  root.write("/proc/4242/status", "Name:\tdockerd\nUid:\t0\t0\t0\t0\n");
  root.write(kConfig, config);
  process_start(root, "4242", ago);
}

nlohmann::json doctor_report(const FixtureRoot& root) {
  return nlohmann::json::parse(tool_on(root, {"doctor", "-o", "json"}).out);
}

nlohmann::json check_in(const nlohmann::json& report, const std::string& id) {
  for (const auto& c : report["checks"]) {
    if (c["id"] == id) return c;
  }
  FAIL("doctor has no check " << id << ": " << report.dump());
  return {};
}

nlohmann::json doctor_check(const FixtureRoot& root, const std::string& id) {
  return check_in(doctor_report(root), id);
}

// The same daemon (a stand-in answering GET /info with `info`, its daemon.json `config`) to the
// gate, which judges the directories it reports, each seen through /proc/4242/root, and to
// doctor: the gate's refusal and doctor's report.
std::pair<admission::Refusal, nlohmann::json> gate_and_doctor(const FixtureRoot& root, const nlohmann::json& info,
                                                              const std::string& config) {
  using namespace std::chrono_literals;
  fs::remove(root.host("/proc/4242/root/run/d.sock"));  // the last stand-in's
  StandInDaemon daemon(root, "4242", std::map<std::string, nlohmann::json>{{"/info", info}});
  build_repo_daemon(root, config, 0s);
  const auto answer = docker::docker_call_at("unix://" + daemon.socket(), "GET", "/info", 5s);
  REQUIRE(answer);
  auto refused = gate::spec_dirs_refusal(nlohmann::json::parse(answer->body), RootFs(root.host("/proc/4242/root")),
                                         RootFs(root.path()), "web");
  return {std::move(refused), doctor_report(root)};
}

// Why builds are refused, by the words of one side (`words`: what each reason is called there);
// "" when they pass.
using Words = std::vector<std::pair<std::string, std::string>>;
const Words kGateWords = {{"lets builds run privileged", "privileged"},
                          {"lets builds use the host's network", "host network"},
                          {"cannot be judged", "unjudged"},
                          {"changed after the daemon started", "changed since its start"},
                          {"not the repository's own view", "not the view"},
                          {"reports no CDISpecDirs", "unsaid"}};
const Words kDoctorWords = {{"security-insecure is on", "privileged"},
                            {"network-host is not off", "host network"},
                            {"cannot be judged", "unjudged"},
                            {"changed after the daemon started", "changed since its start"},
                            {"not the repository's own view", "not the view"},
                            {"reports no CDISpecDirs", "unsaid"}};

std::string reason(const std::string& text, const Words& words) {
  for (const auto& [said, why] : words) {
    if (text.find(said) != std::string::npos) return why;
  }
  return text.empty() ? "" : "other: " + text;
}

// The gate's verdict on the builder (gate::builder_refusal of what the daemon runs with) and
// doctor's buildkit check, which must agree; the verdict.
std::string same_builder_verdict(const FixtureRoot& root) {
  const RootFs fs(root.path());
  const auto daemon = docker::read_daemon(fs, "4242");
  REQUIRE(daemon);
  const auto refused = gate::builder_refusal(docker::daemon_builder_entitlements(fs, fs, *daemon),
                                             daemon->config_path(), effective_rules(fs));
  const auto gate = reason(refused.value_or(""), kGateWords);
  const auto check = doctor_check(root, "buildkit");
  INFO(check.dump());
  const bool doctor_refuses = check["status"] == "warn";
  CHECK(doctor_refuses == refused.has_value());
  CHECK(reason(doctor_refuses ? check["meaning"].get<std::string>() : "", kDoctorWords) == gate);
  return gate;
}

}  // namespace

TEST_CASE("BuildKit: the gate refuses a daemon's builder exactly where doctor says it does, for the same reason") {
  FixtureRoot root;
  machine_with_view(root);
  using namespace std::chrono_literals;

  build_repo_daemon(root, R"({"cdi-spec-dirs":["/etc/cdi"]})", 0s);
  CHECK(same_builder_verdict(root) == "host network");  // network-host is on unless turned off
  build_repo_daemon(root, R"({"builder":{"entitlements":{"network-host":false}}})", 0s);
  CHECK(same_builder_verdict(root) == "");
  build_repo_daemon(root, R"({"builder":{"entitlements":{"network-host":false,"security-insecure":true}}})", 0s);
  CHECK(same_builder_verdict(root) == "privileged");
  // Two spellings of one key, which Go merges with the last winning: neither side guesses.
  build_repo_daemon(root, R"({"builder":{"entitlements":{"network-host":false}},"Builder":{"entitlements":{}}})", 0s);
  CHECK(same_builder_verdict(root) == "unjudged");
  // Written after the daemon started, which reads its builder only then.
  build_repo_daemon(root, R"({"builder":{"entitlements":{"network-host":false}}})", 600s);
  CHECK(same_builder_verdict(root) == "changed since its start");

  // Where the machine's policy lets containers share the host's network, builds may too.
  root.write(state::kHostPolicyPath, host_policy_text({HostPolicy::rediacc, "renet's units are here"}));
  build_repo_daemon(root, "{}", 0s);
  CHECK(same_builder_verdict(root) == "");
}

TEST_CASE(
    "BuildKit: a daemon reading the machine's /etc/cdi is refused by the gate and failed by doctor, one "
    "reading the view itself passes both") {
  FixtureRoot root;
  machine_with_view(root);
  const std::string view = std::string(state::kViewsDir) + "/web";
  const nlohmann::json info = {{"CDISpecDirs", {"/etc/cdi"}}};

  // Each side asks the daemon what it reads, and looks at it through /proc/4242/root.
  const auto verdicts = [&] {
    const auto [gate, report] = gate_and_doctor(root, info, R"({"cdi-spec-dirs":["/etc/cdi"]})");
    const auto check = check_in(report, "repo-cdi-view");
    INFO(check.dump() << "\n" << gate.value_or(""));
    CHECK(gate.has_value() == (check["status"] == "fail"));
    return std::pair{gate, check};
  };

  // No bind: the daemon's /etc/cdi is the machine's.
  fs::create_directories(root.host("/proc/4242"));
  fs::create_directory_symlink(root.path(), root.host("/proc/4242/root"));
  const auto [whole, whole_check] = verdicts();
  REQUIRE(whole);
  CHECK_THAT(*whole, Catch::Contains("reads CDI specs in /etc/cdi, which is not the repository's own view"));
  CHECK_THAT(whole_check["observed"].get<std::string>(), Catch::Contains("reads the machine's whole /etc/cdi"));

  // The view bound over the daemon's /etc/cdi: the very directory, seen from both sides.
  fs::remove(root.host("/proc/4242/root"));
  fs::create_directories(root.host("/proc/4242/root/etc"));
  fs::rename(root.host(view), root.host("/proc/4242/root/etc/cdi"));
  fs::create_directory_symlink("../../../../../proc/4242/root/etc/cdi", root.host(view));
  const auto [bound, bound_check] = verdicts();
  CHECK_FALSE(bound);
  CHECK(bound_check["status"] == "ok");
}

TEST_CASE(
    "BuildKit: a daemon reading a copy of its view, or an empty directory beside it, is refused by the gate and by "
    "doctor's buildkit check for the same reason, one reading the view alone by neither") {
  FixtureRoot root;
  machine_with_view(root);
  const std::string view = std::string(state::kViewsDir) + "/web";

  // The same daemon to the gate and to doctor's buildkit check, with a builder the gate lets
  // through, so only the directories are judged; both verdicts, and whether each names `said`
  // (the directories at fault, in the gate's words).
  nlohmann::json report;
  const auto same_verdict = [&](const nlohmann::json& info, const std::string& said) {
    admission::Refusal refused;
    std::tie(refused, report) = gate_and_doctor(
        root, info, R"({"cdi-spec-dirs":["/etc/cdi"],"builder":{"entitlements":{"network-host":false}}})");
    const auto check = check_in(report, "buildkit");
    INFO(check.dump() << "\n" << refused.value_or(""));
    const bool doctor_refuses = check["status"] == "warn";
    const std::string meaning = doctor_refuses ? check["meaning"].get<std::string>() : "";
    CHECK(doctor_refuses == refused.has_value());
    const auto gate = reason(refused.value_or(""), kGateWords);
    CHECK(reason(meaning, kDoctorWords) == gate);
    if (!said.empty()) {
      CHECK_THAT(refused.value_or(""), Catch::Contains("the repository's daemon " + said));
      CHECK_THAT(meaning, Catch::Contains("for web (" + said + ")"));
    }
    return gate;
  };

  // A copy of the view in the daemon's /etc/cdi: it resolves no foreign name (repo-cdi-view
  // passes), but it is not the view, which grants apply keeps up to date.
  fs::create_directories(root.host("/proc/4242/root/etc"));
  fs::copy(root.host(view), root.host("/proc/4242/root/etc/cdi"), fs::copy_options::recursive);
  const nlohmann::json etc_cdi = {{"CDISpecDirs", {"/etc/cdi"}}};
  CHECK(same_verdict(etc_cdi, "reads CDI specs in /etc/cdi, which is not the repository's own view") == "not the view");
  CHECK(check_in(report, "repo-cdi-view")["status"] == "ok");

  // The view bound over the daemon's /etc/cdi, and an empty /var/run/cdi read beside it, where a
  // spec written later would be read.
  fs::remove_all(root.host("/proc/4242/root/etc/cdi"));
  fs::rename(root.host(view), root.host("/proc/4242/root/etc/cdi"));
  fs::create_directory_symlink("../../../../../proc/4242/root/etc/cdi", root.host(view));
  fs::create_directories(root.host("/proc/4242/root/var/run/cdi"));
  const nlohmann::json beside = {{"CDISpecDirs", {"/etc/cdi", "/var/run/cdi"}}};
  CHECK(same_verdict(beside, "reads CDI specs in /var/run/cdi, which is not the repository's own view") ==
        "not the view");

  // A daemon that does not say which directories it reads (Docker before 25, or CDI off).
  CHECK(same_verdict(nlohmann::json::object(), "reports no CDISpecDirs (Docker before 25)") == "unsaid");

  // The view alone.
  CHECK(same_verdict(etc_cdi, "") == "");
}
