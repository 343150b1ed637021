#include "cdi-gen/spec_index.h"

#include <algorithm>
#include <cctype>
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

Result<std::vector<IndexedDevice>> devices_of(const json& spec, std::string_view path) {
  const std::string where(path);
  if (!spec.is_object() || !spec.contains("kind") || !spec.at("kind").is_string()) {
    return fail(where + " has no \"kind\"; every CDI spec names one such as vendor.com/class.");
  }
  const std::string kind = spec.at("kind").get<std::string>();
  auto slash = kind.find('/');
  if (slash == std::string::npos || !valid_vendor(kind.substr(0, slash)) || !valid_class(kind.substr(slash + 1))) {
    return fail(where + " declares kind \"" + kind + "\", which is not of the form vendor.com/class.");
  }
  if (!spec.contains("devices") || !spec.at("devices").is_array()) return fail(where + " has no \"devices\" list.");
  std::vector<IndexedDevice> out;
  for (const auto& dev : spec.at("devices")) {
    const std::string name = dev.value("name", "");
    if (!valid_device_name(name))
      return fail(where + " defines device \"" + name + "\", which is not a valid CDI device name.");
    out.push_back({kind + "=" + name, where, device_nodes_of(dev.value("containerEdits", json::object()))});
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
  std::set<std::string> seen;
  for (const auto& name : *names) {
    if (!ends_with(name, ".json") && !ends_with(name, ".yaml") && !ends_with(name, ".yml")) continue;
    const std::string path = join_path(kSpecDir, name);
    auto text = fs.read_file(path);
    auto devices = text ? parse_spec(*text, path) : tl::unexpected(text.error());
    if (!devices) {
      index.problems.push_back({path, devices.error().message});
      continue;
    }
    for (auto& dev : *devices) {
      if (!seen.insert(dev.qualified_name).second) {
        index.problems.push_back(
            {path, dev.qualified_name + " is already defined by another spec; this definition is ignored."});
        continue;
      }
      index.devices.push_back(std::move(dev));
    }
  }
  std::sort(index.devices.begin(), index.devices.end(),
            [](const IndexedDevice& a, const IndexedDevice& b) { return a.qualified_name < b.qualified_name; });
  return index;
}

}  // namespace rgpu::cdi
