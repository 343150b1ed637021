#include "core/docker_client.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <cstdlib>

namespace rgpu {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

constexpr std::uint64_t kMaxReply = 64 * 1024 * 1024;  // an inspect or a list of many containers

// A blocking socket that gives up after `timeout` on every read and write: the exchange is a
// handful of system calls, so this bounds it too, without an event loop of its own.
void set_timeouts(asio::local::stream_protocol::socket& sock, std::chrono::milliseconds timeout) {
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(timeout).count();
  timeval tv{static_cast<time_t>(us / 1000000), static_cast<suseconds_t>(us % 1000000)};
  ::setsockopt(sock.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(sock.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

std::string unreachable(const std::string& socket, const std::string& why) {
  return "cannot reach the Docker daemon at " + socket + " (" + why +
         "); check that it runs and that this process may use its socket";
}

}  // namespace

Result<std::string> docker_socket(const std::string& docker_host) {
  std::string host = docker_host;
  if (host.empty()) {
    const char* env = std::getenv("DOCKER_HOST");
    host = env && *env ? env : "unix:///var/run/docker.sock";
  }
  if (host.starts_with("unix://")) return host.substr(7);
  if (host.find("://") == std::string::npos && host.starts_with("/")) return host;
  return fail("the Docker daemon at \"" + host +
              "\" is not on a unix socket; rediacc-gpu talks to daemons over unix:// only: pass --docker-host "
              "unix:///path/to/docker.sock.");
}

Result<DockerReply> docker_call(const std::string& socket, std::string_view method, const std::string& target,
                                const std::string& body, std::chrono::milliseconds timeout) {
  try {
    asio::io_context io;
    asio::local::stream_protocol::socket sock(io);
    boost::system::error_code ec;
    sock.connect(asio::local::stream_protocol::endpoint(socket), ec);
    if (ec) return fail(unreachable(socket, ec.message()));
    set_timeouts(sock, timeout);
    http::request<http::string_body> req{http::string_to_verb(beast::string_view(method.data(), method.size())), target,
                                         11};
    req.set(http::field::host, "docker");
    if (!body.empty()) {
      req.set(http::field::content_type, "application/json");
      req.body() = body;
    }
    req.prepare_payload();
    http::write(sock, req, ec);
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(kMaxReply);
    if (!ec) http::read(sock, buffer, parser, ec);
    if (ec) {
      const bool slow = ec == asio::error::would_block || ec == asio::error::timed_out || ec == asio::error::try_again;
      return fail(unreachable(socket, slow ? "no answer within " + std::to_string(timeout.count()) + " ms to " +
                                                 std::string(method) + " " + target
                                           : ec.message()));
    }
    return DockerReply{static_cast<int>(parser.get().result_int()), parser.get().body()};
  } catch (const std::exception& e) {
    return fail(unreachable(socket, e.what()));
  }
}

std::string escaped_segment(std::string_view segment) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : segment) {
    if (std::isalnum(c) || c == '.' || c == '_' || c == '-') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace rgpu
