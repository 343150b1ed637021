#pragma once
// The kernel's word on the GPUs since boot: NVIDIA Xid events and amdgpu resets and RAS errors,
// per GPU and code, read from wherever this host keeps the kernel log: /dev/kmsg (the kernel's
// own buffer), else the journal (journalctl -k -b), else /var/log/kern.log.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/command_runner.h"
#include "core/root_fs.h"

namespace rgpu::facts {

struct KernelLog {
  std::string source;              ///< "/dev/kmsg", "the journal", "/var/log/kern.log"; empty: none readable
  std::vector<std::string> lines;  ///< messages, oldest first, without kmsg's record prefix
  /// How far back the lines reach, as a check may claim it: "since boot", or what is missing
  /// ("since 5321 s after boot: the kernel's buffer dropped what came before").
  std::string coverage = "since boot";
};

/// The kernel log of this boot from the first source that can be read under `fs` (the journal
/// through `runner`; none without one); kern.log's lines from its last boot ("Linux version") on.
KernelLog read_kernel_log(const RootFs& fs, CommandRunner* runner);

/// Xid events: (PCI address, Xid code) -> count. "NVRM: Xid (PCI:0000:3b:00): 79, pid=…"; a
/// "GPU 0000:3b:00.0 … has fallen off the bus" line without an Xid 79 for that GPU counts as one
/// (newer drivers print it alone).
std::map<std::pair<std::string, int>, unsigned> xid_counts(const std::vector<std::string>& lines);

/// amdgpu GPU resets and RAS (uncorrectable) errors: (PCI address, "reset" or "ras") -> count.
std::map<std::pair<std::string, std::string>, unsigned> amdgpu_events(const std::vector<std::string>& lines);

/// True for the Xid codes of an application's own fault (13, 31, 43, 45, 68, 109), which leave the
/// GPU usable: the list NVIDIA's device plugin and DRA driver ignore. Every other Xid (48 double-
/// bit ECC, 79 fallen off the bus, 94/95 ECC, 119/120 GSP, …) marks the GPU unhealthy there, and
/// wants a reset or a drain here.
bool xid_application_fault(int xid);

}  // namespace rgpu::facts
