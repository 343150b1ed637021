// The plugin's lookup of a stored container on the repository's own daemon: a daemon it cannot
// ask refuses the route, saying why; and dockerd's own call back to the plugin while a start waits
// on the lookup is served, not deadlocked (tests/admission/stored_container_test.cc has the decision).

#include <utility>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "admission/decide.h"
#include "gate/daemon_containers.h"
#include "plugin/authz_server.h"
#include "tests/support/fake_world.h"
#include "tests/support/fixture_root.h"
#include "tests/support/gate_requests.h"

using namespace rgpu;
using namespace rgpu::admission;
using namespace rgpu::plugin;
using namespace rgpu::gate;
using namespace rgpu::grants;
using namespace rgpu::test;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Local = asio::local::stream_protocol;
using nlohmann::json;

TEST_CASE("stored containers: a daemon that cannot be asked refuses the route, saying why and what to check") {
  const auto none = web_holding({});
  auto unset = daemon_containers("", "the plugin was started without --docker-host");
  REQUIRE(unset);
  FakeWorld world;
  world.daemon = &*unset;
  refused(decide(none, "web", req("POST", "/containers/c1/start"), DecideOptions{.world = world}),
          "could not read container \"c1\" from repository \"web\"'s daemon to check what it attaches: the plugin was "
          "started without --docker-host");
  FixtureRoot dir;
  auto gone = daemon_containers("unix://" + (dir.path() / "none.sock").string(), "");
  REQUIRE(gone);
  world.daemon = &*gone;
  refused(decide(none, "web", req("POST", "/containers/c1/start"), DecideOptions{.world = world}),
          "cannot reach the Docker daemon at");
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
  std::optional<DaemonContainers> containers;
  FakeWorld world;
  std::unique_ptr<AuthzServer> server;
  std::thread thread;

  explicit PluginUnderTest(std::chrono::milliseconds timeout) {
    containers = *daemon_containers("unix://" + daemon_socket, "", timeout);
    world.daemon = &*containers;
    world.cgroupns_default = "host";  // the fixtures' daemon ran on cgroup v1 (inspect_fixture)
    server = std::make_unique<AuthzServer>(
        [this]() -> Result<std::shared_ptr<const GrantSet>> {
          return std::shared_ptr<const GrantSet>(std::shared_ptr<const GrantSet>(), &grants);
        },
        PluginSettings{"web", DecideOptions{.world = world}}, nullptr);
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
