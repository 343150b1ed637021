#pragma once
// The /dev/char/MAJOR:MINOR link of every character node a CDI spec on the machine maps. runc's
// systemd cgroup driver hands systemd each device of a container as /dev/char/MAJOR:MINOR; runc
// 1.1.3 to 1.1.6 (Debian 12 ships 1.1.5) leave out a device whose link is missing
// (opencontainers/runc#3671), so when systemd applies the container's device rules again (a
// daemon-reload where its version does so, any change to the container's scope) the running
// container loses it: tests/e2e/systemd_reload_test.sh shows it under a real systemd. udev makes
// the links for the nodes it manages; the NVIDIA driver's nodes are made by nvidia-modprobe,
// without one (NVIDIA/nvidia-docker#1730: "Failed to initialize NVML: Unknown Error").

#include <string>
#include <vector>

#include "cdi/spec_index.h"
#include "core/change.h"
#include "core/file_sink.h"
#include "core/result.h"
#include "core/root_fs.h"

namespace rgpu::cdi {

struct CharLink {
  std::string node;      ///< the node's machine path, its links followed ("/dev/nvidia0")
  std::string link;      ///< "/dev/char/195:0"
  std::string target;    ///< what the link holds when we make it: "../nvidia0"
  bool present = false;  ///< the link is there and reaches a node of the same numbers
};

/// One per character node the specs map that is on the machine now, sorted by link; a node
/// missing from /dev is left out (doctor's device-node checks name it).
std::vector<CharLink> char_links(const RootFs& fs, const SpecIndex& index);

/// Makes each link of char_links that is not present; a link udev made is left as it is.
Result<Changes> write_char_links(const RootFs& fs, FileSink& sink, const SpecIndex& index);

}  // namespace rgpu::cdi
