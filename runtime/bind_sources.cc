#include "runtime/bind_sources.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <tuple>
#include <utility>

#include "core/in_quotes.h"

namespace rgpu::runtime {

using admission::ContainerMount;
using admission::Refusal;

namespace {

bool hex_id(std::string_view s) {
  return s.size() == 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

std::vector<std::string> parts(std::string_view rel) {
  std::vector<std::string> out;
  for (size_t at = 0; at <= rel.size();) {
    const auto slash = rel.find('/', at);
    const auto end = slash == std::string::npos ? rel.size() : slash;
    if (end > at) out.emplace_back(rel.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

// What dockerd and BuildKit's executor mount from the daemon's data root, by the path beneath it.
enum class DataPlace { none, container_file, shm, volume, build };

DataPlace data_place(const std::vector<std::string>& p, bool build_step) {
  if (build_step) {
    static constexpr std::string_view kBuild[] = {"buildkit", "vfs", "overlay2", "fuse-overlayfs", "btrfs", "zfs"};
    return !p.empty() && p.size() >= 2 && std::find(std::begin(kBuild), std::end(kBuild), p[0]) != std::end(kBuild)
               ? DataPlace::build
               : DataPlace::none;
  }
  if (p.size() == 3 && p[0] == "containers" && hex_id(p[1]) &&
      (p[2] == "hosts" || p[2] == "hostname" || p[2] == "resolv.conf"))
    return DataPlace::container_file;
  if (p.size() == 4 && p[0] == "containers" && hex_id(p[1]) && p[2] == "mounts" && p[3] == "shm") return DataPlace::shm;
  if (p.size() >= 3 && p[0] == "volumes" && p[2] == "_data") return DataPlace::volume;
  return DataPlace::none;
}

// A file root owns and only root may write, in directories the same: dockerd's docker-init.
bool root_only(const std::string& path) {
  for (std::filesystem::path p = path; !p.empty(); p = p.parent_path()) {
    struct ::stat st {};
    if (::stat(p.c_str(), &st) != 0 || st.st_uid != 0 || (st.st_mode & 022) != 0) return false;
    if (p == p.parent_path()) break;
  }
  return true;
}

std::string opened_why(const Error& e) {
  if (e.sys_errno == ELOOP) return "passes through a link now (a link swapped in after the gate checked it)";
  if (e.sys_errno == EXDEV) return "crosses into another mount (a volume made to mount a host path)";
  if (e.sys_errno == ENOENT) return "is gone";
  if (e.sys_errno == ENODEV) return "is a device node now";
  return "cannot be opened (" + e.message + ")";
}

Refusal refused(const ContainerMount& m, const std::string& why, const std::string& what_to_do) {
  return "refused: the bind of " + in_quotes(m.source) + " at " + m.destination + " " + why + "; " + what_to_do + ".";
}

struct Opened {
  Refusal refusal;
  UniqueFd fd;        ///< what to stage; empty: mounted as the config says (a granted name's, docker-init)
  std::string group;  ///< staged once for the whole container, the source then `inside` it
  std::string inside;
};

// A source beneath the daemon's data root. Its own files of the container (hosts, hostname,
// resolv.conf, the /dev/shm tmpfs) lie in containers/ID and its named volumes in volumes/: each of
// those directories is staged once, the source then taken inside the staged clone (their entries are
// the daemon's, which no tenant renames). A volume's subpath, and a build step's snapshot, are
// staged on their own.
Opened open_data(const ContainerMount& m, const std::vector<std::string>& p, DataPlace place, int root) {
  const auto bad = [&](const Error& e) {
    return Opened{refused(m, opened_why(e), "recreate the container"), {}, {}, {}};
  };
  if (place == DataPlace::container_file || place == DataPlace::shm) {
    const std::string group = "containers/" + p[1];
    auto dir = open_beneath(root, group, {.same_mount = true});
    if (!dir) return bad(dir.error());
    const std::string inside = place == DataPlace::shm ? "mounts/shm" : p[2];
    // The shm tmpfs is a mount of its own: only its last step crosses into it.
    auto parent = open_beneath(dir->get(), place == DataPlace::shm ? "mounts" : ".", {.same_mount = true});
    if (!parent) return bad(parent.error());
    if (auto file = open_beneath(parent->get(), place == DataPlace::shm ? "shm" : p[2]); !file)
      return bad(file.error());
    return {std::nullopt, std::move(*dir), group, inside};
  }
  std::string rel;
  for (const auto& s : p) rel += (rel.empty() ? "" : "/") + s;
  auto fd = open_beneath(root, rel, {.same_mount = place != DataPlace::build});
  if (!fd) return bad(fd.error());
  if (place == DataPlace::volume && p.size() == 3) {
    auto volumes = open_beneath(root, "volumes", {.same_mount = true});
    if (!volumes) return bad(volumes.error());
    return {std::nullopt, std::move(*volumes), "volumes", p[1] + "/_data"};
  }
  return {std::nullopt, std::move(*fd), {}, {}};
}

// The root `source` lies under as written (its longest), and that root's spelling it starts with.
std::pair<const admission::FilledRoot*, std::string> anchor_of(const std::string& source,
                                                               const std::vector<admission::FilledRoot>& roots,
                                                               bool read_only) {
  const admission::FilledRoot* anchor = nullptr;
  std::string prefix;
  for (const auto& r : roots) {
    for (const auto* as : {&r.resolved, &r.written}) {
      if (under_dir(source, *as) && as->size() > prefix.size() && (!r.read_only || read_only)) {
        anchor = &r;
        prefix = *as;
      }
    }
  }
  return {anchor, prefix};
}

Opened open_source(const ContainerMount& m, const BindPlaces& places, int data_root_fd) {
  const auto& granted = places.allowance.granted_mounts;
  if (std::any_of(granted.begin(), granted.end(),
                  [&](const auto& g) { return g.host_path == m.source && g.container_path == m.destination; }))
    return {};
  if (m.destination == "/sbin/docker-init" && m.read_only && root_only(m.source)) return {};
  const std::string& data_root = places.daemon.data_root;
  if (under_dir(m.source, data_root)) {
    const auto p = parts(std::string_view(m.source).substr(data_root.size()));
    const auto place = data_place(p, places.daemon.build_step);
    if (place == DataPlace::none)
      return {refused(m,
                      "lies in the daemon's data root, where only its containers' own files and volumes are "
                      "mounted from",
                      "bind a directory the repository may bind from"),
              {},
              {},
              {}};
    if (data_root_fd < 0)
      return {refused(m, "lies in the daemon's data root, which cannot be opened without a link on the way",
                      "ask an operator"),
              {},
              {},
              {}};
    return open_data(m, p, place, data_root_fd);
  }
  const admission::HostBind bind{.path = m.source, .written = m.source, .what = "a bind", .read_only = m.read_only};
  if (auto bad = places.judge(bind)) return {bad, {}, {}, {}};
  // The root it lies under, longest first, as the machine resolves it: opened from / with no link on
  // the way, and the rest beneath it with none. A source written through a link the judge followed
  // (/var/run for /run) is found where the kernel resolves it now, then opened the same way.
  const auto roots = places.roots();
  auto [anchor, prefix] = anchor_of(m.source, roots, m.read_only);
  std::string source = m.source;
  if (!anchor) {
    char* real = ::realpath(m.source.c_str(), nullptr);
    if (real) {
      source = real;
      std::free(real);
      std::tie(anchor, prefix) = anchor_of(source, roots, m.read_only);
    }
  }
  if (!anchor)
    return {refused(m, "lies under no directory the repository may bind from", "bind one under them"), {}, {}, {}};
  auto root = open_no_links(anchor->resolved);
  auto fd = root ? open_beneath(root->get(), std::string_view(source).substr(prefix.size())) : std::move(root);
  if (!fd) return {refused(m, opened_why(fd.error()), "bind the directory itself, not a link to it"), {}, {}, {}};
  // The daemon's own state, renamed into the checked name after the check, is still its state.
  if (same_or_related(fd->get(), data_root))
    return {refused(m, "is or holds the daemon's own data root", "bind a directory of your own data"), {}, {}, {}};
  return {std::nullopt, std::move(*fd), {}, {}};
}

}  // namespace

PlacedBinds place_binds(const admission::ContainerModel& model, const BindPlaces& places, Staging& staging) {
  PlacedBinds out;
  auto data_root = open_no_links(places.daemon.data_root);
  std::map<std::string, std::string> groups;  // "containers/ID" -> where its clone is staged
  for (size_t i = 0; i < model.mounts.size(); ++i) {
    const auto& m = model.mounts[i];
    if (!m.bind) continue;
    auto opened = open_source(m, places, data_root ? data_root->get() : -1);
    if (opened.refusal) {
      out.refusal = std::move(opened.refusal);
      return out;
    }
    if (!opened.fd) continue;
    if (!opened.group.empty()) {
      auto& at = groups[opened.group];
      if (at.empty()) {
        auto staged = staging.stage(opened.fd, true);
        if (!staged) {
          out.refusal = refused(m, "could not be staged for runc (" + staged.error().message + ")", "ask an operator");
          return out;
        }
        at = std::move(*staged);
      }
      out.staged[i] = at + "/" + opened.inside;
      continue;
    }
    auto staged = staging.stage(opened.fd, m.recursive);
    if (!staged) {
      out.refusal = refused(m, "could not be staged for runc (" + staged.error().message + ")", "ask an operator");
      return out;
    }
    out.staged[i] = std::move(*staged);
  }
  return out;
}

}  // namespace rgpu::runtime
