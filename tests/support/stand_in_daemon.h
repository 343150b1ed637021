#pragma once
// A dockerd stand-in for doctor's tests: answers fixed JSON for the GET routes it is given on a
// unix socket under a fixture machine's /proc/PID/root/run, and can show itself in the fixture's
// /proc as a dockerd started with --host=unix:///run/d.sock.

// Boost 1.74's asio/awaitable.hpp uses std::exchange without including <utility>.
#include <utility>

#include <boost/asio.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "tests/support/fixture_root.h"

namespace rgpu::test {

class StandInDaemon {
 public:
  /// Answers GET TARGET (the path and query as sent) with `routes`' JSON, others with 404.
  /// `in_proc` false: a daemon doctor finds only through --docker-host or a plugin's environment
  /// file, at socket(). `uid`: the user it runs as (not 0: rootless).
  StandInDaemon(const FixtureRoot& root, const std::string& pid, std::map<std::string, nlohmann::json> routes,
                unsigned uid = 0, bool in_proc = true);
  ~StandInDaemon();
  StandInDaemon(const StandInDaemon&) = delete;
  StandInDaemon& operator=(const StandInDaemon&) = delete;
  /// The socket's host path.
  const std::string& socket() const { return socket_; }

 private:
  void serve();
  std::map<std::string, nlohmann::json> routes_;
  std::string socket_;
  boost::asio::io_context io_;
  std::optional<boost::asio::local::stream_protocol::acceptor> acceptor_;
  std::thread thread_;
};

}  // namespace rgpu::test
