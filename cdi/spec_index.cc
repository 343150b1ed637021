#include "cdi/spec_index.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "core/machine_paths.h"

namespace rgpu::cdi {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

namespace {

// Like the reference library: only .json and .yaml count, and a name that two files of the same
// directory define is a conflict that removes it, so it can be neither injected nor granted.
// `text_of` reads a file by its name in the directory: nothing for one that is no regular file,
// an error for one that cannot be read.
template <class TextOf>
SpecIndex index_files(const std::vector<std::string>& names, std::string_view dir, TextOf text_of) {
  SpecIndex index;
  std::map<std::string, std::vector<IndexedDevice>> by_name;
  for (const auto& name : names) {
    if (!ends_with(name, ".json") && !ends_with(name, ".yaml")) continue;
    const std::string path = join_path(dir, name);
    auto text = text_of(name);
    if (text && !*text) continue;
    if (!text) {
      index.problems.push_back({path, text.error().message});
      continue;
    }
    auto devices = parse_spec(**text, path);
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

// The library reads every *.json and *.yaml entry that is not itself a directory, following its
// links: a link to a directory, to nothing or round in a loop is a file it reports broken (and a
// directory it skips), so the operator reads the same here.
Result<std::optional<std::string>> broken_link(const std::string& path, NodeKind kind) {
  const char* to = kind == NodeKind::directory ? "a directory"
                   : kind == NodeKind::missing ? "nothing"
                                               : "something that is no regular file";
  return fail(path + " is a link to " + std::string(to) + "; CDI reports it broken, so it offers no names (remove it)");
}

// A host file type as the kinds broken_link tells apart.
NodeKind kind_of(std::filesystem::file_type type) {
  if (type == std::filesystem::file_type::directory) return NodeKind::directory;
  return type == std::filesystem::file_type::not_found ? NodeKind::missing : NodeKind::other;
}

// Whether the entry `name` of the machine's spec directory is itself a link, the directory's own
// links aside; a loop counts as one.
bool entry_is_link(const RootFs& fs, const std::string& name) {
  auto dir = fs.resolve(paths::kCdiSpecDir);
  if (!dir) return false;
  std::vector<std::string> links;
  return !fs.resolve(join_path(*dir, name), &links) || !links.empty();
}

}  // namespace

SpecIndex read_spec_index(const RootFs& fs) {
  auto names = fs.list_dir(paths::kCdiSpecDir);
  if (!names) {
    SpecIndex index;
    index.problems.push_back({paths::kCdiSpecDir, names.error().message});
    return index;
  }
  return index_files(*names, paths::kCdiSpecDir, [&fs](const std::string& name) -> Result<std::optional<std::string>> {
    const std::string path = join_path(paths::kCdiSpecDir, name);
    const NodeKind kind = fs.kind(path);
    if (kind == NodeKind::file) return fs.read_file(path);
    if (entry_is_link(fs, name)) return broken_link(path, kind);
    return std::nullopt;
  });
}

SpecIndex read_spec_dir(const std::filesystem::path& host_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(host_dir, ec)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return index_files(names, host_dir.string(),
                     [&host_dir](const std::string& name) -> Result<std::optional<std::string>> {
                       const auto path = host_dir / name;
                       std::error_code kind_ec;
                       if (!std::filesystem::is_regular_file(path, kind_ec)) {
                         if (!std::filesystem::is_symlink(std::filesystem::symlink_status(path, kind_ec)))
                           return std::nullopt;
                         return broken_link(path.string(), kind_of(std::filesystem::status(path, kind_ec).type()));
                       }
                       std::ifstream in(path, std::ios::binary);
                       std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
                       if (!in.good() && !in.eof()) return fail("cannot read " + path.string());
                       return std::optional<std::string>(std::move(text));
                     });
}

const IndexedDevice* find_device(const SpecIndex& index, std::string_view qualified_name) {
  for (const auto& d : index.devices) {
    if (d.qualified_name == qualified_name) return &d;
  }
  return nullptr;
}

}  // namespace rgpu::cdi
