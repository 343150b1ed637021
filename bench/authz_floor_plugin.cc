// The floor of an authorization plugin, for bench/plugin_overhead.sh: a Docker plugin that
// allows every call without reading it. What dockerd pays for talking to any plugin (encoding the
// request, base64, the round trips over the socket) is what this costs; what ours costs above it
// is the gate's own work. Plain blocking sockets, a thread per connection, keep-alive.
// Usage: rgpu-authz-floor-plugin SOCKET
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>

namespace {

bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t put = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (put <= 0) return false;
    data.remove_prefix(static_cast<size_t>(put));
  }
  return true;
}

// Content-Length of the head, header names compared without case; 0 when absent.
size_t content_length(std::string_view head) {
  for (size_t at = head.find("\r\n"); at != std::string_view::npos; at = head.find("\r\n", at + 2)) {
    const std::string_view line = head.substr(at + 2, head.find("\r\n", at + 2) - at - 2);
    if (line.size() > 15 && strncasecmp(line.data(), "content-length:", 15) == 0)
      return std::strtoul(std::string(line.substr(15)).c_str(), nullptr, 10);
  }
  return 0;
}

void serve(int fd) {
  std::string buffer;
  char chunk[65536];
  while (true) {
    size_t end;
    while ((end = buffer.find("\r\n\r\n")) == std::string::npos) {
      const ssize_t got = ::recv(fd, chunk, sizeof chunk, 0);
      if (got <= 0) return (void)::close(fd);
      buffer.append(chunk, static_cast<size_t>(got));
    }
    const std::string_view head(buffer.data(), end);
    const size_t total = end + 4 + content_length(head);
    while (buffer.size() < total) {
      const ssize_t got = ::recv(fd, chunk, sizeof chunk, 0);
      if (got <= 0) return (void)::close(fd);
      buffer.append(chunk, static_cast<size_t>(got));
    }
    const bool activate = head.find(" /Plugin.Activate ") != std::string_view::npos;
    const std::string body = activate ? R"({"Implements":["authz"]})" : R"({"Allow":true})";
    const std::string reply =
        "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.plugins.v1.2+json\r\n"
        "Content-Length: " +
        std::to_string(body.size()) + "\r\n\r\n" + body;
    buffer.erase(0, total);
    if (!send_all(fd, reply)) return (void)::close(fd);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SOCKET\n", argv[0]);
    return 2;
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (std::strlen(argv[1]) >= sizeof address.sun_path) {
    std::fprintf(stderr, "%s: the socket path is too long\n", argv[1]);
    return 2;
  }
  std::strcpy(address.sun_path, argv[1]);
  ::unlink(argv[1]);
  const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener, 64) != 0) {
    std::perror(argv[1]);
    return 1;
  }
  while (true) {
    const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) std::thread(serve, fd).detach();
  }
}
