#include "cdi/repo_views.h"

#include <atomic>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "cdi/reach_rules.h"
#include "cdi/spec_version.h"
#include "core/state_paths.h"
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
    // CDI reads .json files with its YAML reader too; the index has already parsed it the same way.
    auto doc = fs.read_file(path).and_then([&](const std::string& text) { return parse_yaml(text, path); });
    if (doc && doc->is_object()) out[path] = std::move(*doc);
  }
  return out;
}

// BuildKit (Docker 28 and later) lets a build step use a CDI device only with the builder's
// `device` entitlement, which only Docker 29 has, or when the device is marked with this. Every
// device in a view is one the repository holds, as its containers may, so its builds may too.
constexpr const char* kBuildAutoAllow = "org.mobyproject.buildkit.device.autoallow";

// Device annotations need cdiVersion 0.6.0: a spec declaring less is raised to it (each later
// version reads what the earlier ones did; a view's readers are Docker 25 and later).
void mark_for_builds(nlohmann::json& spec) {
  const int version = spec_version_number(spec.value("cdiVersion", std::string()));
  if (version != 0 && version < kAnnotationsVersion) spec["cdiVersion"] = spec_version_text(kAnnotationsVersion);
  for (auto& d : spec["devices"]) {
    if (!d.contains("annotations") || !d["annotations"].is_object()) d["annotations"] = nlohmann::json::object();
    d["annotations"][kBuildAutoAllow] = "true";
  }
}

// The spec with only the devices of `names` it defines, each usable by the repository's builds,
// or null when it defines none.
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
  mark_for_builds(copy);
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

struct ViewFile {
  std::string path;
  std::string content;  ///< empty: remove the file
};

// What one view must become: each wanted file with its text, then each file no longer wanted.
std::vector<ViewFile> plan_view(const RootFs& fs, const std::map<std::string, nlohmann::json>& specs,
                                const std::string& dir, const std::set<std::string>& names) {
  std::vector<ViewFile> plan;
  std::set<std::string> wanted;
  for (const auto& [path, spec] : specs) {
    auto view = filtered(spec, names);
    if (view.is_null()) continue;
    const std::string file = join_path(dir, base_name(path));
    wanted.insert(file);
    plan.push_back({file, view.dump(2) + "\n"});
  }
  for (const auto& name : fs.list_dir(dir).value_or(std::vector<std::string>{})) {
    const std::string file = join_path(dir, name);
    if (!wanted.count(file) && fs.kind(file) == NodeKind::file) plan.push_back({file, ""});
  }
  return plan;
}

Result<Change> apply(FileSink& sink, const ViewFile& f) {
  return f.content.empty() ? sink.remove(f.path) : sink.write(f.path, f.content, 0644);
}

// Each write is a file and a directory fsync: a few threads let the file system commit them
// together (500 views after an nvidia.yaml change: ~0.9 s alone, measured in bench/views_rebuild.sh).
Result<std::vector<Change>> apply_all(FileSink& sink, const std::vector<ViewFile>& plan) {
  constexpr size_t kThreads = 4;
  std::vector<std::optional<Result<Change>>> done(plan.size());
  std::atomic<size_t> next{0};
  const auto work = [&] {
    for (size_t i = next++; i < plan.size(); i = next++) done[i] = apply(sink, plan[i]);
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < kThreads && t < plan.size(); ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  std::vector<Change> changes;
  for (auto& d : done) {
    if (!*d) return tl::unexpected(d->error());
    changes.push_back(std::move(**d));
  }
  return changes;
}

}  // namespace

std::string view_dir(const std::string& repo) { return join_path(state::kViewsDir, repo); }

Result<std::vector<Change>> update_views(const RootFs& fs, FileSink& sink, const SpecIndex& index,
                                         const HeldNames& held) {
  HeldNames all = held;
  if (auto dirs = fs.list_dir(state::kViewsDir)) {
    for (const auto& repo : *dirs) {
      if (fs.kind(view_dir(repo)) == NodeKind::directory) all[repo];
    }
  }
  const auto specs = held_specs(fs, index, all);
  std::vector<ViewFile> plan;
  for (const auto& [repo, names] : all) {
    auto view = plan_view(fs, specs, view_dir(repo), viewable(index, names));
    plan.insert(plan.end(), std::make_move_iterator(view.begin()), std::make_move_iterator(view.end()));
  }
  return apply_all(sink, plan);
}

}  // namespace rgpu::cdi
