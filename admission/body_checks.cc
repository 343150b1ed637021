#include "admission/body_checks.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "cdi-gen/spec_index.h"

namespace rgpu::admission {
namespace {

constexpr const char* kCdiForm =
    "ask for devices by CDI name: docker run --device nvidia.com/gpu=all (Compose: devices: [nvidia.com/gpu=all])";

// The CDI name that reaches a raw device path, for the message.
std::string cdi_form_for(const std::string& path) {
  if (path.rfind("/dev/dri/renderD", 0) == 0) return "--device rediacc.io/dri=" + path.substr(9);
  if (path == "/dev/kfd") return "--device rediacc.io/amd=gpu0";
  if (path.rfind("/dev/nvidia", 0) == 0 && path.size() > 11 && std::isdigit(static_cast<unsigned char>(path[11]))) {
    return "--device nvidia.com/gpu=" + path.substr(11);
  }
  return "--device rediacc.io/dri=renderD128 or --device rediacc.io/amd=gpu0";
}

bool qualified_cdi_name(const std::string& name) {
  const auto eq = name.find('=');
  const auto slash = name.find('/');
  if (eq == std::string::npos || slash == std::string::npos || slash > eq) return false;
  return cdi::valid_vendor(name.substr(0, slash)) && cdi::valid_class(name.substr(slash + 1, eq - slash - 1)) &&
         cdi::valid_device_name(name.substr(eq + 1));
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

bool under_host_hardware(const std::string& source) {
  const std::string p = clean_path(source);
  for (const char* root : {"/dev", "/sys", "/run/udev"}) {
    const std::string r = root;
    if (p == r || p.rfind(r + "/", 0) == 0) return true;
  }
  return p == "/" || p == "/run";  // a bind of a parent carries those directories along
}

std::optional<std::string> check_cdi_request(const GoValue& req, LazyGrants& grants, const std::string& repo) {
  const auto count = req.field("Count");
  const auto options = req.field("Options");
  const auto ids = req.field("DeviceIDs");
  if (count && !count->is_empty())
    return "refused: a CDI device request with a Count; name the devices instead: --device VENDOR/CLASS=NAME.";
  if (options && !options->is_empty()) return "refused: a CDI device request with Options, which CDI does not take.";
  if (!ids || ids->kind() != GoValue::Kind::array || ids->items().empty())
    return "refused: a CDI device request that names no device.";
  for (const GoValue id : ids->items()) {
    const std::string name(id.text());
    if (id.kind() != GoValue::Kind::string || !qualified_cdi_name(name)) {
      return "refused: \"" + name + "\" is not a qualified CDI name (vendor.com/class=name).";
    }
    const auto& set = grants.get();
    if (!set) return "refused: " + set.error().message;
    if (!(*set)->find(repo, name)) {
      return "refused: repository \"" + repo + "\" has no grant for " + name +
             "; an operator can grant it with: rediacc-gpu grant " + repo + " --device " + name;
    }
  }
  return std::nullopt;
}

std::optional<std::string> check_device_requests(const GoValue& hc, LazyGrants& grants, const std::string& repo) {
  const auto requests = hc.field("DeviceRequests");
  if (!requests || requests->is_null()) return std::nullopt;
  if (requests->kind() != GoValue::Kind::array) return "refused: DeviceRequests is not a list.";
  for (const GoValue req : requests->items()) {
    const auto driver = req.field("Driver");
    if (req.kind() != GoValue::Kind::object || !driver || driver->kind() != GoValue::Kind::string ||
        driver->text() != "cdi") {
      const std::string name(driver ? driver->text() : "");
      return "refused: a device request with driver \"" + name +
             "\" (docker run --gpus, Compose gpus: or deploy.resources.reservations.devices); " + kCdiForm + ".";
    }
    if (auto bad = check_cdi_request(req, grants, repo)) return bad;
  }
  return std::nullopt;
}

std::optional<std::string> check_strings(const std::optional<GoValue>& list, const std::string& what) {
  if (!list || list->is_empty()) return std::nullopt;
  return "refused: " + what;
}

std::optional<std::string> check_caps(const std::optional<GoValue>& caps) {
  if (!caps) return std::nullopt;
  for (const GoValue c : caps->items()) {
    std::string cap = upper(std::string(c.text()));
    if (cap.rfind("CAP_", 0) == 0) cap = cap.substr(4);
    if (cap == "ALL" || cap == "SYS_ADMIN" || cap == "SYS_RAWIO" || cap == "SYS_MODULE") {
      return "refused: capability " + std::string(c.text()) +
             " reaches the host's hardware; request only the devices needed, by CDI name.";
    }
  }
  return std::nullopt;
}

std::optional<std::string> check_security_opts(const std::optional<GoValue>& opts) {
  if (!opts) return std::nullopt;
  for (const GoValue o : opts->items()) {
    std::string opt(o.text());
    std::replace(opt.begin(), opt.end(), ':', '=');  // the older "seccomp:unconfined" spelling
    if (opt == "apparmor=unconfined" || opt == "seccomp=unconfined" || opt == "systempaths=unconfined" ||
        opt == "label=disable") {
      return "refused: security option \"" + std::string(o.text()) +
             "\" removes the confinement that keeps devices out.";
    }
  }
  return std::nullopt;
}

std::optional<std::string> check_binds(const std::optional<GoValue>& binds) {
  if (!binds) return std::nullopt;
  for (const GoValue b : binds->items()) {
    const std::string_view bind = b.text();
    const std::string source(bind.substr(0, bind.find(':')));
    if (!source.empty() && source[0] == '/' && under_host_hardware(source)) {
      return "refused: a bind of \"" + source + "\" into the container; " + cdi_form_for(clean_path(source)) + ".";
    }
  }
  return std::nullopt;
}

std::optional<std::string> check_mounts(const std::optional<GoValue>& mounts) {
  if (!mounts) return std::nullopt;
  for (const GoValue m : mounts->items()) {
    const auto src = m.field("Source");
    const std::string source(src ? src->text() : "");
    if (!source.empty() && source[0] == '/' && under_host_hardware(source)) {
      return "refused: a mount of \"" + source + "\" into the container; " + cdi_form_for(clean_path(source)) + ".";
    }
    const auto volume = m.field("VolumeOptions");
    const auto driver = volume ? volume->field("DriverConfig") : std::nullopt;
    if (driver) {
      if (auto bad = check_volume(driver->field("Name"), driver->field("Options"))) return bad;
    }
  }
  return std::nullopt;
}

std::optional<std::string> check_runtime_and_annotations(const GoValue& hc) {
  if (const auto rt = hc.field("Runtime");
      rt && !rt->is_empty() && !(rt->kind() == GoValue::Kind::string && rt->text() == "runc")) {
    return "refused: runtime \"" + std::string(rt->text()) + "\"; only runc runs here, and " + kCdiForm + ".";
  }
  if (const auto ann = hc.field("Annotations")) {
    for (const auto [key, value] : ann->fields()) {
      if (key.substr(0, 11) == "cdi.k8s.io/") {
        return "refused: annotation \"" + std::string(key) + "\" injects devices; " + std::string(kCdiForm) + ".";
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> check_devices(const GoValue& hc) {
  const auto devices = hc.field("Devices");
  if (!devices || devices->is_empty()) return std::nullopt;
  std::string path = "a device";
  if (const auto first = devices->items().front()) {
    if (const auto host = first->field("PathOnHost")) path = host->text();
  }
  return "refused: raw device \"" + path + "\"; ask for it by CDI name: " + cdi_form_for(path) + ".";
}

}  // namespace

const Result<std::shared_ptr<const GrantSet>>& LazyGrants::get() {
  if (!got_) got_ = source_();
  return *got_;
}

std::string clean_path(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    const std::string seg = path.substr(start, end - start);
    if (seg == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!seg.empty() && seg != ".") {
      parts.push_back(seg);
    }
    start = end + 1;
  }
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

std::optional<std::string> check_volume(const std::optional<GoValue>& driver, const std::optional<GoValue>& options) {
  if (driver && !driver->text().empty() && driver->text() != "local") {
    return "refused: volume driver \"" + std::string(driver->text()) + "\"; only the local driver is allowed.";
  }
  if (options) {
    for (const auto [key, value] : options->fields()) {
      if (go_fold_equal(key, "DEVICE") || go_fold_equal(key, "TYPE") || go_fold_equal(key, "O")) {
        return "refused: a volume with option \"" + std::string(key) + "\", which can bind or mount a host device.";
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> check_host_config(const GoValue& hc, LazyGrants& grants, const std::string& repo) {
  if (hc.kind() != GoValue::Kind::object) return std::nullopt;
  if (const auto p = hc.field("Privileged"); p && !p->is_empty()) {
    return std::string("refused: --privileged gives every host device; ") + kCdiForm + ".";
  }
  if (auto bad = check_device_requests(hc, grants, repo)) return bad;
  if (auto bad = check_runtime_and_annotations(hc)) return bad;
  if (auto bad = check_devices(hc)) return bad;
  if (auto bad = check_strings(
          hc.field("DeviceCgroupRules"),
          "device cgroup rules; a CDI grant is the way to a device: --device rediacc.io/dri=renderD128.")) {
    return bad;
  }
  if (auto bad = check_caps(hc.field("CapAdd"))) return bad;
  if (auto bad = check_security_opts(hc.field("SecurityOpt"))) return bad;
  if (auto bad = check_binds(hc.field("Binds"))) return bad;
  if (auto bad = check_mounts(hc.field("Mounts"))) return bad;
  return check_volume(hc.field("VolumeDriver"), std::nullopt);
}

}  // namespace rgpu::admission
