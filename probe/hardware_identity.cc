#include "probe/hardware_identity.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "core/ascii_case.h"
#include "probe/sysfs_parsers.h"

namespace rgpu::probe {
namespace {

constexpr unsigned kMiscMajor = 10;
constexpr unsigned kNvidiaMajor = 195;
constexpr unsigned kDrmMajor = 226;
constexpr std::string_view kNvidiaGpus = "/proc/driver/nvidia/gpus";
constexpr std::string_view kMigMinors = "/proc/driver/nvidia-caps/mig-minors";
constexpr std::string_view kKfdNodes = "/sys/class/kfd/kfd/topology/nodes";

// The number that ends `node` after `prefix` ("/dev/nvidia3" -> 3); absent for anything else.
std::optional<unsigned> number_after(std::string_view node, std::string_view prefix) {
  if (!node.starts_with(prefix) || node.size() == prefix.size() || node.size() - prefix.size() > 7) return std::nullopt;
  unsigned n = 0;
  for (char c : node.substr(prefix.size())) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    n = n * 10 + static_cast<unsigned>(c - '0');
  }
  return n;
}

Error gone(const std::string& node, const std::string& why) {
  return Error{"cannot tell which hardware " + node + " reaches: " + why +
               "; check that the GPU is still there (rediacc-gpu doctor) and run rediacc-gpu setup."};
}

// The NVIDIA driver makes its control nodes at their first use, not at boot: after a reboot
// /dev/nvidia-uvm is missing until something runs CUDA. Saying "check the GPU, run setup" for one
// sends the operator round in circles; the cause and its one command are named instead.
bool lazy_nvidia_node(std::string_view node) {
  return node == "/dev/nvidia-uvm" || node == "/dev/nvidia-uvm-tools" || node == "/dev/nvidia-modeset" ||
         node == "/dev/nvidiactl";
}

Error missing(const std::string& node) {
  if (lazy_nvidia_node(node))
    return Error{"cannot tell which hardware " + node +
                 " reaches: it is not on this machine yet; the NVIDIA driver makes its control nodes at first use, so "
                 "after a boot none is there until something runs CUDA: make them with nvidia-ctk system "
                 "create-device-nodes --control-devices --load-kernel-modules (rediacc-gpu's boot unit runs it), "
                 "then try again."};
  return gone(node, "it is not on this machine");
}

// "GPU UUID" of an NVIDIA information file when it says `minor` is its Device Minor.
std::optional<std::string> uuid_for_minor(const std::string& text, unsigned minor) {
  const auto fields = parse_colon_pairs(text);
  const auto m = fields.find("Device Minor");
  if (m == fields.end() || parse_decimal_attribute(m->second) != minor) return std::nullopt;
  const auto u = fields.find("GPU UUID");
  return u == fields.end() ? std::string() : u->second;
}

// A MIG capability ("gpu0/gi2/ci0/access") as the parent minor and the slice's part of the
// identity ("/gi2/ci0").
std::optional<std::pair<unsigned, std::string>> mig_capability(std::string_view cap) {
  if (!cap.starts_with("gpu") || !cap.ends_with("/access")) return std::nullopt;
  cap.remove_suffix(7);
  const auto slash = cap.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const auto parent = number_after(cap.substr(0, slash), "gpu");
  if (!parent) return std::nullopt;
  return std::pair{*parent, std::string(cap.substr(slash))};
}

}  // namespace

std::vector<NodeRef> node_refs(const std::vector<std::string>& paths) {
  std::vector<NodeRef> out;
  out.reserve(paths.size());
  for (const auto& p : paths) out.push_back({p, "", 0, 0});
  return out;
}

HardwareReader::Evidence HardwareReader::read(Evidence::Kind kind, const std::string& path) const {
  Evidence e{kind, path, Evidence::State::absent, ""};
  const auto set = [&e](std::string text) {
    e.state = Evidence::State::present;
    e.value = std::move(text);
  };
  switch (kind) {
    case Evidence::Kind::link: {
      char buf[4096];
      const auto n = ::readlink(fs_.host_path(path).c_str(), buf, sizeof buf);
      if (n > 0 && static_cast<size_t>(n) < sizeof buf) set(std::string(buf, static_cast<size_t>(n)));
      break;
    }
    case Evidence::Kind::file: {
      auto text = fs_.read_optional(path);
      if (!text) {
        e.state = Evidence::State::unreadable;
        e.value = text.error().message;
      } else if (*text) {
        set(std::move(**text));
      }
      break;
    }
    case Evidence::Kind::listing: {
      if (auto names = fs_.list_dir(path)) {
        std::string all;
        for (const auto& n : *names) all.append(n).push_back('\n');
        set(std::move(all));
      }
      break;
    }
  }
  return e;
}

std::optional<HardwareReader::Evidence> HardwareReader::reread(const Evidence& e, Seen& seen) const {
  if (!e.present()) return std::nullopt;
  mounts_checked(seen);
  if (e.kind == Evidence::Kind::link) return relink(e);
  if (e.kind != Evidence::Kind::file) return std::nullopt;
  auto it = files_.find(e.path);
  if (it == files_.end()) {
    auto fd = fs_.open_read(e.path);
    if (!fd) return std::nullopt;
    it = files_.emplace(e.path, std::move(*fd)).first;
  }
  struct stat st {};
  char buf[8192];
  const auto n = ::pread(it->second.get(), buf, sizeof buf, 0);
  if (n < 0 || static_cast<size_t>(n) == sizeof buf || ::fstat(it->second.get(), &st) != 0 || st.st_nlink == 0) {
    files_.erase(it);
    return std::nullopt;
  }
  auto trimmed = trimmed_if_present(std::string(buf, static_cast<size_t>(n)));
  if (!trimmed || !*trimmed) return std::nullopt;
  return Evidence{e.kind, e.path, Evidence::State::present, std::move(**trimmed)};
}

// sysfs's directories of links are never made anew while mounted: the descriptor kept from the
// last time reads a link with its one name, where the host path would be walked whole again.
std::optional<HardwareReader::Evidence> HardwareReader::relink(const Evidence& e) const {
  const auto slash = e.path.rfind('/');
  if (slash == std::string::npos || slash == 0) return std::nullopt;
  const std::string dir = e.path.substr(0, slash);
  auto it = link_dirs_.find(dir);
  if (it == link_dirs_.end()) {
    auto fd = fs_.open_dir_fd(dir);
    if (!fd) return std::nullopt;
    it = link_dirs_.emplace(dir, std::move(*fd)).first;
  }
  char buf[4096];
  const auto n = ::readlinkat(it->second.get(), e.path.c_str() + slash + 1, buf, sizeof buf);
  if (n <= 0 || static_cast<size_t>(n) >= sizeof buf) {
    link_dirs_.erase(it);  // read again through the path, which says what is there now
    return std::nullopt;
  }
  return Evidence{e.kind, e.path, Evidence::State::present, std::string(buf, static_cast<size_t>(n))};
}

namespace {

std::string evidence_key(const HardwareReader::Evidence& e) {
  return std::to_string(static_cast<int>(e.kind)) + e.path;
}

}  // namespace

bool HardwareReader::still_holds(const Evidence& e, Seen& seen) const {
  const std::string key = evidence_key(e);
  auto it = seen.find(key);
  if (it == seen.end()) {
    auto again = reread(e, seen);
    it = seen.emplace(key, again ? std::move(*again) : read(e.kind, e.path)).first;
  }
  return it->second == e;
}

Result<std::string> HardwareReader::nvidia(unsigned minor, Answer& a) const {
  auto& ev = a.evidence;
  const std::string node = "/dev/nvidia" + std::to_string(minor);
  auto dirs = fs_.list_dir(kNvidiaGpus);
  if (!dirs) return tl::unexpected(gone(node, dirs.error().message));
  for (const auto& dir : *dirs) {
    auto e = read(Evidence::Kind::file, std::string(kNvidiaGpus) + "/" + dir + "/information");
    if (!e.present()) continue;
    auto uuid = uuid_for_minor(e.value, minor);
    if (!uuid) continue;
    ev.push_back(std::move(e));
    a.card = dir;
    // No UUID (an old driver): the directory is the GPU's PCI address.
    return uuid->empty() ? dir : *uuid;
  }
  return tl::unexpected(
      gone(node, "no GPU in " + fs_.host_path(kNvidiaGpus).string() + " has Device Minor " + std::to_string(minor)));
}

// A DRM node by its minor: the kernel's link for the number (/sys/dev/char/226:M) says which
// device it is; a tree without one (an older sysfs, a fixture) has the class link of the name the
// minor is given (card M, renderD M).
Result<std::string> HardwareReader::drm(const std::string& node, const Number& n, Answer& a) const {
  auto& ev = a.evidence;
  const unsigned minor = n.minor;
  std::string link = "/sys/dev/char/" + std::to_string(n.major) + ":" + std::to_string(minor);
  if (ev.empty() || ev.back().path != link) ev.push_back(read(Evidence::Kind::link, link));
  if (!ev.back().present() && n.major == kDrmMajor) {
    link = std::string("/sys/class/drm/") + (minor >= 128 ? "renderD" : "card") + std::to_string(minor);
    ev.push_back(read(Evidence::Kind::link, link));
  }
  const auto& back = ev.back();
  if (!back.present()) return tl::unexpected(gone(node, fs_.host_path(link).string() + " is no link to a device"));
  // sysfs links are relative and reach real directories: the text says where the device is.
  const std::filesystem::path target =
      (back.value.starts_with('/') ? std::filesystem::path(back.value)
                                   : std::filesystem::path(link).parent_path() / back.value)
          .lexically_normal();
  const std::string name = target.filename().string();
  if (target.parent_path().filename() != "drm" || target.parent_path().parent_path().empty() ||
      (!name.starts_with("renderD") && !name.starts_with("card")))
    return tl::unexpected(gone(node, fs_.host_path(link).string() + " points at " + back.value + ", no DRM device"));
  const std::string device_dir = target.parent_path().parent_path().string();
  const auto address = canonical_pci_address(device_dir.substr(device_dir.rfind('/') + 1));
  if (!address) return partition(node, device_dir, name, a);
  a.card = *address;
  ev.push_back(read(Evidence::Kind::file, std::string(kNvidiaGpus) + "/" + *address + "/information"));
  if (ev.back().present()) {
    const auto fields = parse_colon_pairs(ev.back().value);
    if (auto u = fields.find("GPU UUID"); u != fields.end() && !u->second.empty()) return u->second;
  }
  // A partitioned MI300 card's own nodes are its partition 0.
  ev.push_back(read(Evidence::Kind::file, device_dir + "/current_compute_partition"));
  const auto& mode = ev.back();
  if (mode.present() && !mode.value.empty() && ascii_lowered(mode.value) != "spx")
    return *address + "/" + ascii_lowered(mode.value) + "0";
  return *address;
}

// A node owned by an amdgpu_xcp platform device: the KFD topology node with its render minor
// says the card (location_id) and the partition (the function bits of a CPX location).
Result<std::string> HardwareReader::partition(const std::string& node, const std::string& device_dir,
                                              const std::string& name, Answer& a) const {
  auto& ev = a.evidence;
  auto render = number_after(name, "renderD");
  if (!render) {
    ev.push_back(read(Evidence::Kind::listing, device_dir + "/drm"));
    std::string_view names = ev.back().present() ? std::string_view(ev.back().value) : std::string_view();
    for (size_t at = 0; !render && at < names.size();) {
      const auto end = names.find('\n', at);
      render = number_after(names.substr(at, end - at), "renderD");
      at = end + 1;
    }
  }
  if (!render)
    return tl::unexpected(gone(node, "its device " + fs_.host_path(device_dir).string() + " has no render node"));
  const auto location = [&](const std::string& text) -> std::optional<std::string> {
    const auto props = parse_space_pairs(text);
    const auto minor = props.find("drm_render_minor");
    const auto loc = props.find("location_id");
    if (minor == props.end() || loc == props.end() || parse_decimal_attribute(minor->second) != *render)
      return std::nullopt;
    const auto domain = props.find("domain");
    const auto l = parse_decimal_attribute(loc->second);
    const auto d = domain == props.end() ? std::optional<std::uint64_t>(0) : parse_decimal_attribute(domain->second);
    if (!l || !d) return std::nullopt;
    return kfd_pci_address(static_cast<std::uint32_t>(*d), static_cast<std::uint32_t>(*l));
  };
  std::optional<std::string> address;
  auto nodes = fs_.list_dir(kKfdNodes);
  for (const auto& n : nodes ? *nodes : std::vector<std::string>{}) {
    auto e = read(Evidence::Kind::file, std::string(kKfdNodes) + "/" + n + "/properties");
    if (!e.present() || !(address = location(e.value))) continue;
    ev.push_back(std::move(e));
    break;
  }
  if (!address) return tl::unexpected(gone(node, "no KFD topology node has render minor " + std::to_string(*render)));
  const std::string card = address->substr(0, address->size() - 1) + "0";
  const std::string index = address->substr(address->size() - 1);
  a.card = card;
  ev.push_back(read(Evidence::Kind::file, "/sys/bus/pci/devices/" + card + "/current_compute_partition"));
  const auto& mode = ev.back();
  const std::string kind = mode.present() && !mode.value.empty() ? ascii_lowered(mode.value) : "partition";
  return card + "/" + kind + index;
}

Result<std::string> HardwareReader::mig(const std::string& node, unsigned cap_minor, Answer& a) const {
  auto& ev = a.evidence;
  ev.push_back(read(Evidence::Kind::file, std::string(kMigMinors)));
  if (!ev.back().present()) return tl::unexpected(gone(node, fs_.host_path(kMigMinors).string() + " cannot be read"));
  for (const auto& [cap, minor] : parse_mig_minors(ev.back().value)) {
    if (minor != cap_minor) continue;
    auto slice = mig_capability(cap);
    if (!slice) break;  // config or monitor: every GPU's, never a slice
    RGPU_TRY_ASSIGN(auto gpu, nvidia(slice->first, a));
    return gpu + slice->second;
  }
  return tl::unexpected(gone(node, "it is no MIG slice's capability in " + fs_.host_path(kMigMinors).string()));
}

namespace {

// The driver /proc/devices names for a major ("236 nvidia-caps"), in its character or block part.
std::optional<std::string> listed_driver(const std::string& text, char type, unsigned major) {
  bool in_part = false;
  for (size_t at = 0; at < text.size();) {
    auto end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + at, end - at);
    at = end + 1;
    if (line.starts_with("Character devices:")) {
      in_part = type == 'c';
    } else if (line.starts_with("Block devices:")) {
      in_part = type == 'b';
    } else if (in_part) {
      const auto first = line.find_first_not_of(' ');
      const auto space = line.find(' ', first);
      if (first == std::string_view::npos || space == std::string_view::npos) continue;
      const auto number = number_after(line.substr(first, space - first), "");
      if (number == major) return std::string(line.substr(line.find_first_not_of(' ', space)));
    }
  }
  return std::nullopt;
}

// The name /proc/misc gives a misc minor ("125 dxg").
std::optional<std::string> misc_name(const std::string& text, unsigned minor) {
  for (const auto& [key, value] : parse_space_pairs(text)) {
    if (number_after(key, "") == minor) return value;
  }
  return std::nullopt;
}

}  // namespace

Result<std::string> HardwareReader::driver_name(const Number& n, const std::string& node,
                                                std::vector<Evidence>& ev) const {
  const bool misc = n.type == 'c' && n.major == kMiscMajor;
  const std::string table = misc ? "/proc/misc" : "/proc/devices";
  ev.push_back(read(Evidence::Kind::file, table));
  if (!ev.back().present())
    return tl::unexpected(gone(node, "its device number " + std::to_string(n.major) + ":" + std::to_string(n.minor) +
                                         " cannot be looked up, " + fs_.host_path(table).string() + " cannot be read"));
  const auto name = misc ? misc_name(ev.back().value, n.minor) : listed_driver(ev.back().value, n.type, n.major);
  return name.value_or("");
}

HardwareReader::Answer HardwareReader::derive(const Number& n, const std::string& node) const {
  Answer a{Role::other, std::string(), {}, {}};
  if (n.type != 'c') return a;  // block devices and fifos are no GPU's
  if (n.major == kNvidiaMajor) {
    if (n.minor >= 254) {
      a.role = Role::shared;  // nvidia-modeset, nvidiactl
    } else {
      a.role = Role::parent;
      a.identity = nvidia(n.minor, a);
    }
    return a;
  }
  if (n.major == kDrmMajor) {
    a.role = Role::gpu;
    a.identity = drm(node, n, a);
    return a;
  }
  // A dynamic major by the name its driver registered (one read a request for every such node).
  auto driver = driver_name(n, node, a.evidence);
  if (driver) {
    if (*driver == "dxg") {
      a.role = Role::gpu;
      a.identity = std::string("wsl");
      return a;
    }
    if (*driver == "nvidia-caps") {
      a.role = Role::slice;
      a.identity = mig(node, n.minor, a);
      return a;
    }
    if (*driver == "nvidia-uvm" || *driver == "kfd" || *driver == "nvidia-caps-imex-channels") {
      a.role = Role::shared;
      return a;
    }
    if (*driver == "fb" || *driver == "accel" || *driver == "nvidia-nvswitch" || *driver == "nvidia-nvlink") {
      // A GPU's framebuffer, an accelerator or NVIDIA's fabric: hardware, but no identity says whose.
      a.role = Role::gpu;
      a.identity = tl::unexpected(gone(node, "it is a " + *driver + " device, whose GPU the gate cannot tell"));
      return a;
    }
  }
  // Any other number: the kernel's link for it says whether it is a DRM node after all.
  auto e = read(Evidence::Kind::link, "/sys/dev/char/" + std::to_string(n.major) + ":" + std::to_string(n.minor));
  const bool drm_number = e.present() && std::filesystem::path(e.value).parent_path().filename() == "drm";
  a.evidence.push_back(std::move(e));
  if (drm_number) {
    a.role = Role::gpu;
    a.identity = drm(node, n, a);
  } else if (!driver) {
    a.identity = tl::unexpected(driver.error());  // fail closed: what the number is cannot be told
  }
  return a;
}

namespace {

bool same_times(const struct ::stat& a, const struct ::stat& b) {
  return a.st_ino == b.st_ino && a.st_dev == b.st_dev && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
         a.st_mtim.tv_nsec == b.st_mtim.tv_nsec && a.st_ctim.tv_sec == b.st_ctim.tv_sec &&
         a.st_ctim.tv_nsec == b.st_ctim.tv_nsec;
}

// Changed in the last second: another change within the same tick of the coarse clock the
// directory's times come from would leave them as they are.
bool recently_changed(const struct ::stat& st) {
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const auto last = std::max(st.st_mtim.tv_sec, st.st_ctim.tv_sec);
  return now.tv_sec - last <= 1;
}

}  // namespace

void HardwareReader::check_mounts() const {
  if (!mounts_) {
    const int fd = ::open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      forget_descriptors();  // no way to tell: keep nothing
      return;
    }
    mounts_ = UniqueFd(fd);
  }
  struct pollfd p {
    mounts_.get(), POLLPRI, 0
  };
  // The kernel reports a change once, to the poll that sees it first (proc_namespace.c's
  // mounts_poll): the descriptor goes on watching from there.
  if (::poll(&p, 1, 0) != 0) forget_descriptors();
}

// A descriptor kept from before a mount may name what the mount now covers: every one is opened
// again through its path.
void HardwareReader::forget_descriptors() const {
  ++mounts_changed_;
  dirs_.clear();
  files_.clear();
  link_dirs_.clear();
}

void HardwareReader::mounts_checked(Seen& seen) const {
  if (seen.emplace("mounts", Evidence{}).second) check_mounts();
}

HardwareReader::Dir* HardwareReader::dir_now(const std::string& name, Seen& seen, bool fresh) const {
  mounts_checked(seen);
  auto it = dirs_.find(name);
  if (it == dirs_.end() || fresh) {
    auto fd = fs_.open_dir_fd(name);
    if (!fd) return nullptr;
    Dir opened;
    opened.fd = std::move(*fd);
    it = dirs_.insert_or_assign(name, std::move(opened)).first;
    seen.erase("dir" + name);
  }
  Dir& dir = it->second;
  if (seen.emplace("dir" + name, Evidence{}).second) {
    struct ::stat now {};
    if (::fstat(dir.fd.get(), &now) != 0 || now.st_nlink == 0) {
      dirs_.erase(it);
      return fresh ? nullptr : dir_now(name, seen, true);
    }
    if (!same_times(now, dir.seen)) dir.entries.clear();
    dir.seen = now;
    dir.settled = !recently_changed(now);
    if (!dir.settled) dir.entries.clear();
  }
  return &dir;
}

std::optional<struct ::stat> HardwareReader::lstat(const std::string& path, Seen& seen, Kept* kept) const {
  const auto slash = path.rfind('/');
  const std::string leaf = slash == std::string::npos ? path : path.substr(slash + 1);
  if (slash == std::string::npos || leaf.empty() || leaf == "." || leaf == "..") {
    if (kept) kept->whole = false;
    return fs_.lstat(path);
  }
  const std::string name = slash == 0 ? "/" : path.substr(0, slash);
  for (int attempt = 0; attempt < 2; ++attempt) {
    Dir* dir = dir_now(name, seen, attempt == 1);
    if (!dir) break;
    struct ::stat st {};
    auto entry = dir->entries.find(leaf);
    const bool found =
        entry != dir->entries.end() || ::fstatat(dir->fd.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (!found) continue;
    if (entry != dir->entries.end()) st = entry->second;
    if (dir->settled) dir->entries.emplace(leaf, st);
    if (kept) {
      kept->whole = kept->whole && dir->settled;
      if (std::none_of(kept->dirs.begin(), kept->dirs.end(), [&](const auto& d) { return d.first == name; }))
        kept->dirs.emplace_back(name, dir->seen);
    }
    return st;
  }
  if (kept) kept->whole = false;
  return std::nullopt;
}

Result<HardwareReader::Number> HardwareReader::number_of(const NodeRef& node, Seen& seen, Kept* kept) const {
  const auto type_of = [](const std::string& t) -> std::optional<char> {
    if (t == "c" || t == "u") return 'c';
    if (t == "b" || t == "p") return t[0];
    return std::nullopt;
  };
  const auto numbers = [&](char type, std::int64_t major, std::int64_t minor) -> Result<Number> {
    // The kernel's dev_t: 12 bits of major, 20 of minor.
    if (major < 0 || major >= (1 << 12) || minor < 0 || minor >= (1 << 20))
      return tl::unexpected(gone(node.path, "the spec gives it the device number " + std::to_string(major) + ":" +
                                                std::to_string(minor) + ", which no device has"));
    return Number{type, static_cast<unsigned>(major), static_cast<unsigned>(minor)};
  };
  const auto spec_type = type_of(node.type);
  if (!node.type.empty() && !spec_type)
    return tl::unexpected(gone(node.path, "the spec gives it the type \"" + node.type + "\""));
  if (spec_type && (node.major != 0 || *spec_type == 'p')) return numbers(*spec_type, node.major, node.minor);
  const auto st = lstat(node.path, seen, kept);
  if (!st) return tl::unexpected(missing(node.path));
  char type = 0;
  if (S_ISCHR(st->st_mode)) type = 'c';
  if (S_ISBLK(st->st_mode)) type = 'b';
  if (S_ISFIFO(st->st_mode)) type = 'p';
  if (S_ISLNK(st->st_mode))
    return tl::unexpected(gone(node.path,
                               "it is a link, which the runtime refuses as a device node (map the node "
                               "itself)"));
  if (!type) return tl::unexpected(gone(node.path, "it is no device node"));
  if (spec_type && *spec_type != type)
    return tl::unexpected(gone(node.path, "the spec says type " + node.type + " and the node is another type"));
  if (node.major != 0) return numbers(type, node.major, node.minor);
  return Number{type, ::major(st->st_rdev), ::minor(st->st_rdev)};
}

Result<HardwareReader::Found> HardwareReader::cached(const NodeRef& node, Seen& seen, Kept* kept) const {
  RGPU_TRY_ASSIGN(const Number n, number_of(node, seen, kept));
  const std::string key = std::string(1, n.type) + std::to_string(n.major) + ":" + std::to_string(n.minor);
  const auto keep = [kept](const std::vector<Evidence>& evidence) {
    if (!kept) return;
    for (const auto& e : evidence) {
      if (std::find(kept->evidence.begin(), kept->evidence.end(), e) == kept->evidence.end())
        kept->evidence.push_back(e);
    }
  };
  if (auto it = answers_.find(key); it != answers_.end()) {
    const auto& ev = it->second.evidence;
    const auto& a = it->second;
    if (std::all_of(ev.begin(), ev.end(), [&](const Evidence& e) { return still_holds(e, seen); })) {
      keep(ev);
      return Found{a.role, *a.identity, a.card};
    }
    answers_.erase(it);
  }
  auto answer = derive(n, node.path);
  // What was read now is what every other answer of this call is compared with.
  for (const auto& e : answer.evidence) seen.insert_or_assign(evidence_key(e), e);
  if (!answer.identity) return tl::unexpected(answer.identity.error());  // looked at afresh each time
  keep(answer.evidence);
  Found found{answer.role, *answer.identity, answer.card};
  answers_.insert_or_assign(key, std::move(answer));
  return found;
}

Result<std::string> HardwareReader::identity(const std::string& node) const {
  const std::lock_guard hold(mutex_);
  Seen seen;
  RGPU_TRY_ASSIGN(const Found a, cached({node, "", 0, 0}, seen, nullptr));
  if (a.role == Role::other || a.role == Role::shared)
    return tl::unexpected(gone(node, "it is no GPU's own device node"));
  return a.identity;
}

Result<Reach> HardwareReader::reach(const std::vector<NodeRef>& nodes) const {
  ReachMemo memo;
  return reach(nodes, memo);
}

bool HardwareReader::memo_holds(const ReachMemo& memo, Seen& seen) const {
  if (!memo.kept) return false;
  mounts_checked(seen);
  // A node mounted over another leaves its directory as it was.
  if (memo.kept->mounts_changed != mounts_changed_) return false;
  for (const auto& [name, then] : memo.kept->dirs) {
    const Dir* dir = dir_now(name, seen, false);
    if (!dir || !dir->settled || !same_times(dir->seen, then)) return false;
  }
  return std::all_of(memo.kept->evidence.begin(), memo.kept->evidence.end(),
                     [&](const Evidence& e) { return still_holds(e, seen); });
}

Result<Reach> HardwareReader::reach(const std::vector<NodeRef>& nodes, ReachMemo& memo) const {
  const std::lock_guard hold(mutex_);
  Seen seen;
  if (memo_holds(memo, seen)) return memo.reach;
  memo.kept.reset();
  auto kept = std::make_shared<Kept>();
  mounts_checked(seen);
  kept->mounts_changed = mounts_changed_;
  std::vector<Found> found;
  for (const auto& n : nodes) {
    RGPU_TRY_ASSIGN(auto a, cached(n, seen, kept.get()));
    found.push_back(std::move(a));
  }
  // A name that maps MIG capability nodes reaches slices; the /dev/nvidiaN it maps with them is
  // the parent every slice opens, not the GPU whole.
  const bool slices = std::any_of(found.begin(), found.end(), [](const Found& a) { return a.role == Role::slice; });
  Reach out;
  for (auto& a : found) {
    if (a.role != Role::gpu && a.role != Role::slice && (a.role != Role::parent || slices)) continue;
    out.identities.push_back(std::move(a.identity));
    if (!a.card.empty()) out.cards.push_back(std::move(a.card));
  }
  for (auto* list : {&out.identities, &out.cards}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  if (kept->whole) {
    memo.reach = out;
    memo.kept = std::move(kept);
  }
  return out;
}

Result<std::vector<std::string>> HardwareReader::identities(const std::vector<NodeRef>& nodes) const {
  RGPU_TRY_ASSIGN(auto r, reach(nodes));
  return std::move(r.identities);
}

Result<std::vector<std::string>> HardwareReader::identities(const std::vector<std::string>& nodes) const {
  return identities(node_refs(nodes));
}

bool identity_covers(std::string_view granted, std::string_view now) {
  return now == granted || (now.size() > granted.size() && now.starts_with(granted) && now[granted.size()] == '/');
}

std::string identity_card(std::string_view identity) { return std::string(identity.substr(0, identity.find('/'))); }

}  // namespace rgpu::probe
