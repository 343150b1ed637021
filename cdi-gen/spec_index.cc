#include "cdi-gen/spec_index.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace rgpu::cdi {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

bool only(std::string_view s, std::string_view extra) {
  return std::all_of(s.begin(), s.end(), [&](char c) { return alnum(c) || extra.find(c) != std::string_view::npos; });
}

}  // namespace

bool valid_vendor(std::string_view v) { return !v.empty() && alpha(v.front()) && alnum(v.back()) && only(v, "-_."); }
bool valid_class(std::string_view c) { return !c.empty() && alpha(c.front()) && alnum(c.back()) && only(c, "-_."); }
bool valid_device_name(std::string_view n) {
  return !n.empty() && alnum(n.front()) && alnum(n.back()) && only(n, "-_.:");
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
