#include "docker/client.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <cstdlib>

namespace rgpu::docker {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

constexpr std::uint64_t kMaxReply = 64 * 1024 * 1024;  // an inspect or a list of many containers

std::string unreachable(const std::string& socket, const std::string& why) {
  return "cannot reach the Docker daemon at " + socket + " (" + why +
         "); check that it runs and that this process may use its socket";
}

}  // namespace

Result<std::string> docker_socket(const std::string& docker_host) {
  const std::string& host = docker_host;
  if (host.empty()) return fail("no Docker daemon was named; pass --docker-host unix:///path/to/docker.sock.");
  if (host.starts_with("unix://") && host.size() > 7) return host.substr(7);
  if (host.find("://") == std::string::npos && host.starts_with("/")) return host;
  return fail("the Docker daemon at \"" + host +
              "\" is not on a unix socket; rediacc-gpu talks to daemons over unix:// only: pass --docker-host "
              "unix:///path/to/docker.sock.");
}

Result<std::string> docker_socket(const RootFs& fs, const std::string& docker_host) {
  if (!docker_host.empty()) return docker_socket(docker_host);
  if (const char* env = std::getenv("DOCKER_HOST"); env && *env) return docker_socket(env);
  return fs.socket_path(kDefaultDockerSocket).string();
}

std::string machine_address(const RootFs& fs, const std::string& address) {
  std::string_view path = address;
  if (path.starts_with("unix://")) path.remove_prefix(7);
  if (!path.starts_with("/")) return address;
  return "unix://" + fs.socket_path(path).string();
}

// The exchange runs on an event loop of its own for at most `timeout`: asio's blocking reads poll
// without end after a socket timeout, so the deadline is the loop's, not the socket's.
Result<DockerReply> docker_call(const std::string& socket, std::string_view method, const std::string& target,
                                const std::string& body, std::chrono::milliseconds timeout) {
  try {
    asio::io_context io;
    asio::local::stream_protocol::socket sock(io);
    http::request<http::string_body> req{http::string_to_verb(beast::string_view(method.data(), method.size())), target,
                                         11};
    req.set(http::field::host, "docker");
    if (!body.empty()) {
      req.set(http::field::content_type, "application/json");
      req.body() = body;
    }
    req.prepare_payload();
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(kMaxReply);
    boost::system::error_code failed;
    bool done = false;
    sock.async_connect(asio::local::stream_protocol::endpoint(socket), [&](boost::system::error_code ec) {
      if (ec) return void(failed = ec);
      http::async_write(sock, req, [&](boost::system::error_code wec, std::size_t) {
        if (wec) return void(failed = wec);
        http::async_read(sock, buffer, parser, [&](boost::system::error_code rec, std::size_t) {
          failed = rec;
          done = !rec;
        });
      });
    });
    io.run_for(timeout);
    if (failed) return fail(unreachable(socket, failed.message()));
    if (!done) {
      return fail(unreachable(socket, "no answer within " + std::to_string(timeout.count()) + " ms to " +
                                          std::string(method) + " " + target));
    }
    return DockerReply{static_cast<int>(parser.get().result_int()), parser.get().body()};
  } catch (const std::exception& e) {
    return fail(unreachable(socket, e.what()));
  }
}

Result<DockerReply> docker_call_at(const std::string& docker_host, std::string_view method, const std::string& target,
                                   std::chrono::milliseconds timeout) {
  return docker_socket(docker_host).and_then([&](const std::string& socket) {
    return docker_call(socket, method, target, "", timeout);
  });
}

std::string escaped_segment(std::string_view text, std::string_view keep) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : text) {
    if (std::isalnum(c) || keep.find(static_cast<char>(c)) != std::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace rgpu::docker
