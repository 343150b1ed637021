// The authorization plugin: the protocol's answers (pure), and the served socket (the binary).

#include <sys/stat.h>

#include <utility>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/process.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "admission/null_world.h"
#include "plugin/protocol.h"
#include "tests/support/authz_envelope.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu;
using namespace rgpu::admission;
using namespace rgpu::plugin;
using namespace rgpu::grants;
using namespace rgpu::test;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace bp = boost::process;
namespace fs = std::filesystem;
using Local = asio::local::stream_protocol;

namespace {

const std::string kPrivileged =
    R"({"RequestMethod":"POST","RequestUri":"/v1.41/containers/create","RequestHeaders":{"Content-Type":"application/json"},"RequestBody":"eyJIb3N0Q29uZmlnIjp7IlByaXZpbGVnZWQiOnRydWV9fQ=="})";
const std::string kPing = R"({"RequestMethod":"GET","RequestUri":"/_ping","RequestHeaders":{}})";

PluginReply call(std::string_view path, std::string_view body, std::vector<std::string>* logged = nullptr) {
  GrantSet none;
  const GrantsSource grants = [&none]() -> Result<std::shared_ptr<const GrantSet>> {
    return std::shared_ptr<const GrantSet>(std::shared_ptr<const GrantSet>(), &none);
  };
  return plugin_reply(path, body, grants, PluginSettings{"web", {.world = rgpu::admission::null_world()}},
                      [logged](const std::string& line) {
                        if (logged) logged->push_back(line);
                      });
}

// One HTTP exchange on an open connection.
http::response<http::string_body> http_call(Local::socket& socket, http::verb verb, const std::string& target,
                                            const std::string& body) {
  http::request<http::string_body> req{verb, target, 11};
  req.set(http::field::host, "plugin");
  req.set(http::field::content_type, "application/json");
  req.body() = body;
  req.prepare_payload();
  http::write(socket, req);
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(socket, buffer, res);
  return res;
}

// The plugin binary on a socket in a temp dir; stopped with SIGTERM at the end.
struct ServedPlugin {
  FixtureRoot root;
  FixtureRoot run_dir;
  std::string socket = (run_dir.path() / "plugins" / "p.sock").string();
  bp::child child;

  // `activated`: systemd-socket-activate listens and hands the socket over, as systemd would.
  explicit ServedPlugin(bool activated = false) {
    two_nvidia_datacenter(root, true);
    fs::create_directories(fs::path(socket).parent_path());
    std::vector<std::string> args;
    if (activated) args = {"/usr/bin/systemd-socket-activate", "-l", socket};
    for (const std::string& a : {tool_path(), std::string("authz-plugin"), std::string("--repo"), std::string("web"),
                                 std::string("--root"), root.str(), std::string("--socket"), socket}) {
      args.push_back(a);
    }
    child = bp::child(bp::exe = args.front(), bp::args(std::vector<std::string>(args.begin() + 1, args.end())),
                      bp::std_err > (run_dir.path() / "err").string());
    // The socket's file appears at bind, before listen (systemd-socket-activate's window, seen as
    // "connection refused" under load): ready is when a connection is taken.
    REQUIRE(accepts_connections());
  }
  bool accepts_connections() const {
    for (int i = 0; i < 200; ++i) {
      asio::io_context io;
      Local::socket probe(io);
      boost::system::error_code ec;
      if (fs::exists(socket) && !probe.connect(Local::endpoint(socket), ec)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return false;
  }
  ~ServedPlugin() { stop(); }
  void stop() {
    if (!child.running()) return;
    ::kill(child.id(), SIGTERM);
    for (int i = 0; i < 100 && child.running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::error_code ec;
    if (child.running(ec)) ::kill(child.id(), SIGKILL);  // not terminate(): it does not wait
    child.wait(ec);
  }
  std::string err() const {
    std::ifstream in(run_dir.path() / "err");
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
};

}  // namespace

TEST_CASE("authz plugin: each protocol call gets dockerd's expected answer") {
  CHECK(call("/Plugin.Activate", "").body == R"({"Implements":["authz"]})");
  CHECK(call("/AuthZPlugin.AuthZRes", "{}").body == R"({"Allow":true})");
  CHECK(call("/AuthZPlugin.AuthZReq", kPing).body == R"({"Allow":true})");
  std::vector<std::string> logged;
  const auto refused = call("/AuthZPlugin.AuthZReq", kPrivileged, &logged);
  CHECK_THAT(refused.body, Catch::StartsWith(R"({"Allow":false,"Msg":"refused: --privileged)"));
  REQUIRE(logged.size() == 1);
  CHECK_THAT(logged[0], Catch::StartsWith(
                            R"(refused repo=web route="POST /v1.41/containers/create" reason="refused: --privileged)"));
  CHECK(call("/Plugin.Deactivate", "").status == 404);
}

TEST_CASE("authz plugin: a malformed plugin request is refused with Err, never a crash") {
  for (const std::string body : {"", "not json", "[]", R"({"RequestMethod":"POST"})",
                                 R"({"RequestMethod":"POST","RequestUri":"/containers/create","RequestBody":"!!"})"}) {
    INFO(body);
    const auto reply = call("/AuthZPlugin.AuthZReq", body);
    CHECK(reply.status == 200);
    CHECK_THAT(reply.body, Catch::StartsWith(R"({"Allow":false,"Err":")"));
  }
}

TEST_CASE("authz plugin: a journal line escapes what the request could inject") {
  AuthzRequest r{"POST", "/x\"\n", {}, ""};
  CHECK(refusal_line("web", r, "a \\ b") == R"(refused repo=web route="POST /x\"\x0a" reason="a \\ b")");
}

TEST_CASE("authz plugin: serves many connections at once, several calls each, and removes its socket on SIGTERM") {
  ServedPlugin plugin;
  struct stat st {};
  REQUIRE(::stat(plugin.socket.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  asio::io_context io;
  std::vector<Local::socket> sockets;
  for (int i = 0; i < 50; ++i) {
    sockets.emplace_back(io);
    sockets.back().connect(Local::endpoint(plugin.socket));
  }
  for (int round = 0; round < 3; ++round) {
    for (auto& s : sockets) {
      CHECK(http_call(s, http::verb::post, "/AuthZPlugin.AuthZReq", kPing).body() == R"({"Allow":true})");
    }
  }
  const auto refused = http_call(sockets.front(), http::verb::post, "/AuthZPlugin.AuthZReq", kPrivileged);
  CHECK(refused[http::field::content_type] == "application/vnd.docker.plugins.v1.2+json");
  CHECK_THAT(refused.body(), Catch::Contains("--privileged"));
  CHECK(http_call(sockets.back(), http::verb::get, "/Plugin.Activate", "").result_int() == 405);
  plugin.stop();
  CHECK(plugin.child.exit_code() == 0);
  CHECK_FALSE(fs::exists(plugin.socket));
  CHECK_THAT(plugin.err(), Catch::Contains("serving repository web on " + plugin.socket));
  CHECK_THAT(plugin.err(), Catch::Contains("refused repo=web route=\"POST /v1.41/containers/create\""));
}

TEST_CASE("authz plugin: a live socket is never taken over, a stale one is replaced, a file is left alone") {
  ServedPlugin first;
  auto second = run_tool({"authz-plugin", "--repo", "web", "--root", first.root.str(), "--socket", first.socket});
  CHECK(second.exit_code == 1);
  CHECK_THAT(second.err, Catch::Contains("another process already serves " + first.socket));

  FixtureRoot dir;
  const std::string file = (dir.path() / "not-a-socket").string();
  std::ofstream(file) << "keep me";
  auto on_file = run_tool({"authz-plugin", "--repo", "web", "--root", first.root.str(), "--socket", file});
  CHECK(on_file.exit_code == 1);
  CHECK_THAT(on_file.err, Catch::Contains(file + " exists and is not a socket"));
  std::ifstream kept(file);
  CHECK(std::string((std::istreambuf_iterator<char>(kept)), std::istreambuf_iterator<char>()) == "keep me");

  // A socket left by a killed plugin: nobody answers on it, so the next plugin takes its place.
  // Boost's terminate() only polls for the exit, so the socket could still answer afterwards;
  // SIGKILL and a blocking wait leave a socket nobody answers on.
  ::kill(first.child.id(), SIGKILL);
  first.child.wait();
  REQUIRE(fs::exists(first.socket));
  bp::child again(tool_path(), "authz-plugin", "--repo", "web", "--root", first.root.str(), "--socket", first.socket,
                  bp::std_err > bp::null);
  asio::io_context io;
  Local::socket s(io);
  beast::error_code ec;
  for (int i = 0; i < 100; ++i) {
    s = Local::socket(io);
    s.connect(Local::endpoint(first.socket), ec);
    if (!ec) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE_FALSE(ec);
  CHECK(http_call(s, http::verb::post, "/Plugin.Activate", "").body() == R"({"Implements":["authz"]})");
  ::kill(again.id(), SIGTERM);
  again.wait();
}

// The plugin binds under a temporary name and renames it into place: that name must fit too, or
// the longest path a repository's name allows could not be served.
TEST_CASE("authz plugin: a socket path of 107 bytes, the most a unix socket holds, is served, and 108 refused") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  FixtureRoot run_dir;
  const std::string dir = run_dir.str() + "/";
  REQUIRE(dir.size() < 80);
  const std::string longest = dir + std::string(107 - dir.size() - 5, 'p') + ".sock";
  REQUIRE(longest.size() == 107);
  bp::child plugin(tool_path(), "authz-plugin", "--repo", "web", "--root", root.str(), "--socket", longest,
                   bp::std_err > (run_dir.path() / "err").string());
  bool served = false;
  for (int i = 0; i < 200 && !served && plugin.running(); ++i) {
    asio::io_context io;
    Local::socket probe(io);
    boost::system::error_code ec;
    served = fs::exists(longest) && !probe.connect(Local::endpoint(longest), ec);
    if (!served) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  if (plugin.running()) ::kill(plugin.id(), SIGTERM);
  plugin.wait();
  INFO(run_dir.read("/err"));
  CHECK(served);

  const std::string past = dir + std::string(108 - dir.size() - 5, 'p') + ".sock";
  const auto refused = run_tool({"authz-plugin", "--repo", "web", "--root", root.str(), "--socket", past});
  CHECK(refused.exit_code == 1);
  CHECK_THAT(refused.err, Catch::Contains("the socket path " + past +
                                          " is 108 bytes, past the 107 a unix socket "
                                          "path may hold; choose a shorter one"));
}

// A socket path that exists but does not yet answer (bound, not listening) once let a second
// plugin take the path over, leaving the first serving a socket nobody could reach.
TEST_CASE("authz plugin: of several plugins started at once on one socket, exactly one serves it") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  FixtureRoot run_dir;
  const std::string socket = (run_dir.path() / "p.sock").string();
  for (int round = 0; round < 5; ++round) {
    std::vector<bp::child> plugins;
    for (int i = 0; i < 4; ++i) {
      plugins.emplace_back(tool_path(), "authz-plugin", "--repo", "web", "--root", root.str(), "--socket", socket,
                           bp::std_err > bp::null);
    }
    // The losers give up on their own; the winner serves until told to stop.
    for (int i = 0; i < 200; ++i) {
      int running = 0;
      for (auto& p : plugins) running += p.running() ? 1 : 0;
      if (running <= 1) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    std::vector<bp::child*> serving;
    for (auto& p : plugins) {
      if (p.running()) serving.push_back(&p);
    }
    REQUIRE(serving.size() == 1);
    asio::io_context io;
    Local::socket s(io);
    s.connect(Local::endpoint(socket));
    CHECK(http_call(s, http::verb::post, "/Plugin.Activate", "").body() == R"({"Implements":["authz"]})");
    ::kill(serving.front()->id(), SIGTERM);
    serving.front()->wait();
    for (auto& p : plugins) p.wait();
    CHECK_FALSE(fs::exists(socket));
  }
}

TEST_CASE("authz plugin: serves the socket systemd passes (socket activation)") {
  ServedPlugin plugin(true);
  asio::io_context io;
  Local::socket s(io);
  s.connect(Local::endpoint(plugin.socket));
  CHECK(http_call(s, http::verb::post, "/Plugin.Activate", "").body() == R"({"Implements":["authz"]})");
  CHECK_THAT(http_call(s, http::verb::post, "/AuthZPlugin.AuthZReq", kPrivileged).body(),
             Catch::Contains("--privileged"));
  plugin.stop();
  CHECK_THAT(plugin.err(), Catch::Contains("serving repository web on the socket systemd passed"));
}

TEST_CASE("authz plugin: bodies up to dockerd's 4 MiB plugin limit are judged, a larger one refused") {
  ServedPlugin plugin;
  asio::io_context io;
  Local::socket socket(io);
  socket.connect(Local::endpoint(plugin.socket));
  constexpr size_t kMiB = 1024 * 1024;
  for (const size_t size : {kMiB - 1, 2 * kMiB, 4 * kMiB, 4 * kMiB + 1}) {
    const std::string head = R"({"Image":"img","Env":["BIG=)", tail = R"("]})";
    const std::string body = head + std::string(size - head.size() - tail.size(), 'x') + tail;
    REQUIRE(body.size() == size);
    const std::string call = authz_post("/v1.53/containers/create", body);
    const auto res = http_call(socket, http::verb::post, "/AuthZPlugin.AuthZReq", call);
    INFO(size << ": " << res.body());
    CHECK(res.result_int() == 200);
    if (size <= 4 * kMiB) {
      CHECK(res.body() == R"({"Allow":true})");
    } else {
      CHECK_THAT(res.body(), Catch::Contains("over 4 MiB"));
    }
  }
}

TEST_CASE("authz plugin: unreadable grants: the tenant is told to ask an operator, the journal line names the file") {
  const GrantsSource broken = []() -> Result<std::shared_ptr<const GrantSet>> {
    return fail("/etc/rediacc/gpu/grants.json does not parse at line 3, column 7.");
  };
  const std::string body =
      R"({"Image":"i","HostConfig":{"DeviceRequests":[{"Driver":"cdi","DeviceIDs":["a.com/b=c"]}]}})";
  const std::string request = authz_post("/containers/create", body);
  std::vector<std::string> logged;
  const auto reply = plugin_reply("/AuthZPlugin.AuthZReq", request, broken,
                                  PluginSettings{"web", {.world = rgpu::admission::null_world()}},
                                  [&logged](const std::string& line) { logged.push_back(line); });
  CHECK_THAT(reply.body, Catch::Contains("grants cannot be read") && !Catch::Contains("/etc/rediacc"));
  REQUIRE(logged.size() == 1);
  CHECK_THAT(logged[0],
             Catch::EndsWith(R"(detail="/etc/rediacc/gpu/grants.json does not parse at line 3, column 7.")"));
}

TEST_CASE("authz plugin: a decision that throws refuses that request, and the plugin answers the next one") {
  const GrantsSource throwing = []() -> Result<std::shared_ptr<const GrantSet>> {
    throw std::runtime_error("the grants source broke");
  };
  const std::string body =
      R"({"Image":"i","HostConfig":{"DeviceRequests":[{"Driver":"cdi","DeviceIDs":["a.com/b=c"]}]}})";
  const std::string request = authz_post("/containers/create", body);
  std::vector<std::string> logged;
  const auto log = [&logged](const std::string& line) { logged.push_back(line); };
  const auto reply = plugin_reply("/AuthZPlugin.AuthZReq", request, throwing,
                                  PluginSettings{"web", {.world = rgpu::admission::null_world()}}, log);
  CHECK(reply.status == 200);
  CHECK_THAT(reply.body, Catch::Contains(R"("Allow":false)") && Catch::Contains("the gate failed on this request") &&
                             !Catch::Contains("broke"));
  REQUIRE(logged.size() == 1);
  CHECK_THAT(logged[0], Catch::EndsWith(R"(detail="the grants source broke")"));
  // The same through the server's own path, and a request needing no grants is still decided.
  const auto again = authz_reply(parse_authz_request(request), throwing,
                                 PluginSettings{"web", {.world = rgpu::admission::null_world()}}, log);
  CHECK_THAT(again.body, Catch::Contains(R"("Allow":false)"));
  const std::string plain = R"({"RequestMethod":"GET","RequestUri":"/containers/json","RequestHeaders":{}})";
  CHECK(plugin_reply("/AuthZPlugin.AuthZReq", plain, throwing,
                     PluginSettings{"web", {.world = rgpu::admission::null_world()}}, log)
            .body == R"({"Allow":true})");
}
