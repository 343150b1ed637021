#include "plugin/authz_server.h"

#include "docker/repo_plugin.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

namespace rgpu::plugin {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Local = asio::local::stream_protocol;

// dockerd forwards bodies up to 1 MiB (4 MiB from 29.3.1), base64 inside a JSON envelope, and
// an AuthZRes carries the response body too: 16 MiB bounds a call with room to spare.
constexpr std::uint64_t kMaxPluginBody = 16 * 1024 * 1024;
constexpr std::size_t kFirstRead = 64 * 1024;

// Lookups in flight at once; each is bounded by the daemon client's timeout, and more wait.
constexpr std::size_t kWorkers = 4;

struct Shared {
  grants::GrantsSource grants;
  PluginSettings settings;
  RefusalLog log;
  asio::thread_pool* workers = nullptr;
};

std::string_view path_of(std::string_view target) { return target.substr(0, target.find('?')); }

// One connection: read a call, answer it, and again while the client keeps the connection alive.
class Session : public std::enable_shared_from_this<Session> {
 public:
  // A call carries a create body, base64 in JSON (a few KB): room for it from the start, so it
  // is read in one system call instead of a growing buffer's 512 bytes at a time.
  Session(Local::socket socket, const Shared& shared) : socket_(std::move(socket)), shared_(shared) {
    buffer_.reserve(kFirstRead);
  }

  void read() {
    parser_.emplace();
    parser_->body_limit(kMaxPluginBody);
    http::async_read(socket_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

 private:
  void on_read(beast::error_code ec) {
    if (ec == http::error::body_limit) {
      answer(11, {413, R"({"Allow":false,"Err":"the plugin call is larger than 16 MiB"})"}, false);
      return;
    }
    if (ec) return close();  // the client went away, or sent something that is not HTTP
    const auto& request = parser_->get();
    PluginReply reply{405, R"({"Allow":false,"Err":"plugin calls are POST"})"};
    if (request.method() == http::verb::post) {
      const auto target = request.target();
      const auto path = path_of(std::string_view(target.data(), target.size()));
      if (path == "/AuthZPlugin.AuthZReq") {
        auto call = admission::parse_authz_request(request.body());
        if (call && admission::asks_the_daemon(*call)) return answer_off_loop(std::move(call));
        reply = authz_reply(call, shared_.grants, shared_.settings, shared_.log);
      } else {
        reply = plugin_reply(path, request.body(), shared_.grants, shared_.settings, shared_.log);
      }
    }
    answer(request.version(), std::move(reply), request.keep_alive());
  }

  // The decision waits on the daemon, which calls this plugin for its own lookup meanwhile.
  void answer_off_loop(Result<admission::AuthzRequest> call) {
    asio::post(*shared_.workers, [self = shared_from_this(), call = std::move(call)] {
      PluginReply reply = authz_reply(call, self->shared_.grants, self->shared_.settings, self->shared_.log);
      asio::post(self->socket_.get_executor(), [self, reply = std::move(reply)]() mutable {
        const auto& req = self->parser_->get();
        self->answer(req.version(), std::move(reply), req.keep_alive());
      });
    });
  }

  void answer(unsigned version, PluginReply reply, bool keep_alive) {
    response_ = {};
    response_.version(version);
    response_.result(static_cast<http::status>(reply.status));
    response_.set(http::field::content_type, kPluginMediaType);
    response_.body() = std::move(reply.body);
    response_.keep_alive(keep_alive);
    response_.prepare_payload();
    http::async_write(socket_, response_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec || !self->response_.keep_alive()) return self->close();
      self->read();
    });
  }

  void close() {
    beast::error_code ignored;
    socket_.shutdown(Local::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  Local::socket socket_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> response_;
  const Shared& shared_;
};

// True when something accepts connections on the socket at `path`.
bool socket_is_live(const std::string& path) {
  asio::io_context io;
  Local::socket probe(io);
  beast::error_code ec;
  probe.connect(Local::endpoint(path), ec);
  return !ec;
}

}  // namespace

struct AuthzServer::Impl {
  Impl(grants::GrantsSource grants, PluginSettings settings, RefusalLog log)
      : shared{std::move(grants), std::move(settings), std::move(log), &workers} {}

  asio::io_context io{1};
  // Declared after io: joined before the event loop goes, so no worker posts to a destroyed loop.
  asio::thread_pool workers{kWorkers};
  Local::acceptor acceptor{io};
  asio::signal_set signals{io, SIGINT, SIGTERM};
  Shared shared;
  std::string made_path;  // removed on the way out; empty for an adopted socket
  ino_t made_inode = 0;   // so that a path someone else has since taken is left alone

  void accept() {
    acceptor.async_accept([this](beast::error_code ec, Local::socket socket) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
      if (!ec) std::make_shared<Session>(std::move(socket), shared)->read();
      accept();
    });
  }
};

AuthzServer::AuthzServer(grants::GrantsSource grants, PluginSettings settings, RefusalLog log)
    : impl_(std::make_unique<Impl>(std::move(grants), std::move(settings), std::move(log))) {}

AuthzServer::~AuthzServer() = default;

Result<void> AuthzServer::listen(const std::string& path) {
  if (path.size() > docker::kMaxSocketPath)
    return fail("the socket path " + path + " is " + std::to_string(path.size()) + " bytes, past the " +
                std::to_string(docker::kMaxSocketPath) + " a unix socket path may hold; choose a shorter one");
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::error_code fs_ec;
  std::filesystem::create_directories(dir, fs_ec);
  // Plugins starting together take turns on the directory: the check for a live server and the
  // replacement of a stale socket must be one step, or two plugins both decide the path is free.
  const int dir_fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return fail("cannot open " + dir.string() + ": " + std::strerror(errno) + "; create it first");
  ::flock(dir_fd, LOCK_EX);
  auto result = listen_locked(path);
  ::close(dir_fd);  // releases the lock
  return result;
}

Result<void> AuthzServer::listen_locked(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode))
      return fail(path + " exists and is not a socket; move it away or choose another --socket");
    if (socket_is_live(path))
      return fail("another process already serves " + path + "; stop it or choose another --socket");
  }
  // Bound and listening under a temporary name, then renamed into place: whoever finds the path
  // finds a socket that answers, never one that exists but refuses connections.
  // Short, beside it: any path that fits, up to kMaxSocketPath, can be served this way.
  const std::string temp = (std::filesystem::path(path).parent_path() / (".new" + std::to_string(::getpid()))).string();
  ::unlink(temp.c_str());
  beast::error_code ec;
  impl_->acceptor.open(Local(), ec);
  const mode_t old_mask = ::umask(0177);  // the socket is born 0600: only root's dockerd may call
  if (!ec) impl_->acceptor.bind(Local::endpoint(temp), ec);
  ::umask(old_mask);
  if (!ec) impl_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (!ec && ::rename(temp.c_str(), path.c_str()) != 0) ec.assign(errno, beast::system_category());
  if (ec) {
    ::unlink(temp.c_str());
    return fail("cannot listen on " + path + ": " + ec.message());
  }
  if (::lstat(path.c_str(), &st) == 0) impl_->made_inode = st.st_ino;
  impl_->made_path = path;
  return {};
}

Result<void> AuthzServer::adopt(int fd) {
  beast::error_code ec;
  impl_->acceptor.assign(Local(), fd, ec);
  if (ec) return fail("cannot serve the socket systemd passed (fd " + std::to_string(fd) + "): " + ec.message());
  return {};
}

void AuthzServer::run() {
  impl_->signals.async_wait([this](beast::error_code ec, int) {
    if (!ec) stop();
  });
  impl_->accept();
  impl_->io.run();
  // Lookups still running end within the daemon client's timeout; queued ones are dropped with
  // their connections (dockerd then refuses those requests).
  impl_->workers.stop();
  impl_->workers.join();
  struct stat st {};
  if (!impl_->made_path.empty() && ::lstat(impl_->made_path.c_str(), &st) == 0 && st.st_ino == impl_->made_inode)
    ::unlink(impl_->made_path.c_str());
}

void AuthzServer::stop() {
  asio::post(impl_->io, [impl = impl_.get()] {
    beast::error_code ignored;
    impl->acceptor.close(ignored);
    impl->signals.cancel(ignored);
    impl->io.stop();
  });
}

int socket_from_systemd() {
  const char* pid = std::getenv("LISTEN_PID");
  const char* fds = std::getenv("LISTEN_FDS");
  if (!pid || !fds || std::strtol(pid, nullptr, 10) != ::getpid() || std::strtol(fds, nullptr, 10) < 1) return -1;
  ::unsetenv("LISTEN_PID");  // not for children
  ::unsetenv("LISTEN_FDS");
  ::unsetenv("LISTEN_FDNAMES");
  return 3;  // SD_LISTEN_FDS_START
}

}  // namespace rgpu::plugin
