#include "doctor/docker_api.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace rgpu::doctor {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

// An image reference keeps its letters; anything else an HTTP target cannot carry is escaped.
std::string escaped(const std::string& image) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : image) {
    if (std::isalnum(c) || std::string_view("._-/:@").find(static_cast<char>(c)) != std::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
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
              "\" is not on a unix socket; rediacc-gpu reads images over unix:// only: pass --docker-host "
              "unix:///path/to/docker.sock.");
}

Result<std::vector<std::string>> image_env(const std::string& socket, const std::string& image) {
  try {
    asio::io_context io;
    asio::local::stream_protocol::socket sock(io);
    boost::system::error_code ec;
    sock.connect(asio::local::stream_protocol::endpoint(socket), ec);
    if (ec) {
      return fail("cannot reach the Docker daemon at " + socket + " (" + ec.message() +
                  "); check that it runs and that you may use its socket.");
    }
    http::request<http::empty_body> req{http::verb::get, "/images/" + escaped(image) + "/json", 11};
    req.set(http::field::host, "docker");
    http::write(sock, req);
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(16 * 1024 * 1024);
    http::read(sock, buffer, parser);
    const auto& res = parser.get();
    if (res.result() == http::status::not_found) {
      return fail("the Docker daemon at " + socket + " has no image \"" + image + "\"; pull it there first.");
    }
    if (res.result() != http::status::ok) {
      return fail("the Docker daemon at " + socket + " answered " + std::to_string(res.result_int()) + " for image \"" +
                  image + "\": " + res.body());
    }
    const auto doc = nlohmann::json::parse(res.body());
    std::vector<std::string> env;
    if (auto config = doc.find("Config"); config != doc.end() && config->is_object()) {
      if (auto e = config->find("Env"); e != config->end() && e->is_array()) {
        for (const auto& item : *e) {
          if (item.is_string()) env.push_back(item.get<std::string>());
        }
      }
    }
    return env;
  } catch (const std::exception& e) {
    return fail("reading image \"" + image + "\" from the Docker daemon at " + socket + " failed (" + e.what() + ").");
  }
}

}  // namespace rgpu::doctor
