#include "tests/support/stand_in_daemon.h"

#include <sys/socket.h>
#include <unistd.h>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <filesystem>

namespace rgpu::test {

namespace http = boost::beast::http;
using Local = boost::asio::local::stream_protocol;

void process_start(const FixtureRoot& root, const std::string& pid, std::chrono::seconds ago) {
  constexpr long kUptime = 100000;  // seconds since boot
  root.write("/proc/uptime", std::to_string(kUptime) + ".00 0.00\n");
  const auto ticks = (kUptime - ago.count()) * ::sysconf(_SC_CLK_TCK);
  root.write("/proc/" + pid + "/stat", pid + " (dockerd) S 1 " + pid + " " + pid +
                                           " 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 9 0 " + std::to_string(ticks) +
                                           " 0 0 18446744073709551615\n");
}

StandInDaemon::StandInDaemon(const FixtureRoot& root, const std::string& pid,
                             std::map<std::string, nlohmann::json> routes, unsigned uid, bool in_proc)
    : routes_(std::move(routes)) {
  const std::string id = std::to_string(uid);
  if (in_proc) {
    root.write("/proc/" + pid + "/cmdline", std::string("dockerd\0--host=unix:///run/d.sock\0", 34));
    process_start(root, pid, std::chrono::seconds(0));
    root.write("/proc/" + pid + "/status", "Name:\tdockerd\nUid:\t" + id + "\t" + id + "\t" + id + "\t" + id + "\n");
  }
  const auto dir = root.host("/proc/" + pid + "/root/run");
  std::filesystem::create_directories(dir);
  socket_ = (dir / "d.sock").string();
  acceptor_.emplace(io_, Local::endpoint(socket_));
  thread_ = std::thread([this] { serve(); });
}

StandInDaemon::StandInDaemon(const FixtureRoot& root, const std::string& pid, std::vector<StandInAnswer> answers,
                             bool in_proc)
    : StandInDaemon(root, pid, std::map<std::string, nlohmann::json>{}, 0, in_proc) {
  const std::lock_guard lock(mutex_);
  answers_ = std::move(answers);
}

std::vector<std::string> StandInDaemon::requests() const {
  const std::lock_guard lock(mutex_);
  return requests_;
}

StandInDaemon::~StandInDaemon() {
  io_.stop();
  ::shutdown(acceptor_->native_handle(), SHUT_RDWR);
  acceptor_->close();
  thread_.join();
}

void StandInDaemon::serve() {
  for (;;) {
    Local::socket socket(io_);
    boost::system::error_code ec;
    acceptor_->accept(socket, ec);
    if (ec) return;
    boost::beast::flat_buffer buffer;
    http::request<http::string_body> req;
    http::read(socket, buffer, req, ec);
    if (ec) continue;
    http::response<http::string_body> res{http::status::ok, req.version()};
    const std::string method(req.method_string()), target(req.target());
    std::optional<StandInAnswer> answer;
    {
      const std::lock_guard lock(mutex_);
      requests_.push_back(method + " " + target + "\n" + req.body());
      for (const auto& a : answers_) {
        if (a.method == method && target.starts_with(a.target)) {
          answer = a;
          break;
        }
      }
    }
    if (answer) {
      res.result(static_cast<http::status>(answer->status));
      res.body() = answer->body;
    } else {
      const auto route = routes_.find(target);
      res.body() = (route == routes_.end() ? nlohmann::json::object() : route->second).dump();
      if (route == routes_.end()) res.result(http::status::not_found);
    }
    res.set(http::field::content_type, "application/json");
    res.keep_alive(false);
    res.prepare_payload();
    http::write(socket, res, ec);
  }
}

}  // namespace rgpu::test
