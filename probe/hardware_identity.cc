#include "probe/hardware_identity.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>

#include <sys/stat.h>
#include <unistd.h>

#include "probe/sysfs_parsers.h"

namespace rgpu::probe {
namespace {

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

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

Error gone(const std::string& node, const std::string& why) {
  return Error{"cannot tell which hardware " + node + " reaches: " + why +
               "; check that the GPU is still there (rediacc-gpu doctor) and run rediacc-gpu setup."};
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

HardwareReader::Evidence HardwareReader::read(Evidence::Kind kind, const std::string& path) const {
  Evidence e{kind, path, std::nullopt};
  switch (kind) {
    case Evidence::Kind::link: {
      char buf[4096];
      const auto n = ::readlink(fs_.host_path(path).c_str(), buf, sizeof buf);
      if (n > 0 && static_cast<size_t>(n) < sizeof buf) e.value = std::string(buf, static_cast<size_t>(n));
      break;
    }
    case Evidence::Kind::file: {
      auto text = fs_.read_optional(path);
      if (!text) {
        e.value = "\x01" + text.error().message;  // unreadable: no file's text, and told apart from absent
      } else if (*text) {
        e.value = **text;
      }
      break;
    }
    case Evidence::Kind::listing: {
      if (auto names = fs_.list_dir(path)) {
        std::string all;
        for (const auto& n : *names) all.append(n).push_back('\n');
        e.value = std::move(all);
      }
      break;
    }
  }
  return e;
}

std::optional<std::optional<std::string>> HardwareReader::reread(const std::string& path) const {
  auto it = files_.find(path);
  if (it == files_.end()) {
    auto fd = fs_.open_read(path);
    if (!fd) return std::nullopt;
    it = files_.emplace(path, std::move(*fd)).first;
  }
  struct stat st {};
  std::string text(4096, '\0');
  const auto n = ::pread(it->second.get(), text.data(), text.size(), 0);
  if (n < 0 || static_cast<size_t>(n) == text.size() || ::fstat(it->second.get(), &st) != 0 || st.st_nlink == 0) {
    files_.erase(it);
    return std::nullopt;
  }
  text.resize(static_cast<size_t>(n));
  auto trimmed = trimmed_if_present(std::move(text));
  if (!trimmed) return std::nullopt;
  return *trimmed;
}

bool HardwareReader::still_holds(const Evidence& e, Seen& seen) const {
  const std::string key = std::to_string(static_cast<int>(e.kind)) + e.path;
  if (auto it = seen.find(key); it != seen.end()) return it->second;
  std::optional<std::optional<std::string>> again;
  if (e.kind == Evidence::Kind::file && e.value) again = reread(e.path);
  const bool holds = (again ? *again : read(e.kind, e.path).value) == e.value;
  seen.emplace(key, holds);
  return holds;
}

Result<std::string> HardwareReader::nvidia(unsigned minor, std::vector<Evidence>& ev) const {
  const std::string node = "/dev/nvidia" + std::to_string(minor);
  auto dirs = fs_.list_dir(kNvidiaGpus);
  if (!dirs) return tl::unexpected(gone(node, dirs.error().message));
  for (const auto& dir : *dirs) {
    auto e = read(Evidence::Kind::file, std::string(kNvidiaGpus) + "/" + dir + "/information");
    if (!e.value) continue;
    auto uuid = uuid_for_minor(*e.value, minor);
    if (!uuid) continue;
    ev.push_back(std::move(e));
    // No UUID (an old driver): the directory is the GPU's PCI address.
    return uuid->empty() ? dir : *uuid;
  }
  return tl::unexpected(
      gone(node, "no GPU in " + fs_.host_path(kNvidiaGpus).string() + " has Device Minor " + std::to_string(minor)));
}

Result<std::string> HardwareReader::drm(const std::string& name, std::vector<Evidence>& ev) const {
  const std::string node = "/dev/dri/" + name;
  const std::string link = "/sys/class/drm/" + name;
  ev.push_back(read(Evidence::Kind::link, link));
  const auto& text = ev.back().value;
  if (!text) return tl::unexpected(gone(node, fs_.host_path(link).string() + " is no link to a device"));
  // sysfs links are relative and reach real directories: the text says where the device is.
  const std::string target =
      std::filesystem::path(text->starts_with('/') ? *text : "/sys/class/drm/" + *text).lexically_normal().string();
  const std::string own = "/drm/" + name;
  if (!target.ends_with(own) || target.size() <= own.size())
    return tl::unexpected(gone(node, fs_.host_path(link).string() + " points at " + *text + ", no DRM device"));
  const std::string device_dir = target.substr(0, target.size() - own.size());
  const auto address = canonical_pci_address(device_dir.substr(device_dir.rfind('/') + 1));
  if (!address) return partition(node, device_dir, name, ev);
  ev.push_back(read(Evidence::Kind::file, std::string(kNvidiaGpus) + "/" + *address + "/information"));
  if (const auto& info = ev.back().value) {
    const auto fields = parse_colon_pairs(*info);
    if (auto u = fields.find("GPU UUID"); u != fields.end() && !u->second.empty()) return u->second;
  }
  // A partitioned MI300 card's own nodes are its partition 0.
  ev.push_back(read(Evidence::Kind::file, device_dir + "/current_compute_partition"));
  const auto& mode = ev.back().value;
  if (mode && !mode->empty() && !mode->starts_with('\x01') && lower(*mode) != "spx")
    return *address + "/" + lower(*mode) + "0";
  return *address;
}

// A node owned by an amdgpu_xcp platform device: the KFD topology node with its render minor
// says the card (location_id) and the partition (the function bits of a CPX location).
Result<std::string> HardwareReader::partition(const std::string& node, const std::string& device_dir,
                                              const std::string& name, std::vector<Evidence>& ev) const {
  auto render = number_after(name, "renderD");
  if (!render) {
    ev.push_back(read(Evidence::Kind::listing, device_dir + "/drm"));
    std::string_view names = ev.back().value ? std::string_view(*ev.back().value) : std::string_view();
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
    if (!e.value || !(address = location(*e.value))) continue;
    ev.push_back(std::move(e));
    break;
  }
  if (!address) return tl::unexpected(gone(node, "no KFD topology node has render minor " + std::to_string(*render)));
  const std::string card = address->substr(0, address->size() - 1) + "0";
  const std::string index = address->substr(address->size() - 1);
  ev.push_back(read(Evidence::Kind::file, "/sys/bus/pci/devices/" + card + "/current_compute_partition"));
  const auto& mode = ev.back().value;
  const std::string kind = mode && !mode->empty() && !mode->starts_with('\x01') ? lower(*mode) : "partition";
  return card + "/" + kind + index;
}

Result<std::string> HardwareReader::mig(const std::string& node, unsigned cap_minor, std::vector<Evidence>& ev) const {
  ev.push_back(read(Evidence::Kind::file, std::string(kMigMinors)));
  if (!ev.back().value || ev.back().value->starts_with('\x01'))
    return tl::unexpected(gone(node, fs_.host_path(kMigMinors).string() + " cannot be read"));
  for (const auto& [cap, minor] : parse_mig_minors(*ev.back().value)) {
    if (minor != cap_minor) continue;
    auto slice = mig_capability(cap);
    if (!slice) break;  // config or monitor: every GPU's, never a slice
    RGPU_TRY_ASSIGN(auto gpu, nvidia(slice->first, ev));
    return gpu + slice->second;
  }
  return tl::unexpected(gone(node, "it is no MIG slice's capability in " + fs_.host_path(kMigMinors).string()));
}

HardwareReader::Answer HardwareReader::derive(const std::string& node) const {
  Answer a{fail(""), {}};
  if (node == "/dev/dxg") {
    a.identity = std::string("wsl");
  } else if (auto cap = number_after(node, "/dev/nvidia-caps/nvidia-cap")) {
    a.identity = mig(node, *cap, a.evidence);
  } else if (auto minor = number_after(node, "/dev/nvidia")) {
    a.identity = nvidia(*minor, a.evidence);
  } else if (number_after(node, "/dev/dri/renderD") || number_after(node, "/dev/dri/card")) {
    a.identity = drm(node.substr(9), a.evidence);
  } else {
    a.identity = tl::unexpected(gone(node, "it is no GPU's own device node"));
  }
  return a;
}

Result<std::string> HardwareReader::cached(const std::string& node, Seen& seen) const {
  const std::lock_guard hold(mutex_);
  if (auto it = answers_.find(node); it != answers_.end()) {
    const auto& ev = it->second.evidence;
    if (std::all_of(ev.begin(), ev.end(), [&](const Evidence& e) { return still_holds(e, seen); }))
      return it->second.identity;
    answers_.erase(it);
  }
  auto answer = derive(node);
  // Evidence read now holds for the rest of this call.
  for (const auto& e : answer.evidence) seen[std::to_string(static_cast<int>(e.kind)) + e.path] = true;
  auto identity = answer.identity;
  if (identity) answers_.emplace(node, std::move(answer));  // a failure is looked at afresh each time
  return identity;
}

Result<std::string> HardwareReader::identity(const std::string& node) const {
  Seen seen;
  return cached(node, seen);
}

Result<std::vector<std::string>> HardwareReader::identities(const std::vector<std::string>& nodes) const {
  // A name that maps MIG capability nodes reaches slices; the /dev/nvidiaN it maps with them is
  // the parent every slice opens, not the GPU whole.
  const bool slices = std::any_of(nodes.begin(), nodes.end(),
                                  [](const std::string& n) { return number_after(n, "/dev/nvidia-caps/nvidia-cap"); });
  std::vector<std::string> out;
  Seen seen;
  for (const auto& n : nodes) {
    const bool own = n == "/dev/dxg" || number_after(n, "/dev/nvidia-caps/nvidia-cap") ||
                     number_after(n, "/dev/dri/renderD") || number_after(n, "/dev/dri/card") ||
                     (!slices && number_after(n, "/dev/nvidia"));
    if (!own) continue;
    RGPU_TRY_ASSIGN(auto id, cached(n, seen));
    out.push_back(std::move(id));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool identity_covers(std::string_view granted, std::string_view now) {
  return now == granted || (now.size() > granted.size() && now.starts_with(granted) && now[granted.size()] == '/');
}

std::string identity_card(std::string_view identity) { return std::string(identity.substr(0, identity.find('/'))); }

}  // namespace rgpu::probe
