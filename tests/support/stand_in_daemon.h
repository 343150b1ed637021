#pragma once
// A dockerd stand-in for doctor's tests: answers fixed JSON for the GET routes it is given on a
// unix socket under a fixture machine's /proc/PID/root/run, and can show itself in the fixture's
// /proc as a dockerd started with --host=unix:///run/d.sock.

// Boost 1.74's asio/awaitable.hpp uses std::exchange without including <utility>.
#include <utility>

#include <boost/asio.hpp>
#include <chrono>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/fixture_root.h"

namespace rgpu::test {

/// Shows process `pid` in the fixture's /proc as started `ago` before every read of it (its
/// /proc/PID/stat against /proc/uptime): 0 is a daemon that started after every file written so far.
void process_start(const FixtureRoot& root, const std::string& pid, std::chrono::seconds ago);

/// A fixed reply to every request of `method` whose target starts with `target` (a canary's
/// POST /containers/create?name=…, its logs' raw frames).
struct StandInAnswer {
  std::string method, target;
  unsigned status = 200;
  std::string body;
};

class StandInDaemon {
 public:
  /// Answers GET TARGET (the path and query as sent) with `routes`' JSON, others with 404.
  /// `in_proc` false: a daemon doctor finds only through --docker-host or a plugin's environment
  /// file, at socket(). `uid`: the user it runs as (not 0: rootless).
  StandInDaemon(const FixtureRoot& root, const std::string& pid, std::map<std::string, nlohmann::json> routes,
                unsigned uid = 0, bool in_proc = true);
  /// Also answers `answers`, the first that matches, before the GET routes.
  StandInDaemon(const FixtureRoot& root, const std::string& pid, std::vector<StandInAnswer> answers,
                bool in_proc = false);
  ~StandInDaemon();
  StandInDaemon(const StandInDaemon&) = delete;
  StandInDaemon& operator=(const StandInDaemon&) = delete;
  /// The socket's host path.
  const std::string& socket() const { return socket_; }
  /// Every request so far: "METHOD TARGET" and its body after a newline.
  std::vector<std::string> requests() const;

 private:
  void serve();
  std::map<std::string, nlohmann::json> routes_;
  std::vector<StandInAnswer> answers_;
  mutable std::mutex mutex_;
  std::vector<std::string> requests_;
  std::string socket_;
  boost::asio::io_context io_;
  std::optional<boost::asio::local::stream_protocol::acceptor> acceptor_;
  std::thread thread_;
};

}  // namespace rgpu::test
