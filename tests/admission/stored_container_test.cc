// Routes that run a process in a container that already exists (start, restart, unpause, exec, an
// update that sets a restart policy) are judged on what the repository's daemon stored for that
// container, as a create would be judged now: the pure decision with a fake daemon, and the
// plugin's server with a daemon that calls the plugin back while the plugin waits for it.

#include <utility>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "admission/base64.h"
#include "admission/decide.h"
#include "admission/route.h"
#include "plugin/authz_server.h"
#include "plugin/daemon_containers.h"
#include "tests/support/build_paths.h"
#include "tests/support/fixture_root.h"
#include "tests/support/gate_requests.h"

using namespace rgpu;
using namespace rgpu::admission;
using namespace rgpu::plugin;
using namespace rgpu::grants;
using namespace rgpu::test;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Local = asio::local::stream_protocol;
using nlohmann::json;

namespace {

// What dockerd 26.1.5 answers GET /containers/{name}/json with, for a container created with
// nothing (`docker create img true`) and with --device rediacc.io/dri=renderD128.
json inspect_fixture(const std::string& name) {
  std::ifstream in(fixture_path("docker-inspect/" + name));
  REQUIRE(in);
  return json::parse(in);
}

// A daemon that stores `stored` under every name, and counts the names it was asked for.
struct FakeDaemon {
  explicit FakeDaemon(json s) : stored(std::move(s)) {}
  FakeDaemon(const FakeDaemon&) = delete;  // the source points at this one
  json stored;
  std::vector<std::string> asked;
  ContainerSource source = [this](const std::string& name) -> Result<std::string> {
    asked.push_back(name);
    return stored.dump();
  };
};

Decision decide_with(const FakeDaemon& daemon, const GrantSet& grants, const AuthzRequest& request) {
  DecideOptions options;
  options.containers = &daemon.source;
  return decide(grants, "web", request, options);
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
  FakeDaemon daemon(inspect_fixture("cdi-device-26.1.5.json"));
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
  FakeDaemon plain(inspect_fixture("plain-26.1.5.json"));
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
    const FakeDaemon daemon(with(edit));
    refused(decide_with(daemon, none, req("POST", "/v1.45/containers/plain/start")), words);
  }
  // Paths a newer daemon adds to its defaults (26.0: /sys/devices/virtual/powercap) are its own.
  const FakeDaemon more(with([](json& c) { c["HostConfig"]["MaskedPaths"].push_back("/sys/devices/virtual/new"); }));
  CHECK(decide_with(more, none, req("POST", "/v1.45/containers/plain/start")).allow);
}

TEST_CASE("stored containers: the request's own refusal comes first, and routes that run nothing ask no daemon") {
  FakeDaemon daemon(inspect_fixture("plain-26.1.5.json"));
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
  FakeDaemon held(inspect_fixture("cdi-device-26.1.5.json"));
  refused(decide_with(held, none, req("POST", "/containers/held/update", R"({"RestartPolicy":{"Name":"always"}})")),
          "has no grant for rediacc.io/dri=renderD128");
  CHECK(held.asked == std::vector<std::string>{"held"});
}

TEST_CASE("stored containers: a daemon that cannot be asked refuses the route, saying why and what to check") {
  const auto none = web_holding({});
  auto unset = daemon_containers("", "the plugin was started without --docker-host");
  REQUIRE(unset);
  DecideOptions options;
  options.containers = &*unset;
  refused(decide(none, "web", req("POST", "/containers/c1/start"), options),
          "could not read container \"c1\" from repository \"web\"'s daemon to check what it attaches: the plugin was "
          "started without --docker-host");
  FixtureRoot dir;
  auto gone = daemon_containers("unix://" + (dir.path() / "none.sock").string(), "");
  REQUIRE(gone);
  options.containers = &*gone;
  refused(decide(none, "web", req("POST", "/containers/c1/start"), options), "cannot reach the Docker daemon at");
  CHECK_FALSE(daemon_containers("tcp://10.0.0.1:2375", ""));
}

namespace {

// An AuthZReq of `method` `uri` with no body, sent to the plugin at `socket` as dockerd sends it;
// the plugin's answer.
json authz_call(const std::string& socket, const std::string& method, const std::string& uri) {
  asio::io_context io;
  Local::socket s(io);
  s.connect(Local::endpoint(socket));
  const json call = {{"RequestMethod", method}, {"RequestUri", uri}, {"RequestHeaders", json::object()}};
  http::request<http::string_body> req{http::verb::post, "/AuthZPlugin.AuthZReq", 11};
  req.set(http::field::host, "plugin");
  req.body() = call.dump();
  req.prepare_payload();
  http::write(s, req);
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(s, buffer, res);
  return json::parse(res.body());
}

// A daemon on a unix socket that answers each inspect as dockerd does: it first asks the
// plugin about that very GET (an AuthZReq of its own) and waits for the answer.
class CallingBackDaemon {
 public:
  CallingBackDaemon(std::string socket, std::string plugin_socket, json stored, bool answers)
      : socket_(std::move(socket)), plugin_(std::move(plugin_socket)), stored_(std::move(stored)), answers_(answers) {
    acceptor_.open(Local());
    acceptor_.bind(Local::endpoint(socket_));
    acceptor_.listen();
    thread_ = std::thread([this] { serve(); });
  }
  ~CallingBackDaemon() {
    boost::system::error_code ignored;
    ::shutdown(acceptor_.native_handle(), SHUT_RDWR);
    acceptor_.close(ignored);
    thread_.join();
  }
  std::string plugin_said;  ///< the plugin's answer to the daemon's own AuthZReq

 private:
  void serve() {
    boost::system::error_code ec;
    Local::socket client(io_);
    acceptor_.accept(client, ec);
    if (ec) return;
    beast::flat_buffer buffer;
    http::request<http::string_body> request;
    http::read(client, buffer, request, ec);
    if (ec) return;
    plugin_said = ask_plugin(std::string(request.target()));
    if (!answers_) {
      std::this_thread::sleep_for(std::chrono::seconds(3));
      return;
    }
    http::response<http::string_body> res{http::status::ok, 11};
    res.set(http::field::content_type, "application/json");
    res.body() = stored_.dump();
    res.prepare_payload();
    http::write(client, res, ec);
  }

  std::string ask_plugin(const std::string& target) { return authz_call(plugin_, "GET", target).dump(); }

  std::string socket_, plugin_;
  json stored_;
  bool answers_;
  asio::io_context io_;
  Local::acceptor acceptor_{io_};
  std::thread thread_;
};

struct PluginUnderTest {
  FixtureRoot dir;
  std::string plugin_socket = (dir.path() / "plugin.sock").string();
  std::string daemon_socket = (dir.path() / "docker.sock").string();
  GrantSet grants;
  ContainerSource containers;
  std::unique_ptr<AuthzServer> server;
  std::thread thread;

  explicit PluginUnderTest(std::chrono::milliseconds timeout) {
    containers = *daemon_containers("unix://" + daemon_socket, "", timeout);
    DecideOptions options;
    options.containers = &containers;
    server = std::make_unique<AuthzServer>(
        [this]() -> Result<std::shared_ptr<const GrantSet>> {
          return std::shared_ptr<const GrantSet>(std::shared_ptr<const GrantSet>(), &grants);
        },
        PluginSettings{"web", options}, nullptr);
    REQUIRE(server->listen(plugin_socket));
    thread = std::thread([this] { server->run(); });
  }
  ~PluginUnderTest() {
    server->stop();
    thread.join();
  }
  // The AuthZReq dockerd sends for `docker start NAME`, and the plugin's answer.
  json start(const std::string& name) {
    return authz_call(plugin_socket, "POST", "/v1.45/containers/" + name + "/start");
  }
};

}  // namespace

TEST_CASE("stored containers: the plugin serves the daemon's own call for the lookup while a start waits on it") {
  PluginUnderTest plugin(std::chrono::seconds(5));
  plugin.grants = web_holding({"rediacc.io/dri=renderD128"});
  {
    CallingBackDaemon daemon(plugin.daemon_socket, plugin.plugin_socket, inspect_fixture("cdi-device-26.1.5.json"),
                             true);
    const auto begun = std::chrono::steady_clock::now();
    const auto answer = plugin.start("held");
    INFO(answer.dump());
    CHECK(answer["Allow"] == true);
    CHECK(std::chrono::steady_clock::now() - begun < std::chrono::seconds(2));  // served, not timed out
    CHECK(json::parse(daemon.plugin_said)["Allow"] == true);
  }
  // Revoked: the next start is refused, through the same nested lookup.
  plugin.grants = web_holding({});
  std::filesystem::remove(plugin.daemon_socket);
  CallingBackDaemon daemon(plugin.daemon_socket, plugin.plugin_socket, inspect_fixture("cdi-device-26.1.5.json"), true);
  const auto answer = plugin.start("held");
  CHECK(answer["Allow"] == false);
  CHECK_THAT(answer["Msg"].get<std::string>(), Catch::Contains("has no grant for rediacc.io/dri=renderD128"));
}

TEST_CASE("stored containers: a daemon that never answers the lookup is refused within the timeout, not waited on") {
  PluginUnderTest plugin(std::chrono::milliseconds(400));
  CallingBackDaemon daemon(plugin.daemon_socket, plugin.plugin_socket, {}, false);
  const auto begun = std::chrono::steady_clock::now();
  const auto answer = plugin.start("held");
  INFO(answer.dump());
  CHECK(answer["Allow"] == false);
  CHECK_THAT(answer["Msg"].get<std::string>(), Catch::Contains("no answer within 400 ms"));
  CHECK(std::chrono::steady_clock::now() - begun < std::chrono::seconds(2));
}

TEST_CASE("stored containers: a granted name whose spec now runs a hook its grant did not review is refused at start") {
  FakeDaemon daemon(inspect_fixture("cdi-device-26.1.5.json"));
  GrantSet grants = web_holding({"rediacc.io/dri=renderD128"});
  const std::string hook = "hook createContainer /opt/x/hook (not in the allow-list)";
  std::vector<std::string> carried;
  const ReviewSource reviews = [&carried](const std::string&) { return carried; };
  DecideOptions options;
  options.containers = &daemon.source;
  options.reviews = &reviews;
  const auto start = req("POST", "/v1.45/containers/abc/start");
  CHECK(decide(grants, "web", start, options).allow);
  carried = {hook};
  const auto d = decide(grants, "web", start, options);
  refused(d,
          "the spec of rediacc.io/dri=renderD128 changed after it was granted to repository \"web\": it now "
          "carries " +
              hook);
  CHECK_THAT(d.msg, Catch::Contains("--allow-hooks"));
  grants.grants.front().reviewed = std::vector<std::string>{hook};  // reviewed: grant --allow-hooks again
  CHECK(decide(grants, "web", start, options).allow);
}
