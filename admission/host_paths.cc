#include "admission/host_paths.h"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

#include "admission/mount_spec.h"
#include "cdi/spec_index.h"
#include "core/machine_paths.h"

namespace rgpu::admission {
namespace {

constexpr std::array<std::string_view, 28> kProtected = {
    "/dev", "/sys", "/proc", "/run/udev",
    // Docker 25+ reads /etc/cdi and /var/run/cdi unless told otherwise; podman reads /run/cdi too.
    paths::kCdiSpecDir, paths::kDockerRunCdiDir, paths::kPodmanRunCdiDir,
    // Grants and inventory; setup's locks and its record of the NVIDIA spec it owns.
    "/etc/rediacc", "/var/lib/rediacc",
    // Container engines: sockets, state, configuration (daemon.json names the authorization plugin).
    "/run/docker.sock", "/var/run/docker.sock", "/run/docker", "/var/run/docker", "/etc/docker", "/var/lib/docker",
    "/run/containerd", "/var/run/containerd", "/var/lib/containerd", "/run/containers", "/var/lib/containers",
    "/etc/containers", "/run/podman", "/var/run/podman", "/run/crun", "/run/runc",
    // Rootless engines' sockets, systemd's and D-Bus's: each starts processes on the host.
    "/run/user", "/run/systemd", "/run/dbus"};

bool under(std::string_view path, std::string_view dir) {
  if (dir == "/") return true;
  return path.substr(0, dir.size()) == dir && (path.size() == dir.size() || path[dir.size()] == '/');
}

// The protected path that `path` equals, lies under, or contains (a bind of a parent carries its
// children along); nothing when it touches none.
std::optional<std::string> touched(std::string_view path, const std::vector<HostPathJudge::Moved>& resolved,
                                   const std::vector<GuardedPath>& guarded = {}) {
  for (const auto p : kProtected) {
    if (under(path, p) || under(p, path)) return std::string(p);
  }
  for (const auto& r : resolved) {
    if (under(path, r.path) || under(r.path, path)) return std::string(r.name) + " (at " + r.path + ")";
  }
  // What the path lies in names it best; then what it would carry along.
  for (const auto& g : guarded) {
    if (!under(path, g.path)) continue;
    const bool open = std::any_of(g.open.begin(), g.open.end(), [&](const auto& o) { return under(path, o); });
    if (!open) return g.what + (g.path == path ? "" : " (" + g.path + ")");
  }
  for (const auto& g : guarded) {
    if (under(g.path, path)) return g.what + " (" + g.path + ")";
  }
  return std::nullopt;
}

// What to do instead of binding `path` (as written, cleaned) that touched `hit`.
std::string hint(std::string_view path, std::string_view hit, HostPathSources& sources) {
  if (under(path, "/dev") || under(path, "/sys") || under(hit, "/dev") || under(hit, "/sys") || under(hit, "/run/udev"))
    return "ask for it by CDI name: " + cdi_form_for(path, sources);
  return "bind a directory of your own data instead (or use a named volume)";
}

std::string refusal(std::string_view what, std::string_view source, std::string_view why, std::string_view hint) {
  return "refused: " + std::string(what) + " of \"" + std::string(source) + "\" into the container " +
         std::string(why) + "; " + std::string(hint) + ".";
}

}  // namespace

std::span<const std::string_view> protected_host_paths() { return kProtected; }

HostPathSources& fixed_paths_only() {
  struct Fixed final : HostPathSources {
    std::string node_name(std::string_view) override { return {}; }
    std::vector<GuardedPath> guarded_paths() override { return {}; }
    RepositoryPlaces repository_places() override { return {}; }
  };
  static Fixed fixed;
  return fixed;
}

std::string cdi_form_for(std::string_view path, HostPathSources& sources) {
  if (auto name = sources.node_name(path); !name.empty()) return "--device " + name;
  if (path.substr(0, 16) == "/dev/dri/renderD") return "--device rediacc.io/dri=" + std::string(path.substr(9));
  if (path == "/dev/kfd") return "--device rediacc.io/amd=gpu0";
  // /dev/nvidiaN's N is the driver's minor, which need not be the GPU's index in nvidia.com/gpu=N.
  if (path.substr(0, 11) == "/dev/nvidia")
    return "--device nvidia.com/gpu=INDEX (rediacc-gpu cdi list on the host names each GPU's)";
  return "--device rediacc.io/dri=renderD128 or --device rediacc.io/amd=gpu0";
}

std::string clean_path(std::string_view path) {
  if (path.starts_with('/')) return go_path_clean(path);
  std::string rooted(1, '/');
  rooted.append(path);
  return go_path_clean(rooted);
}

// The text's judgement, on a path already cleaned.
static Refusal judge_cleaned(std::string_view cleaned, std::string_view source, std::string_view what,
                             HostPathSources& sources) {
  if (under(cleaned, "/proc"))
    return refusal(what, source, "reaches the host's /proc (its root and cwd links enter other namespaces)",
                   "bind a directory of your own data instead");
  if (auto hit = touched(cleaned, {}))
    return refusal(what, source, "reaches " + *hit + " on the host", hint(cleaned, *hit, sources));
  return std::nullopt;
}

namespace {

// "{repo}", "{id}" and "{mount}" filled in; nothing when the root names a place not known now,
// which is added to `unknown`.
std::optional<std::string> fill(std::string_view path, std::string_view repo, const RepositoryPlaces& places,
                                std::vector<std::string>& unknown) {
  std::string out;
  const auto place = [&](const std::optional<std::string>& value, const char* name) {
    if (value) {
      out += *value;
      return true;
    }
    if (std::find(unknown.begin(), unknown.end(), name) == unknown.end()) unknown.push_back(name);
    return false;
  };
  for (size_t i = 0; i < path.size();) {
    if (path.substr(i, 6) == "{repo}") {
      out += repo;
      i += 6;
    } else if (path.substr(i, 4) == "{id}") {
      if (!place(places.network_id, "its network id")) return std::nullopt;
      i += 4;
    } else if (path.substr(i, 7) == "{mount}") {
      if (!place(places.mount, "its own mount")) return std::nullopt;
      i += 7;
    } else {
      out += path[i++];
    }
  }
  return out;
}

// The roots a refusal names, as the operator reads them.
std::string roots_text(const std::vector<BindRoot>& roots, const std::vector<std::string>& unknown) {
  std::string out;
  for (const auto& r : roots) out += (out.empty() ? "" : ", ") + r.path + (r.read_only ? " (read-only)" : "");
  for (const auto& u : unknown)
    out += (out.empty() ? "" : ", ") + u + " (not found now: no daemon of the repository listens on its socket)";
  return out;
}

// A bind at `where` (resolved) is allowed by a root it lies under, a read-only root only when it is
// read-only itself; otherwise the refusal names the roots.
Refusal within_roots(const HostBind& bind, std::string_view where, const BindScope& scope,
                     const std::vector<BindRoot>& written, const std::vector<std::string>& resolved,
                     const std::vector<std::string>& unknown) {
  bool read_only_root = false;
  for (size_t i = 0; i < written.size(); ++i) {
    if (!under(where, resolved[i])) continue;
    if (!written[i].read_only || bind.read_only) return std::nullopt;
    read_only_root = true;
  }
  const std::string repo = "repository \"" + std::string(scope.repo) + "\"";
  if (read_only_root)
    return refusal(bind.what, bind.written, "is writable, and " + repo + " may bind it only read-only",
                   "bind it read-only (-v SOURCE:TARGET:ro, or --mount ...,readonly)");
  if (written.empty() && unknown.empty())
    return refusal(bind.what, bind.written, "is a host directory, and " + repo + " may bind none on this machine",
                   "use a named volume (an operator names the directories it may bind: rediacc-gpu setup --bind-root)");
  return refusal(bind.what, bind.written,
                 "lies outside the directories " + repo + " may bind from: " + roots_text(written, unknown),
                 "bind a directory under one of them, or use a named volume");
}

}  // namespace

Refusal check_host_bind_text(const HostBind& bind, const BindScope& scope) {
  if (auto bad = judge_cleaned(bind.path, bind.written, bind.what, fixed_paths_only())) return bad;
  std::vector<BindRoot> written;
  std::vector<std::string> unknown;
  for (const auto& r : scope.roots) {
    if (auto path = fill(r.path, scope.repo, {}, unknown))
      written.push_back({.path = std::move(*path), .read_only = r.read_only});
  }
  std::vector<std::string> where;
  for (const auto& r : written) where.push_back(r.path);
  return within_roots(bind, bind.path, scope, written, where, unknown);
}

HostPathJudge::HostPathJudge(const RootFs& machine, std::chrono::milliseconds refresh, HostPathSources& sources)
    : machine_(machine), refresh_(refresh), sources_(sources) {}

std::string HostPathJudge::cdi_form(std::string_view device_path) const { return cdi_form_for(device_path, sources_); }

bool HostPathJudge::is_tun_device(std::string_view path) const {
  const auto resolved = machine_.resolve(path);
  if (!resolved || *resolved != path) return false;
  const auto number = machine_.char_device(path);
  return number && number->major == 10 && number->minor == 200;
}

// A guarded path is judged where the machine resolves it (a bind is judged resolved), and as
// written too when that differs: a path that resolves elsewhere is guarded in both places.
static void add_resolved(const RootFs& machine, GuardedPath g, std::vector<GuardedPath>& out) {
  const auto resolve = [&](const std::string& p) { return machine.resolve(p).value_or(p); };
  GuardedPath r{.path = resolve(g.path), .what = g.what, .open = {}};
  for (const auto& o : g.open) {
    r.open.push_back(resolve(o));
    if (r.open.back() != o) r.open.push_back(o);
  }
  if (r.path != g.path) out.push_back(r);
  g.open = r.open;
  out.push_back(std::move(g));
}

std::shared_ptr<const HostPathJudge::Resolved> HostPathJudge::resolved_paths() const {
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (!resolved_ || now - resolved_at_ >= refresh_) {
    auto fresh = std::make_shared<Resolved>();
    for (const auto p : kProtected) {
      if (auto r = machine_.resolve(p); r && *r != p) fresh->moved.push_back({std::move(*r), p});
    }
    for (auto& g : sources_.guarded_paths()) add_resolved(machine_, std::move(g), fresh->guarded);
    fresh->places = sources_.repository_places();
    resolved_ = std::move(fresh);
    resolved_at_ = now;
  }
  return resolved_;
}

std::shared_ptr<const HostPathJudge::ScopeRoots> HostPathJudge::scope_roots(
    const BindScope& scope, const std::shared_ptr<const Resolved>& from) const {
  {
    std::lock_guard lock(mutex_);
    if (scope_roots_ && scope_roots_->from == from && scope_roots_->repo == scope.repo &&
        scope_roots_->roots == scope.roots)
      return scope_roots_;
  }
  auto fresh = std::make_shared<ScopeRoots>();
  fresh->roots = scope.roots;
  fresh->repo = std::string(scope.repo);
  fresh->from = from;
  for (const auto& r : scope.roots) {
    auto path = fill(r.path, scope.repo, from->places, fresh->unknown);
    if (!path) continue;
    fresh->where.push_back(machine_.resolve(*path).value_or(*path));
    fresh->written.push_back({.path = std::move(*path), .read_only = r.read_only});
  }
  std::lock_guard lock(mutex_);
  scope_roots_ = fresh;
  return fresh;
}

std::vector<FilledRoot> HostPathJudge::filled_roots(const BindScope& scope) const {
  const auto roots = scope_roots(scope, resolved_paths());
  std::vector<FilledRoot> out;
  for (size_t i = 0; i < roots->written.size(); ++i)
    out.push_back(
        {.written = roots->written[i].path, .resolved = roots->where[i], .read_only = roots->written[i].read_only});
  return out;
}

Refusal HostPathJudge::check(const HostBind& bind, const BindScope& scope) const {
  const std::string_view cleaned = bind.path;
  const std::string_view what = bind.what, source = bind.written;
  if (auto bad = judge_cleaned(cleaned, source, what, sources_)) return bad;
  std::vector<std::string> links;
  const auto resolved = machine_.resolve(cleaned, &links);
  if (!resolved) return refusal(what, source, "cannot be resolved (" + resolved.error().message + ")", "fix the path");
  for (const auto& link : links) {
    if (under(link, "/proc"))
      return refusal(what, source, "passes through " + link + ", which enters another namespace",
                     "bind a directory of your own data instead");
  }
  const std::string via = *resolved == cleaned ? "" : " (it resolves to " + *resolved + ")";
  if (under(*resolved, "/proc"))
    return refusal(what, source, "reaches the host's /proc" + via, "bind a directory of your own data instead");
  const auto paths = resolved_paths();
  if (auto hit = touched(*resolved, paths->moved, paths->guarded))
    return refusal(what, source, "reaches " + *hit + " on the host" + via, hint(*resolved, *hit, sources_));
  // Resolved: no link is left to follow, so one stat tells a device node.
  if (const auto st = machine_.stat(*resolved); st && (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode)))
    return refusal(what, source, "is a device node" + via, hint(*resolved, "/dev", sources_));
  const auto roots = scope_roots(scope, paths);
  return within_roots(bind, *resolved, scope, roots->written, roots->where, roots->unknown);
}

}  // namespace rgpu::admission
