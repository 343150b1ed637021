#include "cdi-gen/repo_views.h"

#include <nlohmann/json.hpp>

#include "core/structured_text.h"

namespace rgpu::cdi {
namespace {

std::string base_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

// Each spec file that defines a name someone holds, parsed once for all the views.
std::map<std::string, nlohmann::json> held_specs(const RootFs& fs, const SpecIndex& index, const HeldNames& held) {
  std::set<std::string> paths;
  for (const auto& d : index.devices) {
    for (const auto& [repo, names] : held) {
      if (names.count(d.qualified_name)) paths.insert(d.spec_path);
    }
  }
  std::map<std::string, nlohmann::json> out;
  for (const auto& path : paths) {
    auto text = fs.read_file(path);
    // CDI reads .json files with its YAML reader too; the index has already parsed it the same way.
    auto doc = text ? parse_yaml(*text, path) : tl::unexpected(text.error());
    if (doc && doc->is_object()) out[path] = std::move(*doc);
  }
  return out;
}

// The spec with only the devices of `names` it defines, or null when it defines none.
nlohmann::json filtered(const nlohmann::json& spec, const std::set<std::string>& names) {
  const auto kind = spec.value("kind", std::string());
  auto devices = nlohmann::json::array();
  if (const auto all = spec.find("devices"); all != spec.end() && all->is_array()) {
    for (const auto& d : *all) {
      if (d.is_object() && d.contains("name") && d["name"].is_string() &&
          names.count(kind + "=" + d["name"].get<std::string>()))
        devices.push_back(d);
    }
  }
  if (devices.empty()) return nullptr;
  auto copy = spec;
  copy["devices"] = std::move(devices);
  return copy;
}

// The names of `repo` that the index defines without conflict and that may be granted at all.
std::set<std::string> viewable(const SpecIndex& index, const std::set<std::string>& names) {
  std::set<std::string> out;
  for (const auto& d : index.devices) {
    if (names.count(d.qualified_name) && ungrantable_reason(d).empty()) out.insert(d.qualified_name);
  }
  return out;
}

Result<void> update_view(const RootFs& fs, FileSink& sink, const std::map<std::string, nlohmann::json>& specs,
                         const std::string& dir, const std::set<std::string>& names, std::vector<Change>& changes) {
  std::set<std::string> wanted;
  for (const auto& [path, spec] : specs) {
    auto view = filtered(spec, names);
    if (view.is_null()) continue;
    const std::string file = join_path(dir, base_name(path));
    wanted.insert(file);
    auto written = sink.write(file, view.dump(2) + "\n", 0644);
    if (!written) return tl::unexpected(written.error());
    changes.push_back(*written);
  }
  auto present = fs.list_dir(dir);
  if (!present) return tl::unexpected(present.error());
  for (const auto& name : *present) {
    const std::string file = join_path(dir, name);
    if (wanted.count(file) || fs.kind(file) != NodeKind::file) continue;
    auto removed = sink.remove(file);
    if (!removed) return tl::unexpected(removed.error());
    changes.push_back(*removed);
  }
  return {};
}

}  // namespace

std::string view_dir(const std::string& repo) { return join_path(kViewsDir, repo); }

Result<std::vector<Change>> update_views(const RootFs& fs, FileSink& sink, const SpecIndex& index,
                                         const HeldNames& held) {
  HeldNames all = held;
  if (auto dirs = fs.list_dir(kViewsDir)) {
    for (const auto& repo : *dirs) {
      if (fs.kind(view_dir(repo)) == NodeKind::directory) all[repo];
    }
  }
  const auto specs = held_specs(fs, index, all);
  std::vector<Change> changes;
  for (const auto& [repo, names] : all) {
    if (auto ok = update_view(fs, sink, specs, view_dir(repo), viewable(index, names), changes); !ok)
      return tl::unexpected(ok.error());
  }
  return changes;
}

}  // namespace rgpu::cdi
