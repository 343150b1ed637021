#include "tests/support/raw_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>

namespace rgpu::test {

std::string raw_http(const std::string& socket, const std::string& request, std::chrono::milliseconds timeout) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  REQUIRE(socket.size() < sizeof address.sun_path);
  std::memcpy(address.sun_path, socket.c_str(), socket.size() + 1);
  INFO("connect " << socket << ": " << std::strerror(errno));
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  for (size_t sent = 0; sent < request.size();) {
    const auto n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the daemon may answer and close before it read everything
    sent += static_cast<size_t>(n);
  }
  std::string response;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[65536];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    const auto n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) break;
    response.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return response;
}

int http_status(const std::string& response) {
  if (!response.starts_with("HTTP/1.") || response.size() < 12) return 0;
  return std::atoi(response.c_str() + 9);
}

std::string json_post(const std::string& path, const std::string& body) {
  return "POST " + path + " HTTP/1.1\r\nHost: docker\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

LoopbackListener::LoopbackListener(std::string body) : body_(std::move(body)) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd_ >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  socklen_t size = sizeof address;
  REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size) == 0);
  port_ = ntohs(address.sin_port);
  REQUIRE(::listen(fd_, 16) == 0);
  thread_ = std::thread([this] {
    while (!stop_) {
      pollfd p{.fd = fd_, .events = POLLIN, .revents = 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      const int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      ++connections_;
      char request[4096];
      pollfd c{.fd = client, .events = POLLIN, .revents = 0};
      if (::poll(&c, 1, 1000) > 0) (void)::read(client, request, sizeof request);
      const std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body_.size()) +
                                 "\r\nConnection: close\r\n\r\n" + body_;
      (void)::send(client, answer.data(), answer.size(), MSG_NOSIGNAL);
      ::close(client);
    }
  });
}

LoopbackListener::~LoopbackListener() {
  stop_ = true;
  thread_.join();
  ::close(fd_);
}

std::string LoopbackListener::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

}  // namespace rgpu::test
