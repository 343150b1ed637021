#pragma once
// Requests written byte by byte to a daemon's unix socket, for what no client sends (two
// Content-Type headers, a form body on a pull, a Mounts source a CLI would not write); and a
// loopback listener that counts who connects, to see whether dockerd fetched an address.

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

namespace rgpu::test {

/// Sends `request` (request line, headers, body, as written) to the unix socket at `socket` (a
/// host path) and returns all the server answered until it closed the connection, or `timeout`.
std::string raw_http(const std::string& socket, const std::string& request,
                     std::chrono::milliseconds timeout = std::chrono::seconds(30));

/// The status code of a raw response ("HTTP/1.1 403 Forbidden" is 403); 0 when there is none.
int http_status(const std::string& response);

/// A POST of `body` as JSON to `path`, with Connection: close: what the CLI would send.
std::string json_post(const std::string& path, const std::string& body);

/// Listens on 127.0.0.1 at a port of its own, answering every connection with HTTP 200 and `body`,
/// and counting the connections, until it goes.
class LoopbackListener {
 public:
  explicit LoopbackListener(std::string body);
  ~LoopbackListener();
  LoopbackListener(const LoopbackListener&) = delete;
  LoopbackListener& operator=(const LoopbackListener&) = delete;

  int port() const { return port_; }
  /// "http://127.0.0.1:PORT" + `path`.
  std::string url(const std::string& path) const;
  int connections() const { return connections_; }

 private:
  std::string body_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<int> connections_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace rgpu::test
