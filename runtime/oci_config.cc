#include "runtime/oci_config.h"

#include <algorithm>
#include <initializer_list>

namespace rgpu::runtime {

using admission::ContainerModel;
using nlohmann::json;

namespace {

bool empty_value(const json& v) {
  return v.is_null() || (v.is_boolean() && !v.get<bool>()) || (v.is_number() && v == 0) ||
         (v.is_string() && v.get<std::string>().empty()) || (v.is_array() && v.empty()) || (v.is_object() && v.empty());
}

// Every key of `object` outside `known` that carries a value, as "where.key".
void unknown_keys(const json& object, std::initializer_list<std::string_view> known, const std::string& where,
                  ContainerModel& m) {
  if (!object.is_object()) return;
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end() || empty_value(value)) continue;
    m.unknown_fields.push_back(where + key);
  }
}

const json& member(const json& object, const char* key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  const auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::string text(const json& object, const char* key) {
  const auto& v = member(object, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

std::vector<std::string> strings(const json& v) {
  std::vector<std::string> out;
  if (!v.is_array()) return out;
  for (const auto& item : v) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

void read_process(const json& p, ContainerModel& m) {
  unknown_keys(p,
               {"terminal", "consoleSize", "user", "args", "commandLine", "env", "cwd", "capabilities", "rlimits",
                "noNewPrivileges", "apparmorProfile", "oomScoreAdj", "scheduler", "selinuxLabel", "ioPriority",
                "execCPUAffinity"},
               "process.", m);
  m.cwd = text(p, "cwd");
  if (const auto& oom = member(p, "oomScoreAdj"); oom.is_number_integer()) m.oom_score_adj = oom.get<std::int64_t>();
  if (const auto& a = member(p, "apparmorProfile"); a.is_string()) m.apparmor_profile = a.get<std::string>();
  if (const auto& l = member(p, "selinuxLabel"); l.is_string()) m.selinux_label = l.get<std::string>();
  const auto& caps = member(p, "capabilities");
  unknown_keys(caps, {"bounding", "effective", "inheritable", "permitted", "ambient"}, "process.capabilities.", m);
  for (const char* set : {"bounding", "effective", "inheritable", "permitted", "ambient"}) {
    for (auto& cap : strings(member(caps, set))) {
      if (std::find(m.capabilities.begin(), m.capabilities.end(), cap) == m.capabilities.end())
        m.capabilities.push_back(std::move(cap));
    }
  }
}

void read_mounts(const json& mounts, ContainerModel& m) {
  if (!mounts.is_array()) return;
  for (const auto& entry : mounts) {
    unknown_keys(entry, {"destination", "type", "source", "options"}, "mounts[].", m);
    admission::ContainerMount mount{.destination = text(entry, "destination"),
                                    .type = text(entry, "type"),
                                    .source = text(entry, "source"),
                                    .options = strings(member(entry, "options")),
                                    .bind = false,
                                    .read_only = false,
                                    .recursive = false,
                                    .propagation = ""};
    mount.bind = mount.type == "bind";
    for (const auto& o : mount.options) {
      if (o == "bind" || o == "rbind") mount.bind = true;
      if (o == "rbind") mount.recursive = true;
      if (o == "ro" || o == "rro") mount.read_only = true;
      if (o == "shared" || o == "rshared" || o == "slave" || o == "rslave" || o == "private" || o == "rprivate" ||
          o == "unbindable" || o == "runbindable")
        mount.propagation = o;
    }
    m.mounts.push_back(std::move(mount));
  }
}

void read_hooks(const json& hooks, ContainerModel& m) {
  static constexpr const char* kStages[] = {"prestart",       "createRuntime", "createContainer",
                                            "startContainer", "poststart",     "poststop"};
  unknown_keys(hooks, {"prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"},
               "hooks.", m);
  for (const auto stage : kStages) {
    const auto& list = member(hooks, stage);
    if (!list.is_array()) continue;
    for (const auto& h : list) {
      unknown_keys(h, {"path", "args", "env", "timeout"}, "hooks." + std::string(stage) + "[].", m);
      m.hooks.push_back({.stage = std::string(stage), .path = text(h, "path"), .args = strings(member(h, "args"))});
    }
  }
}

std::optional<std::int64_t> number(const json& v) {
  if (v.is_number_integer()) return v.get<std::int64_t>();
  return std::nullopt;
}

void read_devices(const json& linux, ContainerModel& m) {
  if (const auto& devices = member(linux, "devices"); devices.is_array()) {
    for (const auto& d : devices) {
      unknown_keys(d, {"path", "type", "major", "minor", "fileMode", "uid", "gid"}, "linux.devices[].", m);
      m.devices.push_back({.path = text(d, "path"),
                           .type = text(d, "type"),
                           .major = number(member(d, "major")).value_or(-1),
                           .minor = number(member(d, "minor")).value_or(-1)});
    }
  }
  const auto& resources = member(linux, "resources");
  unknown_keys(resources,
               {"devices", "memory", "cpu", "pids", "blockIO", "hugepageLimits", "network", "rdma", "unified"},
               "linux.resources.", m);
  if (const auto& rules = member(resources, "devices"); rules.is_array()) {
    for (const auto& r : rules) {
      unknown_keys(r, {"allow", "type", "major", "minor", "access"}, "linux.resources.devices[].", m);
      const auto& allow = member(r, "allow");
      std::string type = text(r, "type");
      if (type == "a") type.clear();
      m.device_rules.push_back({.allow = allow.is_boolean() && allow.get<bool>(),
                                .type = type,
                                .major = number(member(r, "major")),
                                .minor = number(member(r, "minor")),
                                .access = text(r, "access")});
    }
  }
}

void read_linux(const json& linux, ContainerModel& m) {
  unknown_keys(
      linux,
      {"uidMappings", "gidMappings", "timeOffsets", "devices", "cgroupsPath", "rootfsPropagation", "resources",
       "namespaces", "sysctl", "seccomp", "maskedPaths", "readonlyPaths", "mountLabel", "personality", "memoryPolicy"},
      "linux.", m);
  read_devices(linux, m);
  m.cgroups_path = text(linux, "cgroupsPath");
  m.rootfs_propagation = text(linux, "rootfsPropagation");
  m.masked_paths = strings(member(linux, "maskedPaths"));
  m.readonly_paths = strings(member(linux, "readonlyPaths"));
  if (const auto& ns = member(linux, "namespaces"); ns.is_array()) {
    for (const auto& n : ns) {
      unknown_keys(n, {"type", "path"}, "linux.namespaces[].", m);
      admission::ContainerNamespace entry{.type = text(n, "type"), .path = std::nullopt, .joins_host = std::nullopt};
      if (const auto path = text(n, "path"); !path.empty()) entry.path = path;
      m.namespaces.push_back(std::move(entry));
    }
  }
  if (const auto& s = member(linux, "seccomp"); s.is_object()) {
    unknown_keys(
        s,
        {"defaultAction", "defaultErrnoRet", "architectures", "flags", "listenerPath", "listenerMetadata", "syscalls"},
        "linux.seccomp.", m);
    m.seccomp =
        admission::Seccomp{.default_action = text(s, "defaultAction"), .listener_path = text(s, "listenerPath")};
  }
  if (const auto label = text(linux, "mountLabel"); !label.empty() && !m.selinux_label) m.selinux_label = label;
}

}  // namespace

Result<OciConfig> read_oci_config(std::string_view text_in, const std::string& id) {
  OciConfig out;
  out.document = json::parse(text_in.begin(), text_in.end(), nullptr, false);
  if (out.document.is_discarded() || !out.document.is_object())
    return fail("the container's config.json is not a JSON object");
  auto& m = out.model;
  m.id = id;
  const auto& doc = out.document;
  unknown_keys(doc,
               {"ociVersion", "process", "root", "hostname", "domainname", "mounts", "hooks", "annotations", "linux"},
               "", m);
  read_process(member(doc, "process"), m);
  m.root_path = text(member(doc, "root"), "path");
  read_mounts(member(doc, "mounts"), m);
  read_hooks(member(doc, "hooks"), m);
  if (const auto& a = member(doc, "annotations"); a.is_object()) {
    for (const auto& [key, value] : a.items()) m.annotations.push_back(key);
  }
  read_linux(member(doc, "linux"), m);
  return out;
}

}  // namespace rgpu::runtime
