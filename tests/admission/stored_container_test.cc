// Routes that run a process in a container that already exists (start, restart, unpause, exec, an
// update that sets a restart policy) are judged on what the repository's daemon stored for that
// container, as a create would be judged now: the pure decision with a fake daemon (the plugin's
// lookup from the real daemon is tests/plugin/stored_container_test.cc).

#include <catch2/catch.hpp>
#include <functional>
#include <nlohmann/json.hpp>

#include "admission/decide.h"
#include "admission/route.h"
#include "tests/support/fake_world.h"
#include "tests/support/gate_requests.h"

using namespace rgpu;
using namespace rgpu::admission;
using namespace rgpu::grants;
using namespace rgpu::test;
using nlohmann::json;

namespace {

// A daemon that stores `stored` under every name, and records the names it was asked for.
FakeWorld storing(const json& stored) {
  FakeWorld daemon;
  daemon.stored = stored.dump();
  // The daemon the fixtures were read from ran on cgroup v1, where the host's cgroup namespace is
  // every container's: it stored CgroupnsMode "host" without being asked.
  daemon.cgroupns_default = "host";
  return daemon;
}

Decision decide_with(FakeWorld& daemon, const GrantSet& grants, const AuthzRequest& request) {
  return decide(grants, "web", request, DecideOptions{.world = daemon});
}

}  // namespace

TEST_CASE(
    "stored containers: every route on /containers/{name}/VERB names the container as dockerd's router reads it") {
  const auto start = route_of("POST", "/v1.45/containers/0123abcd/start");
  REQUIRE(start);
  CHECK(start->kind == RouteKind::container_start);
  CHECK(start->container == "0123abcd");
  // A legacy link registers "/parent/alias" as another name of the linked container: dockerd's
  // {name:.*} takes every segment, so the exec and update there are judged, never "other".
  const auto linked = route_of("POST", "/containers/web/db/exec");
  REQUIRE(linked);
  CHECK(linked->kind == RouteKind::exec_create);
  CHECK(linked->container == "web/db");
  CHECK(route_of("POST", "/containers/a/b/update")->kind == RouteKind::container_update);
  CHECK(route_of("POST", "/containers/a%2Fb/restart")->container == "a/b");
  CHECK(route_of("POST", "/containers/x/unpause")->kind == RouteKind::container_unpause);
  CHECK(route_of("POST", "/containers/create/start")->kind == RouteKind::container_start);  // a container named create
  CHECK(route_of("POST", "/containers/create")->kind == RouteKind::container_create);
}

TEST_CASE(
    "stored containers: a container made with a name the repository no longer holds is refused at start, "
    "restart, unpause and exec, naming the container and the grant") {
  auto daemon = storing(inspect_fixture("cdi-device-26.1.5.json"));
  const auto held = web_holding({"rediacc.io/dri=renderD128"});
  const auto revoked = web_holding({});
  CHECK(decide_with(daemon, held, req("POST", "/v1.45/containers/held/start")).allow);
  CHECK(daemon.asked == std::vector<std::string>{"held"});

  for (const auto& request :
       {req("POST", "/v1.45/containers/held/start"), req("POST", "/v1.45/containers/held/restart"),
        req("POST", "/v1.45/containers/held/unpause"),
        req("POST", "/v1.45/containers/held/exec", R"({"Cmd":["true"]})")}) {
    INFO(request.uri);
    const auto d = decide_with(daemon, revoked, request);
    refused(d, "refused: container \"/held\" (");
    CHECK_THAT(d.msg, Catch::Contains("of repository \"web\" was made with what a new container would be refused now: "
                                      "repository \"web\" has no grant for rediacc.io/dri=renderD128; an operator can "
                                      "grant it with: rediacc-gpu grant web --device rediacc.io/dri=renderD128; or "
                                      "recreate the container without it."));
  }
  // A container made with nothing starts whatever the grants; the daemon's own defaults
  // (MaskedPaths, ReadonlyPaths, Runtime runc, IpcMode private, CgroupnsMode host) are no choice.
  auto plain = storing(inspect_fixture("plain-26.1.5.json"));
  CHECK(decide_with(plain, revoked, req("POST", "/v1.45/containers/plain/start")).allow);
}

TEST_CASE("stored containers: what an edited hostconfig.json or a fork carries is refused as create would refuse it") {
  const auto none = web_holding({});
  const auto with = [](auto edit) {
    json stored = inspect_fixture("plain-26.1.5.json");
    edit(stored);
    return stored;
  };
  const std::vector<std::pair<std::function<void(json&)>, std::string>> cases = {
      {[](json& c) {
         c["HostConfig"]["Devices"] = json::array({{{"PathOnHost", "/dev/dri/renderD128"},
                                                    {"PathInContainer", "/dev/dri/renderD128"},
                                                    {"CgroupPermissions", "rwm"}}});
       },
       "raw device \"/dev/dri/renderD128\""},
      {[](json& c) { c["HostConfig"]["Privileged"] = true; }, "--privileged"},
      {[](json& c) { c["HostConfig"]["DeviceCgroupRules"] = {"c 226:* rwm"}; }, "device cgroup rules"},
      {[](json& c) { c["HostConfig"]["CapAdd"] = {"SYS_ADMIN"}; }, "CAP_SYS_ADMIN"},
      {[](json& c) { c["HostConfig"]["Binds"] = {"/dev:/x"}; }, "a bind of \"/dev\""},
      {[](json& c) { c["HostConfig"]["PidMode"] = "host"; }, "--pid host"},
      {[](json& c) { c["HostConfig"]["SecurityOpt"] = {"seccomp=unconfined"}; }, "seccomp=unconfined"},
      {[](json& c) { c["HostConfig"]["Runtime"] = "nvidia"; }, "runtime \"nvidia\""},
      {[](json& c) {
         c["HostConfig"]["DeviceRequests"] =
             json::array({{{"Driver", ""}, {"Count", -1}, {"Capabilities", json::array({json::array({"gpu"})})}}});
       },
       "a device request with driver"},
      {[](json& c) { c["HostConfig"]["MaskedPaths"] = json::array(); }, "MaskedPaths no longer mask /proc/asound"},
      {[](json& c) { c["HostConfig"]["MaskedPaths"] = nullptr; }, "MaskedPaths no longer mask"},
      {[](json& c) { c["HostConfig"]["ReadonlyPaths"].erase(3); }, "ReadonlyPaths no longer hold /proc/sys"},
      {[](json& c) { c["Config"]["WorkingDir"] = "/proc/self/fd/8"; }, "a working directory under /proc"},
      {[](json& c) { c.erase("HostConfig"); }, "holds no HostConfig"},
  };
  for (const auto& [edit, words] : cases) {
    INFO(words);
    auto daemon = storing(with(edit));
    refused(decide_with(daemon, none, req("POST", "/v1.45/containers/plain/start")), words);
  }
  // Paths a newer daemon adds to its defaults (26.0: /sys/devices/virtual/powercap) are its own.
  auto more = storing(with([](json& c) { c["HostConfig"]["MaskedPaths"].push_back("/sys/devices/virtual/new"); }));
  CHECK(decide_with(more, none, req("POST", "/v1.45/containers/plain/start")).allow);
}

TEST_CASE("stored containers: the request's own refusal comes first, and routes that run nothing ask no daemon") {
  auto daemon = storing(inspect_fixture("plain-26.1.5.json"));
  const auto none = web_holding({});
  refused(decide_with(daemon, none, req("POST", "/containers/plain/exec", R"({"Cmd":["sh"],"Privileged":true})")),
          "a privileged exec");
  refused(decide_with(daemon, none, req("POST", "/containers/plain/start", R"({"Privileged":true})")),
          "a body on containers/start");
  CHECK(daemon.asked.empty());
  for (const auto& request : {req("POST", "/containers/plain/stop"), req("POST", "/containers/plain/kill"),
                              req("GET", "/containers/plain/json"), req("POST", "/containers/plain/rename?name=x"),
                              req("POST", "/containers/plain/update", R"({"Memory":1073741824})"),
                              req("POST", "/containers/plain/update", R"({"RestartPolicy":{"Name":"no"}})")}) {
    INFO(request.uri << " " << request.body);
    CHECK(decide_with(daemon, none, request).allow);
  }
  CHECK(daemon.asked.empty());
  // An update that sets a restart policy makes the daemon start the container by itself later.
  auto held = storing(inspect_fixture("cdi-device-26.1.5.json"));
  refused(decide_with(held, none, req("POST", "/containers/held/update", R"({"RestartPolicy":{"Name":"always"}})")),
          "has no grant for rediacc.io/dri=renderD128");
  CHECK(held.asked == std::vector<std::string>{"held"});
}

TEST_CASE("stored containers: a granted name whose spec now runs a hook its grant did not review is refused at start") {
  auto daemon = storing(inspect_fixture("cdi-device-26.1.5.json"));
  GrantSet grants = web_holding({"rediacc.io/dri=renderD128"});
  const std::string hook = "hook createContainer /opt/x/hook (not in the allow-list)";
  const DecideOptions options{.world = daemon};
  const auto start = req("POST", "/v1.45/containers/abc/start");
  CHECK(decide(grants, "web", start, options).allow);
  daemon.carried = {hook};
  const auto d = decide(grants, "web", start, options);
  refused(d,
          "the spec of rediacc.io/dri=renderD128 changed after it was granted to repository \"web\": it now "
          "carries " +
              hook);
  CHECK_THAT(d.msg, Catch::Contains("--allow-hooks"));
  grants.grants.front().reviewed = std::vector<std::string>{hook};  // reviewed: grant --allow-hooks again
  CHECK(decide(grants, "web", start, options).allow);
}
