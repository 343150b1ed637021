#pragma once
// Bind and mount sources judged by what they name on the machine, not by their text: the kernel
// follows links when the container starts, so the path dockerd will mount (mount_spec.h) is
// resolved with its links followed (inside --root), and allowed only where it lies under a root the
// host policy lets the repository bind from; on the way it is refused, saying why, when it reaches,
// contains or lies under a path that gives a container the host's hardware, the gate's own inputs,
// a container engine or another repository. What resolution cannot see (a link swapped in after
// the check) is in docs/gate-limits.md.

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "admission/refusal.h"
#include "core/host_policy.h"
#include "core/root_fs.h"

namespace rgpu::admission {

/// Machine paths no bind may reach, contain or lie under: devices and sysfs, udev's database,
/// every CDI spec directory, the tool's state, and the sockets and state of container engines,
/// systemd and D-Bus (a root client of any of them can start a process on the host).
std::span<const std::string_view> protected_host_paths();

/// The TUN device, the one raw device a policy may allow (WireGuard).
inline constexpr std::string_view kTunDevice = "/dev/net/tun";

/// A machine path found live that no bind may reach, contain or lie under: a container engine's
/// socket, data root, exec root or configuration, another repository's mount or secrets. Paths
/// inside one of `open` stay allowed (the repository's own mount inside the datastore).
struct GuardedPath {
  std::string path;                    ///< machine path
  std::string what;                    ///< what it is, for the refusal: "dockerd 812's data root"
  std::vector<std::string> open = {};  ///< machine paths inside `path` that stay allowed
};

/// What the judge learns from the machine beyond its files: the live one is the gate's world
/// (gate::LiveWorld, from the specs and the running daemons); fixed_paths_only() learns nothing.
class HostPathSources {
 public:
  virtual ~HostPathSources() = default;
  /// The CDI name that reaches a device node most narrowly on this machine ("" when none does).
  virtual std::string node_name(std::string_view device_path) = 0;
  /// The guarded paths of the machine now (docker::guarded_paths); asked at most once per refresh.
  virtual std::vector<GuardedPath> guarded_paths() = 0;
  /// Where the repository lives on a Rediacc machine: its mount and network id ("{mount}" and
  /// "{id}" in a bind root), each absent when not known. Asked at most once per refresh.
  virtual RepositoryPlaces repository_places() = 0;
};

/// A host path a container asks to have bound.
struct HostBind {
  std::string_view path;     ///< what dockerd will mount: absolute and clean (MountSpec::source)
  std::string_view written;  ///< the source as the request wrote it, for the refusal
  std::string_view what;     ///< "a bind", "a mount", "a mount of container \"db\" (--volumes-from)"
  bool read_only = false;
};

/// Where a repository's binds may come from: the host policy's roots, for that repository.
struct BindScope {
  const BindRoots& roots;
  std::string_view repo;
};

/// A root a scope lets binds come from, its placeholders filled in: as written and as the machine
/// resolves it.
struct FilledRoot {
  std::string written;
  std::string resolved;
  bool read_only = false;
};

/// No name for any node and no guarded path beyond the fixed ones (NullWorld, the tests of the fixed
/// paths): named by the caller, never assumed.
HostPathSources& fixed_paths_only();

/// The --device form that reaches a device path by CDI name, for refusal messages: the name
/// `sources` gives (the specs' own, SpecReviews::name_for_node), else ours by the node's name
/// (rediacc.io/dri=renderD128 for /dev/dri/renderD128), else `rediacc-gpu cdi list` to find it;
/// an NVIDIA minor is never taken for a GPU's index.
std::string cdi_form_for(std::string_view device_path, HostPathSources& sources);

/// Go's path.Clean of `path` read as rooted: "/" + path when it is not.
std::string clean_path(std::string_view path);

/// Judges host paths on the machine the daemon runs on. Where the protected paths themselves
/// resolve (an /etc/cdi that is a link) is looked up at most once per `refresh`: only root can
/// move those, and a decision must cost microseconds. Thread-safe.
class HostPathJudge {
 public:
  /// `sources` names the CDI device a refusal of a device path points to instead, and adds the
  /// paths found live on the machine to the fixed ones. It must outlive the judge.
  HostPathJudge(const RootFs& machine, std::chrono::milliseconds refresh, HostPathSources& sources);

  /// A refusal message when `bind` reaches the host: any path under /proc or resolved through it
  /// (its root and cwd links enter other mount namespaces), a protected or guarded path, a device
  /// node; or when it lies under none of the roots `scope` allows, or is written to a read-only one.
  Refusal check(const HostBind& bind, const BindScope& scope) const;

  /// cdi_form_for with this machine's names.
  std::string cdi_form(std::string_view device_path) const;

  /// The roots `scope` allows now, filled in (a root whose {mount} is not known now is left out).
  std::vector<FilledRoot> filled_roots(const BindScope& scope) const;

  /// True when `path` resolves to itself and is the TUN character device (10:200).
  bool is_tun_device(std::string_view path) const;

  /// A protected path as the machine resolves it, when that differs from its text.
  struct Moved {
    std::string path;
    std::string_view name;
  };

 private:
  struct Resolved {
    std::vector<Moved> moved;
    std::vector<GuardedPath> guarded;  ///< as the machine resolves them, and as written where that differs
    RepositoryPlaces places;           ///< HostPathSources::repository_places
  };
  /// Shared, not copied: a bind's judgement reads it while a refresh may replace it.
  std::shared_ptr<const Resolved> resolved_paths() const;

  /// A scope's roots with {repo} and {mount} filled in, each as written and as the machine resolves
  /// it; kept until the next refresh, or until another scope asks.
  struct ScopeRoots {
    BindRoots roots;  ///< the templates they were made from
    std::string repo;
    std::shared_ptr<const Resolved> from;
    std::vector<BindRoot> written;     ///< filled in; a root whose {mount} is unknown is left out
    std::vector<std::string> where;    ///< each of `written` as the machine resolves it
    std::vector<std::string> unknown;  ///< placeholders that named a root and are not known now
  };
  std::shared_ptr<const ScopeRoots> scope_roots(const BindScope& scope,
                                                const std::shared_ptr<const Resolved>& from) const;

  const RootFs& machine_;
  std::chrono::milliseconds refresh_;
  HostPathSources& sources_;
  mutable std::mutex mutex_;
  mutable std::chrono::steady_clock::time_point resolved_at_{};
  mutable std::shared_ptr<const Resolved> resolved_;
  mutable std::shared_ptr<const ScopeRoots> scope_roots_;
};

/// The same judgement on the text alone (no machine at hand: benchmarks, the libFuzzer target);
/// a root naming {mount} or {id} allows nothing there.
Refusal check_host_bind_text(const HostBind& bind, const BindScope& scope);

}  // namespace rgpu::admission
