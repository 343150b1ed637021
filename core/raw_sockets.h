#pragma once
// A seccomp filter, installed in this process and inherited by everything it runs, under which no
// socket that reads a network's traffic can be made: AF_PACKET, AF_XDP, and SOCK_RAW or SOCK_PACKET
// sockets of IPv4 and IPv6 (what CAP_NET_RAW grants). A repository daemon started under it gives
// it to every container it runs, on top of the container's own profile: on a host network shared
// by every repository, a packet socket on lo reads every repository's loopback traffic, and dockerd
// has no flag for its containers' default capabilities (moby#39149), while its --seccomp-profile
// replaces Docker's own profile, which changes with every Docker release.

#include "core/result.h"

namespace rgpu {

/// Installs the filter on the calling process (a socket() of those kinds then fails with EPERM,
/// for every architecture the kernel runs here: native, and i386 or arm32 compat, where the
/// socketcall() multiplexer hides its arguments and is refused for creating sockets). Irreversible:
/// call it just before exec. An error when the kernel refuses it.
Result<void> refuse_raw_sockets();

}  // namespace rgpu
