// A CDI spec file read the way the CDI Go library reads it (sigs.k8s.io/yaml's UnmarshalStrict
// into the spec structs, then the library's validation), so that the names we index are the
// names Docker and podman can inject. Where Debian 12's library 0.5.2 is behind the spec Docker
// 26 and later read (cdiVersion 0.6.0 to 1.1.0), the newer rules are followed; docs/decisions.md
// lists each difference, and tests/oracle/cdi_differential.py holds us elsewhere to 0.5.2, to the
// 0.7.2 Docker 26 vendors and to the 1.0.1 Docker 28.5 is built with.

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "cdi/reach_rules.h"
#include "cdi/spec_index.h"
#include "cdi/spec_version.h"
#include "core/ascii_case.h"

namespace rgpu::cdi {
namespace {

// Decoding fails with one message; the caller prefixes the file.
struct Bad {
  std::string message;
};

// YAML 1.1's plain scalars as yaml.v2 resolves them (the library's YAML layer).
bool is_null_word(const std::string& s) { return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL"; }

std::optional<bool> bool_word(const std::string& s) {
  static const std::set<std::string> yes = {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"};
  static const std::set<std::string> no = {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"};
  if (yes.count(s)) return true;
  if (no.count(s)) return false;
  return std::nullopt;
}

// An integer as yaml.v2 reads one: underscores dropped, then Go's base prefixes (0x, 0o, 0b,
// and a leading 0 for octal). Values past int64 are not integers to it either.
std::optional<std::int64_t> int_word(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
  bool negative = false;
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  int base = 10;
  if (s.size() - i > 1 && s[i] == '0') {
    const char p = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i + 1])));
    if (p == 'x')
      base = 16, i += 2;
    else if (p == 'o')
      base = 8, i += 2;
    else if (p == 'b')
      base = 2, i += 2;
    else
      base = 8, i += 1;
  }
  if (i >= s.size()) return std::nullopt;
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data() + i, s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  if (!negative && v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
  if (negative && v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1) return std::nullopt;
  return negative ? static_cast<std::int64_t>(0 - v) : static_cast<std::int64_t>(v);
}

bool plain(const YAML::Node& n) { return n.Tag() == "?" || n.Tag().empty(); }

bool is_null(const YAML::Node& n) {
  return !n.IsDefined() || n.IsNull() || (n.IsScalar() && plain(n) && is_null_word(n.Scalar()));
}

// A string field: a quoted scalar is itself; a plain one that YAML 1.1 reads as a bool or an
// integer becomes its Go formatting ("on" is "true", "0x1f" is "31"); null leaves it empty.
std::string as_string(const YAML::Node& n, const std::string& field) {
  if (is_null(n)) return "";
  if (!n.IsScalar()) throw Bad{"\"" + field + "\" is not a string"};
  if (!plain(n)) return n.Scalar();
  if (auto b = bool_word(n.Scalar())) return *b ? "true" : "false";
  if (auto i = int_word(n.Scalar())) return std::to_string(*i);
  const std::string& s = n.Scalar();
  // A float here would be formatted as Go formats a float32; no spec needs one, so it is refused.
  if (!s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '.' || s[0] == '-' || s[0] == '+')) {
    double d = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (ec == std::errc() && end == s.data() + s.size()) throw Bad{"\"" + field + "\" is a number, not a string"};
  }
  return s;
}

// An integer field (int64, or uint32 when `max` says so); null is zero.
std::int64_t as_int(const YAML::Node& n, const std::string& field, std::int64_t min, std::int64_t max) {
  if (is_null(n)) return 0;
  std::optional<std::int64_t> v;
  if (n.IsScalar() && plain(n)) v = int_word(n.Scalar());
  if (!v) throw Bad{"\"" + field + "\" is not an integer"};
  if (*v < min || *v > max) throw Bad{"\"" + field + "\" is out of range"};
  return *v;
}

std::vector<std::string> as_strings(const YAML::Node& n, const std::string& field) {
  std::vector<std::string> out;
  if (is_null(n)) return out;
  if (!n.IsSequence()) throw Bad{"\"" + field + "\" is not a list"};
  for (const auto& item : n) out.push_back(as_string(item, field));
  return out;
}

// A mapping decoded into a struct: each key must name one of `fields` (Go matches keys without
// regard to ASCII case), and no key may appear twice (yaml.v2's strict mode). Two spellings of
// one field ("Kind" and "kind") both reach it; the library's YAML layer hands them to the JSON
// decoder sorted, so the spelling that sorts last wins.
std::map<std::string, YAML::Node> fields_of(const YAML::Node& n, const std::string& what,
                                            std::initializer_list<const char*> fields) {
  std::map<std::string, YAML::Node> out;
  if (is_null(n)) return out;
  if (!n.IsMap()) throw Bad{what + " is not a mapping"};
  std::set<std::string> seen;
  std::map<std::string, std::string> spelled;
  for (const auto& kv : n) {
    if (!kv.first.IsScalar()) throw Bad{what + " has a key that is not a string"};
    const std::string key = kv.first.Scalar();
    if (!seen.insert(key).second) throw Bad{what + " has the key \"" + key + "\" twice"};
    const char* match = nullptr;
    for (const char* f : fields) {
      if (ascii_lowered(f) == ascii_lowered(key)) match = f;
    }
    if (!match) throw Bad{what + " has the unknown field \"" + key + "\""};
    auto& chosen = spelled[match];
    if (!chosen.empty() && chosen > key) continue;
    chosen = key;
    out[match] = kv.second;
  }
  return out;
}

YAML::Node get(const std::map<std::string, YAML::Node>& m, const char* key) {
  auto it = m.find(key);
  return it == m.end() ? YAML::Node() : it->second;
}

constexpr std::int64_t kU32 = std::numeric_limits<std::uint32_t>::max();
constexpr std::int64_t kI64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();

// What a spec uses raises the version it must declare (specs-go/version.go, numbered as
// spec_version_number); 0.3.0 is the floor.
void need(int& at_least, int version) { at_least = std::max(at_least, version); }

void check_env(const std::vector<std::string>& env, const std::string& what) {
  for (const auto& e : env) {
    const auto eq = e.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Bad{what + " has the environment entry \"" + e + "\" (not NAME=value)"};
  }
}

// A containerEdits block as decoded: the host nodes it maps, and whether it edits anything at all
// (a device's edits must; the spec's may be empty).
struct Edits {
  std::vector<probe::NodeRef> nodes;
  Carried carried;
  bool empty = true;
  bool additional_gids = false;
};

// True for a list field that holds at least one entry, or any other non-null value (intelRdt).
bool present(const YAML::Node& n) { return !is_null(n) && (!n.IsSequence() || n.size() > 0); }

// A list field of containerEdits: null when absent, else a sequence.
YAML::Node list_field(const std::map<std::string, YAML::Node>& f, const char* field, const std::string& what) {
  auto n = get(f, field);
  if (!is_null(n) && !n.IsSequence()) throw Bad{what + ": \"" + field + "\" is not a list"};
  return n;
}

// The nodes deviceNodes maps (hostPath, else path, with the numbers given); a hostPath needs 0.5.0.
std::vector<probe::NodeRef> decode_device_nodes(const YAML::Node& list, const std::string& what, int& at_least) {
  std::vector<probe::NodeRef> nodes;
  if (is_null(list)) return nodes;
  for (const auto& d : list) {
    const auto dn = fields_of(d, what + ": a device node",
                              {"path", "hostPath", "type", "major", "minor", "fileMode", "permissions", "uid", "gid"});
    const std::string path = as_string(get(dn, "path"), "path");
    const std::string host = as_string(get(dn, "hostPath"), "hostPath");
    const std::string type = as_string(get(dn, "type"), "type");
    const std::string permissions = as_string(get(dn, "permissions"), "permissions");
    const auto major = as_int(get(dn, "major"), "major", kI64Min, kI64Max);
    const auto minor = as_int(get(dn, "minor"), "minor", kI64Min, kI64Max);
    as_int(get(dn, "fileMode"), "fileMode", 0, kU32);
    as_int(get(dn, "uid"), "uid", 0, kU32);
    as_int(get(dn, "gid"), "gid", 0, kU32);
    if (path.empty()) throw Bad{what + " has a device node with no path"};
    if (type != "" && type != "b" && type != "c" && type != "u" && type != "p")
      throw Bad{what + ": device " + path + " has the type \"" + type + "\" (b, c, u or p)"};
    if (permissions.find_first_not_of("rwm") != std::string::npos)
      throw Bad{what + ": device " + path + " has the permissions \"" + permissions + "\" (r, w and m only)"};
    if (!host.empty()) need(at_least, 50);
    nodes.push_back({host.empty() ? path : host, type, major, minor});
  }
  return nodes;
}

void decode_hooks(const YAML::Node& list, const std::string& what, Carried& carried) {
  if (is_null(list)) return;
  static const std::set<std::string> kHookPoints = {"prestart",       "createRuntime", "createContainer",
                                                    "startContainer", "poststart",     "poststop"};
  for (const auto& h : list) {
    const auto hf = fields_of(h, what + ": a hook", {"hookName", "path", "args", "env", "timeout"});
    const std::string name = as_string(get(hf, "hookName"), "hookName");
    if (!kHookPoints.count(name)) throw Bad{what + " has a hook named \"" + name + "\", which is no OCI hook point"};
    const std::string path = as_string(get(hf, "path"), "path");
    if (path.empty()) throw Bad{what + ": hook " + name + " has no path"};
    carried.hooks.push_back({name, path, as_strings(get(hf, "args"), "args")});
    check_env(as_strings(get(hf, "env"), "env"), what + ": hook " + name);
    as_int(get(hf, "timeout"), "timeout", kI64Min, kI64Max);
  }
}

// A mount's type needs 0.4.0.
void decode_mounts(const YAML::Node& list, const std::string& what, Carried& carried, int& at_least) {
  if (is_null(list)) return;
  for (const auto& m : list) {
    const auto mf = fields_of(m, what + ": a mount", {"hostPath", "containerPath", "options", "type"});
    const std::string host = as_string(get(mf, "hostPath"), "hostPath");
    const std::string inside = as_string(get(mf, "containerPath"), "containerPath");
    if (host.empty()) throw Bad{what + " has a mount with no hostPath"};
    if (inside.empty()) throw Bad{what + " has a mount with no containerPath"};
    carried.mounts.push_back({host, inside});
    as_strings(get(mf, "options"), "options");
    if (!as_string(get(mf, "type"), "type").empty()) need(at_least, 40);
  }
}

// intelRdt needs 0.7.0, its schemata and monitoring 1.1.0; the closID as runc accepts it.
void check_intel_rdt(const YAML::Node& rdt, const std::string& what, int& at_least) {
  if (is_null(rdt)) return;
  const auto rf =
      fields_of(rdt, what + ": intelRdt", {"closID", "l3CacheSchema", "memBwSchema", "schemata", "enableMonitoring"});
  const std::string clos = as_string(get(rf, "closID"), "closID");
  if (clos != "/" &&
      (clos.size() >= 4096 || clos == "." || clos == ".." || clos.find_first_of("/\n") != std::string::npos))
    throw Bad{what + ": intelRdt has the closID \"" + clos + "\""};
  as_string(get(rf, "l3CacheSchema"), "l3CacheSchema");
  as_string(get(rf, "memBwSchema"), "memBwSchema");
  need(at_least, 70);
  if (!is_null(get(rf, "schemata")) || !is_null(get(rf, "enableMonitoring"))) need(at_least, 110);
  as_strings(get(rf, "schemata"), "schemata");
}

// Net devices need 1.1.0; each host interface and each name once.
void decode_net_devices(const YAML::Node& list, const std::string& what, Carried& carried, int& at_least) {
  if (is_null(list)) return;
  std::set<std::string> hosts, names;
  for (const auto& d : list) {
    const auto nf = fields_of(d, what + ": a net device", {"hostInterfaceName", "name"});
    const std::string host = as_string(get(nf, "hostInterfaceName"), "hostInterfaceName");
    const std::string name = as_string(get(nf, "name"), "name");
    if (host.empty() || name.empty() || !hosts.insert(host).second || !names.insert(name).second)
      throw Bad{what + " has a net device with an empty or repeated name"};
    carried.net_devices.push_back({host, name});
  }
  if (list.size() > 0) need(at_least, 110);
}

// The fields in the order the CDI library validates them, so the first fault named is the same.
Edits decode_edits(const YAML::Node& n, const std::string& what, int& at_least) {
  const auto f =
      fields_of(n, what, {"env", "deviceNodes", "hooks", "mounts", "intelRdt", "additionalGids", "netDevices"});
  check_env(as_strings(get(f, "env"), "env"), what);
  Edits out;
  out.nodes = decode_device_nodes(list_field(f, "deviceNodes", what), what, at_least);
  decode_hooks(list_field(f, "hooks", what), what, out.carried);
  decode_mounts(list_field(f, "mounts", what), what, out.carried, at_least);
  check_intel_rdt(get(f, "intelRdt"), what, at_least);
  if (const auto gids = list_field(f, "additionalGids", what); !is_null(gids)) {
    for (const auto& g : gids) as_int(g, "additionalGids", 0, kU32);
    if (gids.size() > 0) need(at_least, 70), out.additional_gids = true;
  }
  decode_net_devices(list_field(f, "netDevices", what), what, out.carried, at_least);
  for (const char* field : {"env", "deviceNodes", "hooks", "mounts", "intelRdt", "additionalGids", "netDevices"}) {
    if (present(get(f, field))) out.empty = false;
  }
  return out;
}

void check_annotations(const YAML::Node& n, const std::string& what, int& at_least) {
  if (is_null(n)) return;
  if (!n.IsMap()) throw Bad{what + ": \"annotations\" is not a mapping"};
  // The library's YAML layer turns the whole document into JSON before decoding it: a key that is
  // null or not a scalar has no JSON spelling, and the file is refused (any other scalar is a string).
  for (const auto& kv : n) {
    if (is_null(kv.first)) throw Bad{what + ": \"annotations\" has a null key"};
    if (!kv.first.IsScalar()) throw Bad{what + ": \"annotations\" has a key that is not a string"};
    as_string(kv.second, "annotations");
  }
  if (n.size() > 0) need(at_least, kAnnotationsVersion);
}

std::vector<IndexedDevice> decode(const YAML::Node& root, const std::string& where) {
  if (is_null(root)) throw Bad{"holds no CDI spec (an empty file)"};
  const auto f = fields_of(root, "the spec", {"cdiVersion", "kind", "annotations", "devices", "containerEdits"});
  const std::string version = as_string(get(f, "cdiVersion"), "cdiVersion");
  const int declared = spec_version_number(version);
  if (declared == 0) throw Bad{"declares cdiVersion \"" + version + "\", which no CDI release knows (0.3.0 to 1.1.0)"};
  int at_least = 30;
  const std::string kind = as_string(get(f, "kind"), "kind");
  const auto slash = kind.find('/');
  const std::string vendor = slash == std::string::npos ? "" : kind.substr(0, slash);
  const std::string klass = slash == std::string::npos ? kind : kind.substr(slash + 1);
  if (!valid_vendor(vendor) || !valid_class(klass))
    throw Bad{"declares kind \"" + kind + "\", which is not of the form vendor.com/class"};
  // The CDI library up to 1.1.0 slices name[1:len-1] and panics on a one-letter vendor or class:
  // the daemon reading such a spec would crash, so no name of it is offered.
  if (vendor.size() == 1 || klass.size() == 1)
    throw Bad{"declares kind \"" + kind + "\"; a one-letter vendor or class crashes the CDI library up to 1.1.0"};
  if (klass.find('.') != std::string::npos) need(at_least, 60);
  check_annotations(get(f, "annotations"), "the spec", at_least);
  // CDI applies the spec's own edits, device nodes included, with every device of it.
  const Edits common = decode_edits(get(f, "containerEdits"), "the spec's containerEdits", at_least);
  std::vector<IndexedDevice> out;
  std::set<std::string> names;
  const auto devices = get(f, "devices");
  if (!is_null(devices) && !devices.IsSequence()) throw Bad{"\"devices\" is not a list"};
  for (const auto& d : devices) {
    const auto df = fields_of(d, "a device", {"name", "annotations", "containerEdits"});
    const std::string name = as_string(get(df, "name"), "name");
    if (!valid_device_name(name)) throw Bad{"defines device \"" + name + "\", which is not a valid CDI device name"};
    if (!names.insert(name).second) throw Bad{"defines device \"" + name + "\" twice"};
    const std::string what = "device \"" + name + "\"";
    check_annotations(get(df, "annotations"), what, at_least);
    if (std::isdigit(static_cast<unsigned char>(name[0]))) need(at_least, 50);
    auto edits = decode_edits(get(df, "containerEdits"), what, at_least);
    if (edits.empty) throw Bad{"gives " + what + " no containerEdits"};
    // CDI applies both the spec's own edits and the device's.
    Carried carried = common.carried;
    const auto append = [](auto& to, const auto& from) { to.insert(to.end(), from.begin(), from.end()); };
    append(carried.hooks, edits.carried.hooks);
    append(carried.mounts, edits.carried.mounts);
    append(carried.net_devices, edits.carried.net_devices);
    std::vector<probe::NodeRef> nodes = common.nodes;
    append(nodes, edits.nodes);
    std::vector<std::string> paths;
    for (const auto& n : nodes) paths.push_back(n.path);
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    out.push_back({kind + "=" + name, where, std::move(paths), std::move(nodes), std::move(carried)});
    out.back().spec_version = declared;
    out.back().additional_gids = common.additional_gids || edits.additional_gids;
  }
  if (declared < at_least)
    throw Bad{"declares cdiVersion " + version + " but uses what " + spec_version_text(at_least) +
              " introduced; CDI refuses it (set cdiVersion to " + spec_version_text(at_least) + " or later)"};
  // 0.5.2 loads such a file silently, 1.0 (Docker 28's) reports it broken: the operator hears of it.
  if (out.empty()) throw Bad{"defines no devices (CDI 1.0 and later, as in Docker 28, report such a file broken)"};
  return out;
}

}  // namespace

Result<std::vector<IndexedDevice>> parse_spec(std::string_view text, std::string_view spec_path) {
  const std::string where(spec_path);
  try {
    // The library reads .json files with its YAML reader too: YAML in a .json file loads.
    return decode(YAML::Load(std::string(text)), where);
  } catch (const YAML::Exception& e) {
    return fail(where + " is not valid YAML or JSON (" + e.msg + "); fix or remove it.");
  } catch (const Bad& bad) {
    return fail(where + " " + bad.message + "; CDI consumers refuse the file, so none of its names can be granted.");
  }
}

}  // namespace rgpu::cdi
