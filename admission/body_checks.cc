#include "admission/body_checks.h"

#include <algorithm>
#include <array>

#include "admission/api_fields.h"
#include "admission/capabilities.h"
#include "admission/confinement_checks.h"
#include "admission/device_checks.h"
#include "admission/host_config_fields.h"
#include "admission/host_paths.h"
#include "admission/mount_checks.h"
#include "admission/security_options.h"

namespace rgpu::admission {

using docker::go_fold_equal;
using docker::GoValue;
using docker::read_go_json;
namespace {

Refusal check_host_config_fields(const Fields& hc, CheckContext& context) {
  if (const auto& p = hc[kPrivileged]; p && !p->is_empty()) {
    return "refused: --privileged gives every host device; " + cdi_form(context) + ".";
  }
  if (auto bad = check_device_requests(hc, context)) return bad;
  if (auto bad = check_runtime_and_annotations(hc, context)) return bad;
  if (auto bad = check_devices(hc, context.world, context.policy)) return bad;
  if (auto bad = check_strings(
          hc[kDeviceCgroupRules],
          "device cgroup rules; a CDI grant is the way to a device: --device rediacc.io/dri=renderD128.")) {
    return bad;
  }
  if (auto bad = check_capabilities(hc[kCapAdd], hc[kCapDrop], context.policy)) return bad;
  if (auto bad = check_security_options(hc[kSecurityOpt], context.policy)) return bad;
  if (auto bad = check_system_paths(hc[kMaskedPaths], hc[kReadonlyPaths])) return bad;
  if (auto bad = check_namespaces(hc, context.policy)) return bad;
  if (auto bad = check_shared_network_raw(hc, context)) return bad;
  if (auto bad = check_cgroup_and_oom(hc, context.world)) return bad;
  if (auto bad = check_log_driver(hc[kLogConfig])) return bad;
  if (auto bad = check_binds(hc[kBinds], context)) return bad;
  if (auto bad = check_mounts(hc[kMounts], context)) return bad;
  if (auto bad = check_volumes_from(hc[kVolumesFrom], context)) return bad;
  return check_volume(hc[kVolumeDriver], std::nullopt);
}

}  // namespace

const Result<std::shared_ptr<const grants::GrantSet>>& LazyGrants::get() {
  if (!got_) got_ = source_();
  return *got_;
}

Refusal check_volume(const std::optional<GoValue>& driver, const std::optional<GoValue>& options) {
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

Refusal check_network_create(const GoValue& body) {
  const auto text = [&](const char* field) {
    const auto v = body.field(field);
    return v ? std::string(v->text()) : std::string();
  };
  const std::string driver = text("Driver");
  if (!driver.empty() && driver != "bridge")
    return "refused: network driver \"" + driver +
           "\": a repository's network is a bridge of its own; macvlan and ipvlan put containers on the host's "
           "interfaces, and any other name is a plugin dockerd looks up by path.";
  // The bridge's own switches; a bridge.name picks an existing one of the host's (another
  // repository's), and anything else names a host interface or is not known.
  static constexpr std::string_view kBridgeOptions[] = {
      "com.docker.network.bridge.enable_icc", "com.docker.network.bridge.enable_ip_masquerade",
      "com.docker.network.driver.mtu", "com.docker.network.container_iface_prefix",
      "com.docker.network.bridge.host_binding_ipv4"};
  if (const auto options = body.field("Options")) {
    for (const auto [key, value] : options->fields()) {
      if (std::find(std::begin(kBridgeOptions), std::end(kBridgeOptions), key) != std::end(kBridgeOptions)) continue;
      return "refused: network option \"" + std::string(key) +
             "\": only a bridge's own switches (ICC, masquerading, MTU) may be set; it could name a host interface "
             "or another network's bridge.";
    }
  }
  if (const auto ipam = body.field("IPAM"); ipam && ipam->kind() == GoValue::Kind::object) {
    const auto ipam_driver = ipam->field("Driver");
    if (ipam_driver && !ipam_driver->is_empty() && ipam_driver->text() != "default")
      return "refused: IPAM driver \"" + std::string(ipam_driver->text()) + "\": only the default one.";
    if (const auto o = ipam->field("Options"); o && !o->is_empty())
      return std::string("refused: IPAM options: only the default address management.");
  }
  for (const char* field : {"ConfigFrom", "ConfigOnly", "Ingress"}) {
    if (const auto v = body.field(field); v && !v->is_empty())
      return "refused: network " + std::string(field) +
             ": a network of another's configuration, or swarm's, may reach the host's interfaces.";
  }
  if (const auto scope = body.field("Scope"); scope && !scope->is_empty() && scope->text() != "local")
    return std::string("refused: a network of swarm or global scope; a repository's networks are local.");
  return std::nullopt;
}

Refusal check_working_dir(const std::optional<GoValue>& dir) {
  if (!dir || dir->text().empty()) return std::nullopt;
  const std::string cleaned = clean_path(dir->text());
  if (cleaned == "/proc" || cleaned.rfind("/proc/", 0) == 0)
    return "refused: a working directory under /proc (\"" + std::string(dir->text()) +
           "\") can leak into the host's namespaces; use a directory of the image.";
  return std::nullopt;
}

namespace {

// HostConfig, or an update body (which shares its Resources and RestartPolicy): the checks of
// the fields that attach hardware, then the fields `object` defines.
Refusal check_config_object(const GoValue& value, ApiObject object, CheckContext& context) {
  if (value.kind() != GoValue::Kind::object) return std::nullopt;
  Fields hc;
  value.pick(std::span(kFieldNames).first<kFieldCount>(), std::span(hc).first<kFieldCount>());
  if (auto bad = check_host_config_fields(hc, context)) return bad;
  return check_known_fields(value, object);
}

}  // namespace

Refusal check_host_config(const GoValue& host_config, CheckContext& context) {
  return check_config_object(host_config, ApiObject::host_config, context);
}

Refusal check_update(const GoValue& body, CheckContext& context) {
  // A container's devices are fixed when it is made; say so rather than judge them as new ones.
  for (const char* field : {"Devices", "DeviceRequests", "DeviceCgroupRules"}) {
    if (const auto v = body.field(field); v && !v->is_empty()) {
      return std::string("refused: docker update sets ") + field +
             ", but devices cannot be changed on an existing container; make a new container with --device "
             "VENDOR/CLASS=NAME (a name the repository was granted).";
    }
  }
  return check_config_object(body, ApiObject::update, context);
}

Refusal check_stored_container(const GoValue& inspect, CheckContext& context) {
  const auto config = inspect.kind() == GoValue::Kind::object ? inspect.field("Config") : std::nullopt;
  if (config && config->kind() == GoValue::Kind::object) {
    if (auto bad = check_working_dir(config->field("WorkingDir"))) return bad;
  }
  const auto host_config = inspect.kind() == GoValue::Kind::object ? inspect.field("HostConfig") : std::nullopt;
  if (!host_config || host_config->kind() != GoValue::Kind::object)
    return "refused: the daemon's description of the container holds no HostConfig to judge.";
  Fields hc;
  host_config->pick(std::span(kFieldNames).first<kFieldCount>(), std::span(hc).first<kFieldCount>());
  if (auto bad = check_stored_system_paths(hc[kMaskedPaths], hc[kReadonlyPaths])) return bad;
  hc[kMaskedPaths].reset();
  hc[kReadonlyPaths].reset();
  if (auto bad = check_host_config_fields(hc, context)) return bad;
  // What dockerd mounts at the start are the container's stored mount points.
  if (const auto mounts = inspect.field("Mounts"); mounts && mounts->kind() == GoValue::Kind::array) {
    if (auto bad = check_mount_points(*mounts, "a mount of the container", false, context)) return bad;
  }
  return check_known_fields(*host_config, ApiObject::host_config);
}

Refusal check_create(const GoValue& body, CheckContext& context) {
  Fields top;
  body.pick(kFieldNames, top);
  if (auto bad = check_working_dir(top[kWorkingDir])) return bad;
  if (const auto& hc = top[kHostConfig]) {
    if (auto bad = check_host_config(*hc, context)) return bad;
  }
  // Engines up to 26.1 read HostConfig fields at the top level of a create body too.
  if (auto bad = check_host_config_fields(top, context)) return bad;
  return check_known_fields(body, ApiObject::create);
}

}  // namespace rgpu::admission
