#pragma once
// Named fake machines, written from facts seen on real ones (lspci, sysfs and /dev listings of
// GPU hosts, NVML's answers on them): BMC VGAs that are not GPUs, card/render numbers that start
// above zero and disagree with PCI order, PCI domains other than 0000, NVIDIA minors against PCI
// order, MI300X as class 0x1200 with partition render nodes owned by non-PCI devices.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/fixture_root.h"

namespace rgpu::test {

inline constexpr unsigned long long kGiB = 1024ULL * 1024 * 1024;
/// /etc/os-release of Debian 12.
inline const std::string kDebian12OsRelease = "ID=debian\nVERSION_ID=\"12\"\n";
/// The render node the e2e fixture machines grant.
inline const std::string kRenderD128Name = "rediacc.io/dri=renderD128";

/// 2× H100 SXM behind an ASPEED BMC and an NVSwitch; the second GPU in PCI domain 0001;
/// /dev/nvidia minors run against PCI order. With NVML: a fake libnvidia-ml.so.1 and an
/// nvidia.yaml CDI spec; without: /proc/driver/nvidia only.
void two_nvidia_datacenter(const FixtureRoot& root, bool with_nvml);
/// two_nvidia_datacenter's GPUs: 0000:41:00.0 on /dev/nvidia1 (card1, renderD128), and
/// 0001:c1:00.0 on /dev/nvidia0 (card2, renderD129).
inline constexpr const char* kDatacenterGpuA = "GPU-11111111-2222-3333-4444-555555555555";
inline constexpr const char* kDatacenterGpuB = "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";
/// 2× MI210 (class 0x0380) with KFD topology, card numbers from 1 (ASPEED is card0).
void two_amd_instinct(const FixtureRoot& root);
/// 2× MI300X (class 0x1200) in CPX mode: 8 KFD nodes and 8 render nodes per card, seven of
/// them owned by amdgpu_xcp platform devices.
void amd_mi300x_partitioned(const FixtureRoot& root);
/// Intel Arc A770 on i915.
void intel_discrete(const FixtureRoot& root);
/// Intel iGPU + NVIDIA RTX 4090 (open module, no NVML) + AMD Radeon, and an Intel NPU (0x1200)
/// that is not a GPU.
void mixed_workstation(const FixtureRoot& root);
/// WSL2: /dev/dxg, a WSL kernel, NVML in /usr/lib/wsl/lib, no PCI GPU.
void wsl2_nvidia(const FixtureRoot& root);
/// A server with a BMC VGA, NICs and NVMe: no GPU.
void no_gpu(const FixtureRoot& root);
/// The largest: 8× H100 with NVML, 4 NVSwitches and 200 other PCI devices over two domains.
void dgx_h100(const FixtureRoot& root);

/// 8× H100 among 200 other PCI devices, read from /proc/driver/nvidia only (no NVML).
void dgx_h100_procfs(const FixtureRoot& root);
/// 8 AMD Instinct cards among 200 other PCI devices, with their KFD topology; each card split
/// into `partitions` compute partitions (1: none), partitions past the first owned by amdgpu_xcp
/// platform devices with a card and a render node each, as on an MI300X in DPX/QPX/CPX mode, with
/// the mode in current_compute_partition. `last_xcp_without_nodes`: the last card's last partition
/// got no DRM minor (63 partitions in CPX, as on the real host with a BMC VGA).
void amd_instinct_x8(const FixtureRoot& root, bool mi300x, unsigned partitions, bool last_xcp_without_nodes = false);
/// An Intel iGPU, 4 NVIDIA RTX 4090 and 3 AMD Radeon among 200 other PCI devices.
void mixed_x8(const FixtureRoot& root);

/// 2× H100 through NVML: the one on /dev/nvidia1 (NVML index 0) in MIG mode with four MIG devices
/// at indices 0, 1, 3, 4 (GI 2, 3, 9, 10), mig-minors and capability nodes; the other MIG-capable
/// but whole. The NVIDIA spec as toolkit 1.18+ writes it, or as 1.17 did (the MIG GPU named whole
/// too); a management spec with every capability node.
void nvidia_mig(const FixtureRoot& root, bool toolkit_before_118);

/// The render numbers a workstation's cards got at this boot; an absent Intel GPU is not there.
struct CardNumbers {
  std::optional<unsigned> intel;
  unsigned nvidia = 129;
  unsigned amd = 130;
};
inline constexpr const char* kWorkstation4090Uuid = "GPU-40904090-4090-4090-4090-409040904090";
/// Intel iGPU 00:02.0, RTX 4090 01:00.0 (/dev/nvidia0), RX 7900 03:00.0 with the render and card
/// numbers `n` (card numbers follow them, as when the kernel probes the cards in another order).
/// /sys, /dev and /proc are made anew, so calling it again on a root renumbers its cards and
/// keeps /etc (specs, grants, views).
void workstation_numbered(const FixtureRoot& root, CardNumbers n);

/// A machine as Rediacc lays it out, without GPUs: two repositories (network ids 2816, mounted at
/// kRediaccWebMount, and 2880 at kRediaccOtherMount), each with its renet daemon running from a
/// configuration under its mount, renet's secrets of each, a containerd of its own somewhere no
/// default list names, and the TUN device.
inline constexpr const char* kRediaccWebMount = "/mnt/rediacc/mounts/aaaa-web";
inline constexpr const char* kRediaccOtherMount = "/mnt/rediacc/mounts/bbbb-other";
void rediacc_two_repositories(const FixtureRoot& root);

/// Dockerd `pid` (already written under /proc) makes its containers as setup wires it: its
/// containerd (pid `pid`1, its child) has the verifier's directory first on its PATH, the link to
/// the tool there and the machine's runc after it. With `wired` false, the machine's runc comes first.
void wire_runtime_verifier(const FixtureRoot& root, const std::string& pid, bool wired = true);

/// A vendor's spec (kind vendor.com/xpu): "hooked" runs a program of its own (/opt/vendor/bin/hook
/// with `hooked_args`) on /dev/null, "toolkit" the toolkit's hook on /dev/zero, "nic" moves eth1
/// in; the spec's own edits mount a library directory.
std::string vendor_xpu_spec(const std::string& hooked_args);

struct NamedMachine {
  std::string name;
  std::function<void(const FixtureRoot&)> build;
};

/// Every named machine, for the bench's fixture maker.
const std::vector<NamedMachine>& named_machines();

}  // namespace rgpu::test
