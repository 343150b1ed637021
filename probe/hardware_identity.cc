#include "probe/hardware_identity.h"

#include <algorithm>
#include <cctype>
#include <optional>

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

std::string HardwareReader::hint(const std::map<unsigned, std::string>& hints, unsigned key) const {
  const std::lock_guard hold(mutex_);
  const auto it = hints.find(key);
  return it == hints.end() ? std::string() : it->second;
}

void HardwareReader::remember(std::map<unsigned, std::string>& hints, unsigned key, const std::string& value) const {
  const std::lock_guard hold(mutex_);
  hints[key] = value;
}

// The information file that named this minor last time is read first: one read when the GPUs
// did not move, the whole directory when they did.
Result<std::string> HardwareReader::nvidia(unsigned minor) const {
  const std::string node = "/dev/nvidia" + std::to_string(minor);
  const auto answer = [&](const std::string& file, const std::string& uuid) -> std::string {
    remember(nvidia_dir_, minor, file);
    if (!uuid.empty()) return uuid;
    // No UUID (an old driver): the directory is the GPU's PCI address.
    const auto dir = file.substr(0, file.rfind('/'));
    return dir.substr(dir.rfind('/') + 1);
  };
  if (auto file = hint(nvidia_dir_, minor); !file.empty()) {
    if (auto text = fs_.read_optional(file); text && *text) {
      if (auto uuid = uuid_for_minor(**text, minor)) return answer(file, *uuid);
    }
  }
  auto dirs = fs_.list_dir(kNvidiaGpus);
  if (!dirs) return tl::unexpected(gone(node, dirs.error().message));
  for (const auto& dir : *dirs) {
    const std::string file = std::string(kNvidiaGpus) + "/" + dir + "/information";
    auto text = fs_.read_optional(file);
    if (!text || !*text) continue;
    if (auto uuid = uuid_for_minor(**text, minor)) return answer(file, *uuid);
  }
  return tl::unexpected(
      gone(node, "no GPU in " + fs_.host_path(kNvidiaGpus).string() + " has Device Minor " + std::to_string(minor)));
}

Result<std::string> HardwareReader::drm(const std::string& name) const {
  const std::string node = "/dev/dri/" + name;
  const std::string link = "/sys/class/drm/" + name;
  auto resolved = fs_.resolve(link);
  const std::string own = "/drm/" + name;
  if (!resolved || !resolved->ends_with(own) || fs_.kind(*resolved) != NodeKind::directory)
    return tl::unexpected(gone(node, fs_.host_path(link).string() + " does not lead to a device"));
  const std::string device_dir = resolved->substr(0, resolved->size() - own.size());
  const std::string device = device_dir.substr(device_dir.rfind('/') + 1);
  const auto address = canonical_pci_address(device);
  if (!address) return partition(node, device_dir, name);
  auto info = fs_.read_optional(std::string(kNvidiaGpus) + "/" + *address + "/information");
  if (info && *info) {
    const auto fields = parse_colon_pairs(**info);
    if (auto u = fields.find("GPU UUID"); u != fields.end() && !u->second.empty()) return u->second;
  }
  // A partitioned MI300 card's own nodes are its partition 0.
  auto mode = fs_.read_optional(device_dir + "/current_compute_partition");
  if (mode && *mode && !(*mode)->empty() && lower(**mode) != "spx") return *address + "/" + lower(**mode) + "0";
  return *address;
}

// A node owned by an amdgpu_xcp platform device: the KFD topology node with its render minor
// says the card (location_id) and the partition (the function bits of a CPX location).
Result<std::string> HardwareReader::partition(const std::string& node, const std::string& device_dir,
                                              const std::string& name) const {
  auto render = number_after(name, "renderD");
  if (!render) {
    auto names = fs_.list_dir(device_dir + "/drm");
    if (names) {
      for (const auto& n : *names) {
        if ((render = number_after(n, "renderD"))) break;
      }
    }
  }
  if (!render)
    return tl::unexpected(gone(node, "its device " + fs_.host_path(device_dir).string() + " has no render node"));
  const auto matches = [&](const std::string& file) -> std::optional<std::string> {
    auto text = fs_.read_optional(file);
    if (!text || !*text) return std::nullopt;
    const auto props = parse_space_pairs(**text);
    const auto minor = props.find("drm_render_minor");
    const auto location = props.find("location_id");
    if (minor == props.end() || location == props.end() || parse_decimal_attribute(minor->second) != *render)
      return std::nullopt;
    const auto domain = props.find("domain");
    const auto loc = parse_decimal_attribute(location->second);
    const auto dom = domain == props.end() ? std::optional<std::uint64_t>(0) : parse_decimal_attribute(domain->second);
    if (!loc || !dom) return std::nullopt;
    return kfd_pci_address(static_cast<std::uint32_t>(*dom), static_cast<std::uint32_t>(*loc));
  };
  std::optional<std::string> address;
  if (auto file = hint(kfd_node_, *render); !file.empty()) address = matches(file);
  if (!address) {
    auto nodes = fs_.list_dir(kKfdNodes);
    for (const auto& n : nodes ? *nodes : std::vector<std::string>{}) {
      const std::string file = std::string(kKfdNodes) + "/" + n + "/properties";
      if ((address = matches(file))) {
        remember(kfd_node_, *render, file);
        break;
      }
    }
  }
  if (!address) return tl::unexpected(gone(node, "no KFD topology node has render minor " + std::to_string(*render)));
  const std::string card = address->substr(0, address->size() - 1) + "0";
  const std::string index = address->substr(address->size() - 1);
  auto mode = fs_.read_optional("/sys/bus/pci/devices/" + card + "/current_compute_partition");
  const std::string kind = mode && *mode && !(*mode)->empty() ? lower(**mode) : "partition";
  return card + "/" + kind + index;
}

Result<std::string> HardwareReader::mig(const std::string& node, unsigned cap_minor) const {
  auto text = fs_.read_optional(kMigMinors);
  if (!text || !*text) return tl::unexpected(gone(node, fs_.host_path(kMigMinors).string() + " cannot be read"));
  for (const auto& [cap, minor] : parse_mig_minors(**text)) {
    if (minor != cap_minor) continue;
    auto slice = mig_capability(cap);
    if (!slice) break;  // config or monitor: every GPU's, never a slice
    RGPU_TRY_ASSIGN(auto gpu, nvidia(slice->first));
    return gpu + slice->second;
  }
  return tl::unexpected(gone(node, "it is no MIG slice's capability in " + fs_.host_path(kMigMinors).string()));
}

Result<std::string> HardwareReader::identity(const std::string& node) const {
  if (node == "/dev/dxg") return std::string("wsl");
  if (auto cap = number_after(node, "/dev/nvidia-caps/nvidia-cap")) return mig(node, *cap);
  if (auto minor = number_after(node, "/dev/nvidia")) return nvidia(*minor);
  if (node.starts_with("/dev/dri/") && (number_after(node, "/dev/dri/renderD") || number_after(node, "/dev/dri/card")))
    return drm(node.substr(9));
  return tl::unexpected(gone(node, "it is no GPU's own device node"));
}

Result<std::vector<std::string>> HardwareReader::identities(const std::vector<std::string>& nodes) const {
  // A name that maps MIG capability nodes reaches slices; the /dev/nvidiaN it maps with them is
  // the parent every slice opens, not the GPU whole.
  const bool slices = std::any_of(nodes.begin(), nodes.end(),
                                  [](const std::string& n) { return number_after(n, "/dev/nvidia-caps/nvidia-cap"); });
  std::vector<std::string> out;
  for (const auto& n : nodes) {
    const bool own = n == "/dev/dxg" || number_after(n, "/dev/nvidia-caps/nvidia-cap") ||
                     number_after(n, "/dev/dri/renderD") || number_after(n, "/dev/dri/card") ||
                     (!slices && number_after(n, "/dev/nvidia"));
    if (!own) continue;
    RGPU_TRY_ASSIGN(auto id, identity(n));
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
