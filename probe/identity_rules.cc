#include "probe/identity_rules.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/ascii_case.h"
#include "probe/sysfs_parsers.h"

namespace rgpu::probe::identity {

Error unknown_hardware(const std::string& node, const std::string& why) {
  return Error{"cannot tell which hardware " + node + " reaches: " + why +
               "; check that the GPU is still there (rediacc-gpu doctor) and run rediacc-gpu setup."};
}

std::string Evidence::key() const { return std::to_string(static_cast<int>(kind)) + path; }

std::string DeviceNumber::key() const {
  return std::string(1, type) + std::to_string(major) + ":" + std::to_string(minor);
}

Evidence read_evidence(const RootFs& fs, Evidence::Kind kind, const std::string& path) {
  Evidence e{kind, path, Evidence::State::absent, ""};
  const auto set = [&e](std::string text) {
    e.state = Evidence::State::present;
    e.value = std::move(text);
  };
  switch (kind) {
    case Evidence::Kind::link: {
      char buf[4096];
      const auto n = ::readlink(fs.host_path(path).c_str(), buf, sizeof buf);
      if (n > 0 && static_cast<size_t>(n) < sizeof buf) set(std::string(buf, static_cast<size_t>(n)));
      break;
    }
    case Evidence::Kind::file: {
      auto text = fs.read_optional(path);
      if (!text) {
        e.state = Evidence::State::unreadable;
        e.value = text.error().message;
      } else if (*text) {
        set(std::move(**text));
      }
      break;
    }
    case Evidence::Kind::listing: {
      if (auto names = fs.list_dir(path)) {
        std::string all;
        for (const auto& n : *names) all.append(n).push_back('\n');
        set(std::move(all));
      }
      break;
    }
  }
  return e;
}

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
  return unknown_hardware(node, "it is not on this machine");
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

Result<std::string> nvidia(const RootFs& fs, unsigned minor, Answer& a) {
  auto& ev = a.evidence;
  const std::string node = "/dev/nvidia" + std::to_string(minor);
  auto dirs = fs.list_dir(kNvidiaGpus);
  if (!dirs) return tl::unexpected(unknown_hardware(node, dirs.error().message));
  for (const auto& dir : *dirs) {
    auto e = read_evidence(fs, Evidence::Kind::file, std::string(kNvidiaGpus) + "/" + dir + "/information");
    if (!e.present()) continue;
    auto uuid = uuid_for_minor(e.value, minor);
    if (!uuid) continue;
    ev.push_back(std::move(e));
    a.card = dir;
    // No UUID (an old driver): the directory is the GPU's PCI address.
    return uuid->empty() ? dir : *uuid;
  }
  return tl::unexpected(unknown_hardware(
      node, "no GPU in " + fs.host_path(kNvidiaGpus).string() + " has Device Minor " + std::to_string(minor)));
}

Result<std::string> partition(const RootFs& fs, const std::string& node, const std::string& device_dir,
                              const std::string& name, Answer& a);

// A DRM node by its minor: the kernel's link for the number (/sys/dev/char/226:M) says which
// device it is; a tree without one (an older sysfs, a fixture) has the class link of the name the
// minor is given (card M, renderD M).
Result<std::string> drm(const RootFs& fs, const std::string& node, const DeviceNumber& n, Answer& a) {
  auto& ev = a.evidence;
  const unsigned minor = n.minor;
  std::string link = "/sys/dev/char/" + std::to_string(n.major) + ":" + std::to_string(minor);
  if (ev.empty() || ev.back().path != link) ev.push_back(read_evidence(fs, Evidence::Kind::link, link));
  if (!ev.back().present() && n.major == kDrmMajor) {
    link = std::string("/sys/class/drm/") + (minor >= 128 ? "renderD" : "card") + std::to_string(minor);
    ev.push_back(read_evidence(fs, Evidence::Kind::link, link));
  }
  const auto& back = ev.back();
  if (!back.present())
    return tl::unexpected(unknown_hardware(node, fs.host_path(link).string() + " is no link to a device"));
  // sysfs links are relative and reach real directories: the text says where the device is.
  const std::filesystem::path target =
      (back.value.starts_with('/') ? std::filesystem::path(back.value)
                                   : std::filesystem::path(link).parent_path() / back.value)
          .lexically_normal();
  const std::string name = target.filename().string();
  if (target.parent_path().filename() != "drm" || target.parent_path().parent_path().empty() ||
      (!name.starts_with("renderD") && !name.starts_with("card")))
    return tl::unexpected(
        unknown_hardware(node, fs.host_path(link).string() + " points at " + back.value + ", no DRM device"));
  const std::string device_dir = target.parent_path().parent_path().string();
  const auto address = canonical_pci_address(device_dir.substr(device_dir.rfind('/') + 1));
  if (!address) return partition(fs, node, device_dir, name, a);
  a.card = *address;
  ev.push_back(read_evidence(fs, Evidence::Kind::file, std::string(kNvidiaGpus) + "/" + *address + "/information"));
  if (ev.back().present()) {
    const auto fields = parse_colon_pairs(ev.back().value);
    if (auto u = fields.find("GPU UUID"); u != fields.end() && !u->second.empty()) return u->second;
  }
  // A partitioned MI300 card's own nodes are its partition 0.
  ev.push_back(read_evidence(fs, Evidence::Kind::file, device_dir + "/current_compute_partition"));
  const auto& mode = ev.back();
  if (mode.present() && !mode.value.empty() && ascii_lowered(mode.value) != "spx")
    return *address + "/" + ascii_lowered(mode.value) + "0";
  return *address;
}

// A node owned by an amdgpu_xcp platform device: the KFD topology node with its render minor
// says the card (location_id) and the partition (the function bits of a CPX location).
Result<std::string> partition(const RootFs& fs, const std::string& node, const std::string& device_dir,
                              const std::string& name, Answer& a) {
  auto& ev = a.evidence;
  auto render = number_after(name, "renderD");
  if (!render) {
    ev.push_back(read_evidence(fs, Evidence::Kind::listing, device_dir + "/drm"));
    std::string_view names = ev.back().present() ? std::string_view(ev.back().value) : std::string_view();
    for (size_t at = 0; !render && at < names.size();) {
      const auto end = names.find('\n', at);
      render = number_after(names.substr(at, end - at), "renderD");
      at = end + 1;
    }
  }
  if (!render)
    return tl::unexpected(
        unknown_hardware(node, "its device " + fs.host_path(device_dir).string() + " has no render node"));
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
  auto nodes = fs.list_dir(kKfdNodes);
  for (const auto& n : nodes ? *nodes : std::vector<std::string>{}) {
    auto e = read_evidence(fs, Evidence::Kind::file, std::string(kKfdNodes) + "/" + n + "/properties");
    if (!e.present() || !(address = location(e.value))) continue;
    ev.push_back(std::move(e));
    break;
  }
  if (!address)
    return tl::unexpected(unknown_hardware(node, "no KFD topology node has render minor " + std::to_string(*render)));
  const std::string card = address->substr(0, address->size() - 1) + "0";
  const std::string index = address->substr(address->size() - 1);
  a.card = card;
  ev.push_back(read_evidence(fs, Evidence::Kind::file, "/sys/bus/pci/devices/" + card + "/current_compute_partition"));
  const auto& mode = ev.back();
  const std::string kind = mode.present() && !mode.value.empty() ? ascii_lowered(mode.value) : "partition";
  return card + "/" + kind + index;
}

Result<std::string> mig(const RootFs& fs, const std::string& node, unsigned cap_minor, Answer& a) {
  auto& ev = a.evidence;
  ev.push_back(read_evidence(fs, Evidence::Kind::file, std::string(kMigMinors)));
  if (!ev.back().present())
    return tl::unexpected(unknown_hardware(node, fs.host_path(kMigMinors).string() + " cannot be read"));
  for (const auto& [cap, minor] : parse_mig_minors(ev.back().value)) {
    if (minor != cap_minor) continue;
    auto slice = mig_capability(cap);
    if (!slice) break;  // config or monitor: every GPU's, never a slice
    RGPU_TRY_ASSIGN(auto gpu, nvidia(fs, slice->first, a));
    return gpu + slice->second;
  }
  return tl::unexpected(
      unknown_hardware(node, "it is no MIG slice's capability in " + fs.host_path(kMigMinors).string()));
}

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

Result<std::string> driver_name(const RootFs& fs, const DeviceNumber& n, const std::string& node,
                                std::vector<Evidence>& ev) {
  const bool misc = n.type == 'c' && n.major == kMiscMajor;
  const std::string table = misc ? "/proc/misc" : "/proc/devices";
  ev.push_back(read_evidence(fs, Evidence::Kind::file, table));
  if (!ev.back().present())
    return tl::unexpected(unknown_hardware(node, "its device number " + std::to_string(n.major) + ":" +
                                                     std::to_string(n.minor) + " cannot be looked up, " +
                                                     fs.host_path(table).string() + " cannot be read"));
  const auto name = misc ? misc_name(ev.back().value, n.minor) : listed_driver(ev.back().value, n.type, n.major);
  return name.value_or("");
}

}  // namespace

Answer derive(const RootFs& fs, const DeviceNumber& n, const std::string& node) {
  Answer a{Role::other, std::string(), {}, {}};
  if (n.type != 'c') return a;  // block devices and fifos are no GPU's
  if (n.major == kNvidiaMajor) {
    if (n.minor >= 254) {
      a.role = Role::shared;  // nvidia-modeset, nvidiactl
    } else {
      a.role = Role::parent;
      a.identity = nvidia(fs, n.minor, a);
    }
    return a;
  }
  if (n.major == kDrmMajor) {
    a.role = Role::gpu;
    a.identity = drm(fs, node, n, a);
    return a;
  }
  // A dynamic major by the name its driver registered (one read a request for every such node).
  auto driver = driver_name(fs, n, node, a.evidence);
  if (driver) {
    if (*driver == "dxg") {
      a.role = Role::gpu;
      a.identity = std::string("wsl");
      return a;
    }
    if (*driver == "nvidia-caps") {
      a.role = Role::slice;
      a.identity = mig(fs, node, n.minor, a);
      return a;
    }
    if (*driver == "nvidia-uvm" || *driver == "kfd" || *driver == "nvidia-caps-imex-channels") {
      a.role = Role::shared;
      return a;
    }
    if (*driver == "fb" || *driver == "accel" || *driver == "nvidia-nvswitch" || *driver == "nvidia-nvlink") {
      // A GPU's framebuffer, an accelerator or NVIDIA's fabric: hardware, but no identity says whose.
      a.role = Role::gpu;
      a.identity =
          tl::unexpected(unknown_hardware(node, "it is a " + *driver + " device, whose GPU the gate cannot tell"));
      return a;
    }
  }
  // Any other number: the kernel's link for it says whether it is a DRM node after all.
  auto e = read_evidence(fs, Evidence::Kind::link,
                         "/sys/dev/char/" + std::to_string(n.major) + ":" + std::to_string(n.minor));
  const bool drm_number = e.present() && std::filesystem::path(e.value).parent_path().filename() == "drm";
  a.evidence.push_back(std::move(e));
  if (drm_number) {
    a.role = Role::gpu;
    a.identity = drm(fs, node, n, a);
  } else if (!driver) {
    a.identity = tl::unexpected(driver.error());  // fail closed: what the number is cannot be told
  }
  return a;
}

namespace {

std::optional<char> spec_type(const std::string& t) {
  if (t == "c" || t == "u") return 'c';
  if (t == "b" || t == "p") return t[0];
  return std::nullopt;
}

Result<DeviceNumber> spec_numbers(const NodeRef& node, char type) {
  // The kernel's dev_t: 12 bits of major, 20 of minor.
  if (node.major < 0 || node.major >= (1 << 12) || node.minor < 0 || node.minor >= (1 << 20))
    return tl::unexpected(unknown_hardware(node.path, "the spec gives it the device number " +
                                                          std::to_string(node.major) + ":" +
                                                          std::to_string(node.minor) + ", which no device has"));
  return DeviceNumber{type, static_cast<unsigned>(node.major), static_cast<unsigned>(node.minor)};
}

}  // namespace

std::optional<Result<DeviceNumber>> spec_number(const NodeRef& node) {
  const auto type = spec_type(node.type);
  if (!node.type.empty() && !type)
    return tl::unexpected(unknown_hardware(node.path, "the spec gives it the type \"" + node.type + "\""));
  if (type && (node.major != 0 || *type == 'p')) return spec_numbers(node, *type);
  return std::nullopt;
}

Result<DeviceNumber> host_number(const NodeRef& node, const std::optional<struct ::stat>& st) {
  if (!st) return tl::unexpected(missing(node.path));
  char type = 0;
  if (S_ISCHR(st->st_mode)) type = 'c';
  if (S_ISBLK(st->st_mode)) type = 'b';
  if (S_ISFIFO(st->st_mode)) type = 'p';
  if (S_ISLNK(st->st_mode))
    return tl::unexpected(unknown_hardware(node.path,
                                           "it is a link, which the runtime refuses as a device node (map the node "
                                           "itself)"));
  if (!type) return tl::unexpected(unknown_hardware(node.path, "it is no device node"));
  const auto given = spec_type(node.type);
  if (given && *given != type)
    return tl::unexpected(
        unknown_hardware(node.path, "the spec says type " + node.type + " and the node is another type"));
  if (node.major != 0) return spec_numbers(node, type);
  return DeviceNumber{type, ::major(st->st_rdev), ::minor(st->st_rdev)};
}

Reach reach_of(std::vector<Found> found) {
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
  return out;
}
}  // namespace rgpu::probe::identity
