// The filter a repository's dockerd runs under: no packet or raw socket for anything it starts.
// Tried in a child process, the filter being irreversible; as root, only the filter can refuse.

#include "core/raw_sockets.h"

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <netinet/in.h>
#include <catch2/catch.hpp>
#include <cerrno>

namespace {

// In a child, under the filter: bit i of the exit status set when attempt i failed with EPERM.
int refused_bits() {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    if (!rgpu::refuse_raw_sockets()) ::_exit(255);
    const int attempts[][3] = {{AF_PACKET, SOCK_RAW, 0},
                               {AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0},
                               {AF_INET, SOCK_RAW | SOCK_NONBLOCK, IPPROTO_ICMP},
                               {AF_INET6, SOCK_RAW, IPPROTO_TCP},
                               {AF_INET, SOCK_PACKET, 0},
                               {AF_INET, SOCK_STREAM, 0},
                               {AF_INET6, SOCK_DGRAM, 0},
                               {AF_UNIX, SOCK_STREAM, 0}};
    int bits = 0;
    for (int i = 0; i < 8; ++i) {
      const int fd = ::socket(attempts[i][0], attempts[i][1], attempts[i][2]);
      if (fd < 0 && errno == EPERM) bits |= 1 << i;
      if (fd >= 0) ::close(fd);
    }
    ::_exit(bits);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

}  // namespace

TEST_CASE("raw sockets: under the filter packet and raw sockets are refused, every other socket opens") {
  REQUIRE(::geteuid() == 0);  // the tests run as root, where only the filter refuses these
  const int bits = refused_bits();
  REQUIRE(bits != 255);       // the filter was installed
  CHECK(bits == 0b00011111);  // packet, packet datagram, raw IPv4, raw IPv6, SOCK_PACKET; not TCP, UDP or unix
}
