#include "cdi-gen/spec_index.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "core/structured_text.h"

namespace rgpu::cdi {
namespace {

using nlohmann::json;

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

bool only(std::string_view s, std::string_view extra) {
  return std::all_of(s.begin(), s.end(), [&](char c) { return alnum(c) || extra.find(c) != std::string_view::npos; });
}

std::vector<std::string> device_nodes_of(const json& edits) {
  std::vector<std::string> out;
  if (!edits.is_object() || !edits.contains("deviceNodes")) return out;
  for (const auto& node : edits.at("deviceNodes")) {
    // hostPath, when set, is the node on the host; path is where it appears in the container.
    std::string host = node.value("hostPath", "");
    out.push_back(host.empty() ? node.at("path").get<std::string>() : host);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The spec versions the reference library knows; a "v" prefix is accepted as it does since 1.0.
bool known_version(std::string v) {
  if (!v.empty() && v[0] == 'v') v.erase(0, 1);
  static const std::set<std::string> kKnown = {"0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0",
                                               "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0"};
  return kKnown.count(v) > 0;
}

Result<void> check_header(const json& spec, const std::string& where) {
  if (!spec.is_object()) return fail(where + " holds no CDI spec (an empty file or not an object).");
  if (!spec.contains("cdiVersion") || !spec.at("cdiVersion").is_string() ||
      !known_version(spec.at("cdiVersion").get<std::string>())) {
    return fail(where + " has no known \"cdiVersion\" (0.3.0 to 1.1.0).");
  }
  if (!spec.contains("kind") || !spec.at("kind").is_string()) {
    return fail(where + " has no \"kind\"; every CDI spec names one such as vendor.com/class.");
  }
  const std::string kind = spec.at("kind").get<std::string>();
  auto slash = kind.find('/');
  if (slash == std::string::npos || !valid_vendor(kind.substr(0, slash)) || !valid_class(kind.substr(slash + 1))) {
    return fail(where + " declares kind \"" + kind + "\", which is not of the form vendor.com/class.");
  }
  if (!spec.contains("devices") || !spec.at("devices").is_array() || spec.at("devices").empty()) {
    return fail(where + " has no \"devices\".");
  }
  return {};
}

Result<std::vector<IndexedDevice>> devices_of(const json& spec, std::string_view path) {
  const std::string where(path);
  if (auto ok = check_header(spec, where); !ok) return tl::unexpected(ok.error());
  const std::string kind = spec.at("kind").get<std::string>();
  std::vector<IndexedDevice> out;
  std::set<std::string> names;
  for (const auto& dev : spec.at("devices")) {
    const std::string name = dev.value("name", "");
    if (!valid_device_name(name)) {
      return fail(where + " defines device \"" + name + "\", which is not a valid CDI device name.");
    }
    if (!names.insert(name).second) return fail(where + " defines device \"" + name + "\" twice.");
    const json edits = dev.value("containerEdits", json::object());
    if (!edits.is_object() || edits.empty()) return fail(where + " gives device \"" + name + "\" no containerEdits.");
    out.push_back({kind + "=" + name, where, device_nodes_of(edits)});
  }
  return out;
}

}  // namespace

bool valid_vendor(std::string_view v) { return !v.empty() && alpha(v.front()) && alnum(v.back()) && only(v, "-_."); }
bool valid_class(std::string_view c) { return !c.empty() && alpha(c.front()) && alnum(c.back()) && only(c, "-_."); }
bool valid_device_name(std::string_view n) {
  return !n.empty() && alnum(n.front()) && alnum(n.back()) && only(n, "-_.:");
}

Result<std::vector<IndexedDevice>> parse_spec(std::string_view text, std::string_view spec_path) {
  auto tree = ends_with(spec_path, ".json") ? parse_json(text, spec_path) : parse_yaml(text, spec_path);
  if (!tree) return tl::unexpected(tree.error());
  try {
    return devices_of(*tree, spec_path);
  } catch (const json::exception& e) {
    return fail(std::string(spec_path) + " is not a valid CDI spec (" + e.what() + ").");
  }
}

SpecIndex read_spec_index(const RootFs& fs) {
  SpecIndex index;
  auto names = fs.list_dir(kSpecDir);
  if (!names) {
    index.problems.push_back({kSpecDir, names.error().message});
    return index;
  }
  // Like the reference library: only .json and .yaml count, and a name that two files of the
  // same directory define is a conflict that removes it, so it can be neither injected nor granted.
  std::map<std::string, std::vector<IndexedDevice>> by_name;
  for (const auto& name : *names) {
    if (!ends_with(name, ".json") && !ends_with(name, ".yaml")) continue;
    const std::string path = join_path(kSpecDir, name);
    if (fs.kind(path) != NodeKind::file) continue;
    auto text = fs.read_file(path);
    auto devices = text ? parse_spec(*text, path) : tl::unexpected(text.error());
    if (!devices) {
      index.problems.push_back({path, devices.error().message});
      continue;
    }
    for (auto& dev : *devices) by_name[dev.qualified_name].push_back(std::move(dev));
  }
  for (auto& [qualified, defs] : by_name) {
    if (defs.size() == 1) {
      index.devices.push_back(std::move(defs.front()));
      continue;
    }
    for (const auto& d : defs) {
      index.problems.push_back({d.spec_path, qualified + " is defined by " + std::to_string(defs.size()) +
                                                 " spec files; CDI refuses a conflicting name, so it is left out."});
    }
  }
  return index;
}

namespace {

bool digits_after(std::string_view node, std::string_view prefix) {
  if (!node.starts_with(prefix) || node.size() == prefix.size()) return false;
  return std::all_of(node.begin() + static_cast<std::ptrdiff_t>(prefix.size()), node.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

bool is_gpu_own_node(std::string_view node) {
  return digits_after(node, "/dev/dri/renderD") || digits_after(node, "/dev/dri/card") ||
         digits_after(node, "/dev/nvidia") || node == "/dev/dxg";
}

bool reach_same_gpu(const std::vector<std::string>& a_nodes, const std::vector<std::string>& b_nodes) {
  for (const auto& a : a_nodes) {
    if (!is_gpu_own_node(a)) continue;
    if (std::find(b_nodes.begin(), b_nodes.end(), a) != b_nodes.end()) return true;
  }
  return false;
}

}  // namespace rgpu::cdi
