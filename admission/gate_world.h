#pragma once
// Everything the decision asks of the machine and of the repository's daemon, as one interface
// (as ninja's DiskInterface is its builds' view of the disk): the decision stays pure, and one
// refusal is traced through one class. gate::LiveWorld answers from the machine as it is now,
// NullWorld knows nothing (benchmarks, the libFuzzer target), tests/support/fake_world.h is
// whatever a test sets.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admission/host_paths.h"
#include "admission/refusal.h"
#include "core/host_policy.h"
#include "core/result.h"
#include "probe/hardware_identity.h"

namespace rgpu::admission {

/// An answer a world may not have: absent when the world does not know (NullWorld), and the check
/// that asks is skipped, or answered as the gate answers without that fact. Never absent from the
/// live world, which fails closed instead (an error, a refusal).
template <class T>
using Known = std::optional<T>;

/// Asked from every thread the plugin serves requests on: an implementation is thread-safe.
class GateWorld {
 public:
  virtual ~GateWorld() = default;

  /// A refusal when a bind reaches the host, or lies outside where `scope` lets the repository bind
  /// from (HostPathJudge::check).
  virtual Refusal judge_host_path(const HostBind& bind, const BindScope& scope) = 0;
  /// The --device form that reaches a device path by CDI name, for a refusal (cdi_form_for).
  virtual std::string cdi_form(std::string_view device_path) = 0;
  /// True when `path` resolves to itself and is the TUN character device (10:200).
  virtual bool is_tun_device(std::string_view path) = 0;

  /// A container as the repository's own daemon stores it: the text of GET /containers/{name}/json
  /// (dockerd resolves a name, a short ID prefix or a full ID exactly as the start will), or an
  /// error saying why the daemon could not be asked. Unknown: the request is judged alone.
  virtual Known<Result<std::string>> stored_container(std::string_view name) = 0;

  /// The cgroup namespace the repository's daemon gives a container that asks for none: "private"
  /// on cgroup v2 unless the daemon was told otherwise (--default-cgroupns-mode), "host" on cgroup
  /// v1. Unknown: taken for private.
  virtual Known<std::string> default_cgroupns_mode() = 0;

  /// What the local volume driver mounts for named volume `name` when a container using it starts,
  /// from the options stored with it in the repository daemon's data root, however it was made
  /// (docker::local_volume_mount): "" for a plain directory, else the mount ("type=none
  /// device=/etc o=bind"); an error saying why it could not be read. Unknown: not checked.
  virtual Known<Result<std::string>> volume_mount(std::string_view name) = 0;

  /// What a granted CDI name carries now that its grant must have reviewed (hooks outside the
  /// allow-list, net devices: grants::review_items); nothing for a name no spec defines.
  virtual std::vector<std::string> review_items(const std::string& name) = 0;

  /// Every grantable CDI name this machine's specs define, sorted: what a refusal may suggest.
  virtual Known<std::vector<std::string>> defined_names() = 0;

  /// The hardware a CDI name reaches now, read live: its nodes' identities and cards; absent when
  /// no spec defines the name; an error when a node's hardware cannot be told. Unknown: neither
  /// the grant's recorded hardware nor other repositories' reservations are checked.
  virtual Known<Result<std::optional<probe::Reach>>> reach(const std::string& name) = 0;

  /// Whether the repository's daemon makes its containers through the verifier in front of runc
  /// (docker::runtime_wiring: the verifier first on its containerd's PATH, a runc after it), which
  /// takes CAP_NET_RAW from a container on the host's network where runc makes it. Unknown: taken
  /// for not, and such a request is refused as without the verifier.
  virtual Known<bool> runtime_verified() = 0;

  /// Whether BuildKit may build for this repository now under `policy`: nothing when it may, else
  /// why not and what to fix. Unknown: refused, the gate having no daemon to ask.
  virtual Known<Refusal> build_refusal(const PolicyRules& policy) = 0;
};

}  // namespace rgpu::admission
