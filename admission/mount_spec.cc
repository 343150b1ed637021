#include "admission/mount_spec.h"

#include <algorithm>
#include <array>
#include <vector>

namespace rgpu::admission {
namespace {

using Kind = MountSpec::Kind;

constexpr std::array<std::string_view, 6> kPropagations = {"private", "rprivate", "slave",
                                                           "rslave",  "shared",   "rshared"};

bool is_propagation(std::string_view o) {
  return std::find(kPropagations.begin(), kPropagations.end(), o) != kPropagations.end();
}

std::vector<std::string_view> split_commas(std::string_view mode) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t comma = mode.find(',', start);
    out.push_back(mode.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

// linuxValidMountMode: each option known, at most one of each family.
bool valid_mode(std::string_view mode) {
  if (mode.empty()) return true;
  int rw = 0, label = 0, propagation = 0, copy = 0, consistency = 0;
  for (const auto o : split_commas(mode)) {
    if (o == "rw" || o == "ro") {
      ++rw;
    } else if (o == "z" || o == "Z") {
      ++label;
    } else if (is_propagation(o)) {
      ++propagation;
    } else if (o == "nocopy") {
      ++copy;
    } else if (o == "consistent" || o == "cached" || o == "delegated") {
      ++consistency;
    } else {
      return false;
    }
  }
  return rw <= 1 && label <= 1 && propagation <= 1 && copy <= 1 && consistency <= 1;
}

bool has_option(std::string_view mode, bool (*which)(std::string_view)) {
  const auto options = split_commas(mode);
  return std::any_of(options.begin(), options.end(), which);
}

// "\" read as "/", as the parser reads a path it checks (never one it mounts).
std::string slashed(std::string_view p) {
  std::string out(p);
  std::replace(out.begin(), out.end(), '\\', '/');
  return out;
}

// Go's filepath.IsLocal on Linux: not empty, not absolute, and not climbing out once cleaned.
bool local(std::string_view p) {
  if (p.empty() || p.front() == '/') return false;
  const std::string clean = go_path_clean(p);
  return clean != ".." && !clean.starts_with("../");
}

MountSpec invalid(std::string why) { return MountSpec{.kind = Kind::invalid, .why = std::move(why)}; }

}  // namespace

std::string go_path_clean(std::string_view path) {
  if (path.empty()) return ".";
  const bool rooted = path[0] == '/';
  const size_t n = path.size();
  std::string out;
  size_t r = 0, dotdot = 0;
  if (rooted) {
    out += '/';
    r = dotdot = 1;
  }
  while (r < n) {
    if (path[r] == '/') {
      ++r;
    } else if (path[r] == '.' && (r + 1 == n || path[r + 1] == '/')) {
      ++r;
    } else if (path[r] == '.' && path[r + 1] == '.' && (r + 2 == n || path[r + 2] == '/')) {
      r += 2;
      if (out.size() > dotdot) {
        out.pop_back();
        while (out.size() > dotdot && out.back() != '/') out.pop_back();
        if (out.size() > dotdot && out.back() == '/') out.pop_back();
      } else if (!rooted) {
        if (!out.empty()) out += '/';
        out += "..";
        dotdot = out.size();
      }
    } else {
      if ((rooted && out.size() != 1) || (!rooted && !out.empty())) out += '/';
      for (; r < n && path[r] != '/'; ++r) out += path[r];
    }
  }
  return out.empty() ? "." : out;
}

MountSpec parse_mount(const MountFields& m) {
  // validateMountConfigImpl, in its order.
  if (m.target.empty()) return invalid("no target");
  if (go_path_clean(slashed(m.target)) == "/") return invalid("the target is the container's root");
  if (slashed(m.target).front() != '/') return invalid("the target is not absolute");
  if (m.type == "bind") {
    if (m.source.empty()) return invalid("a bind with no source");
    if (m.bind_options && !m.propagation.empty() && !is_propagation(m.propagation))
      return invalid("an unknown propagation");
    if (m.volume_options || m.image_options) return invalid("a bind with volume or image options");
    if (slashed(m.source).front() != '/') return invalid("the source is not absolute");
    return MountSpec{.kind = Kind::bind,
                     .source = go_path_clean(m.source),
                     .read_only = m.read_only,
                     .target = go_path_clean(m.target),
                     .propagation = m.bind_options ? std::string(m.propagation) : std::string()};
  }
  if (m.type == "volume") {
    if (m.bind_options || m.image_options) return invalid("a volume with bind or image options");
    if (m.volume_options && !m.volume_subpath.empty()) {
      if (m.source.empty()) return invalid("an anonymous volume with a subpath");
      if (!local(m.volume_subpath)) return invalid("a subpath outside the volume");
    }
    if (m.read_only && m.source.empty()) return invalid("a read-only anonymous volume");
    return MountSpec{.kind = Kind::volume,
                     .source = std::string(m.source),
                     .read_only = m.read_only,
                     .target = go_path_clean(m.target)};
  }
  if (m.type == "tmpfs") {
    if (m.bind_options || m.image_options) return invalid("a tmpfs with bind or image options");
    if (!m.source.empty()) return invalid("a tmpfs with a source");
    // Its size, mode and options are checked too, and reach no host path.
    return MountSpec{.kind = Kind::other, .read_only = m.read_only, .target = go_path_clean(m.target)};
  }
  if (m.type == "image") {
    if (m.bind_options || m.volume_options) return invalid("an image mount with bind or volume options");
    if (m.source.empty()) return invalid("an image mount with no image");
    if (m.image_options && !m.image_subpath.empty() && !local(m.image_subpath))
      return invalid("a subpath outside the image");
    return MountSpec{.kind = Kind::other, .read_only = m.read_only, .target = go_path_clean(m.target)};
  }
  // npipe and cluster are Windows' and swarm's: the Linux parser knows neither.
  return invalid("an unknown mount type");
}

MountSpec parse_bind(std::string_view raw) {
  // strings.SplitN(raw, ":", 4)
  std::vector<std::string_view> arr;
  size_t start = 0;
  while (arr.size() < 3) {
    const size_t colon = raw.find(':', start);
    if (colon == std::string_view::npos) break;
    arr.push_back(raw.substr(start, colon - start));
    start = colon + 1;
  }
  arr.push_back(raw.substr(start));
  if (arr[0].empty()) return invalid("an empty spec");
  MountFields m;
  std::string_view mode;
  switch (arr.size()) {
    case 1: m.target = arr[0]; break;
    case 2:
      if (valid_mode(arr[1])) return invalid("a target and a mode, but no source");
      m.source = arr[0];
      m.target = arr[1];
      break;
    case 3:
      m.source = arr[0];
      m.target = arr[1];
      mode = arr[2];
      break;
    default: return invalid("too many parts");
  }
  if (!valid_mode(mode)) return invalid("an unknown mode");
  m.type = !m.source.empty() && m.source.front() == '/' ? "bind" : "volume";
  m.read_only = has_option(mode, [](std::string_view o) { return o == "ro"; });
  m.volume_options = has_option(mode, [](std::string_view o) { return o == "nocopy"; });
  m.bind_options = has_option(mode, is_propagation);
  if (m.bind_options) {
    for (const auto o : split_commas(mode)) {
      if (is_propagation(o)) m.propagation = o;
    }
  }
  return parse_mount(m);
}

}  // namespace rgpu::admission
