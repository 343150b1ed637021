#include "gate/spec_reviews.h"
#include "cdi/reach_rules.h"
#include "core/machine_paths.h"
#include "core/state_paths.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "cdi/hook_policy.h"
#include "cdi/repo_views.h"
#include "cdi/spec_index.h"
#include "grants/store.h"

namespace rgpu::gate {
namespace {

void add_stat(std::string& key, const std::string& host_path) {
  struct stat st {};
  key += host_path;
  if (::stat(host_path.c_str(), &st) == 0) {
    for (const auto n : {static_cast<long long>(st.st_ino), static_cast<long long>(st.st_mtim.tv_sec),
                         static_cast<long long>(st.st_mtim.tv_nsec), static_cast<long long>(st.st_size),
                         static_cast<long long>(st.st_uid), static_cast<long long>(st.st_mode)})
      key.append(1, ':').append(std::to_string(n));
  }
  key += "\n";
}

}  // namespace

namespace {

std::vector<std::filesystem::path> watched_dirs(const RootFs& fs, const std::filesystem::path& view) {
  std::vector<std::filesystem::path> dirs = {fs.host_path(paths::kCdiSpecDir),
                                             fs.host_path(state::kAllowedHooksPath).parent_path()};
  if (!view.empty()) dirs.push_back(view);
  for (const char* hook : cdi::kToolkitHooks) dirs.push_back(fs.host_path(hook).parent_path());
  std::sort(dirs.begin(), dirs.end());
  dirs.erase(std::unique(dirs.begin(), dirs.end()), dirs.end());
  return dirs;
}

bool is_link(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_symlink(std::filesystem::symlink_status(p, ec));
}

}  // namespace

std::filesystem::path view_of(const RootFs& fs, const std::string& repo) {
  return repo.empty() ? std::filesystem::path() : fs.host_path(cdi::view_dir(repo));
}

SpecReviews::SpecReviews(const RootFs& fs, const std::string& repo)
    : fs_(fs), reader_(fs), view_(view_of(fs, repo)), watch_(watched_dirs(fs, view_)) {}

std::string SpecReviews::state() {
  std::vector<std::string> files;
  std::error_code ec;
  bool links = false;
  for (const auto& dir : {fs_.host_path(paths::kCdiSpecDir), view_}) {
    if (dir.empty()) continue;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      files.push_back(e.path().string());
      links = links || e.is_symlink(ec);
    }
  }
  std::sort(files.begin(), files.end());
  std::string key;
  for (const auto& f : files) add_stat(key, f);
  add_stat(key, fs_.host_path(state::kAllowedHooksPath).string());
  links = links || is_link(fs_.host_path(state::kAllowedHooksPath));
  for (const char* hook : cdi::kToolkitHooks) {
    add_stat(key, fs_.host_path(hook).string());
    links = links || is_link(fs_.host_path(hook));
  }
  trust_watch_ = !links;
  return key;
}

void SpecReviews::refresh() {
  checked_ = std::chrono::steady_clock::now();
  if (have_ && trust_watch_ && watch_.unchanged()) return;
  std::string now = state();
  if (have_ && now == state_) return;
  items_.clear();
  nodes_.clear();
  names_.clear();
  node_names_.clear();
  std::map<std::string, std::tuple<size_t, size_t, std::string>, std::less<>> narrowest;
  for (const auto& d : cdi::read_spec_index(fs_).devices) {
    if (cdi::ungrantable_reason(d).empty()) {
      names_.push_back(d.qualified_name);
      const std::tuple<size_t, size_t, std::string> rank{d.device_nodes.size(), d.qualified_name.size(),
                                                         d.qualified_name};
      for (const auto& node : d.device_nodes) {
        auto [it, added] = narrowest.try_emplace(node, rank);
        if (!added && rank < it->second) it->second = rank;
      }
    }
    nodes_[d.qualified_name] = std::make_shared<Nodes>(Nodes{d.nodes, {}});
    auto items = grants::review_items(fs_, d);
    if (!items.empty()) items_[d.qualified_name] = std::move(items);
  }
  for (auto& [node, rank] : narrowest) node_names_[node] = std::move(std::get<2>(rank));
  std::error_code ec;
  if (!view_.empty() && std::filesystem::is_directory(view_, ec)) {
    // A name the view still maps but /etc/cdi no longer defines is a stale view's: no spec defines
    // it, and the gate refuses it as such rather than judge what the view would hand out.
    for (const auto& d : cdi::read_spec_dir(view_).devices) {
      auto it = nodes_.find(d.qualified_name);
      if (it == nodes_.end()) continue;
      auto& nodes = it->second->nodes;
      for (const auto& n : d.nodes) {
        // The view's copy of a node /etc/cdi already maps is read once a request, not twice.
        if (std::find(nodes.begin(), nodes.end(), n) == nodes.end()) nodes.push_back(n);
      }
    }
  }
  std::sort(names_.begin(), names_.end());
  names_.erase(std::unique(names_.begin(), names_.end()), names_.end());
  state_ = std::move(now);
  have_ = true;
}

std::vector<std::string> SpecReviews::of(const std::string& name) {
  const std::lock_guard hold(mutex_);
  refresh();
  const auto it = items_.find(name);
  return it == items_.end() ? std::vector<std::string>{} : it->second;
}

void SpecReviews::refresh_hints() {
  if (!have_ || std::chrono::steady_clock::now() - checked_ > std::chrono::seconds(1)) refresh();
}

std::vector<std::string> SpecReviews::defined() {
  const std::lock_guard hold(mutex_);
  refresh_hints();
  return names_;
}

std::string SpecReviews::name_for_node(std::string_view path) {
  const std::lock_guard hold(mutex_);
  refresh_hints();
  const auto it = node_names_.find(path);
  return it == node_names_.end() ? std::string() : it->second;
}

}  // namespace rgpu::gate

namespace rgpu::gate {

Result<std::optional<probe::Reach>> SpecReviews::reach(const std::string& name) {
  std::shared_ptr<Nodes> nodes;
  {
    const std::lock_guard hold(mutex_);
    refresh();
    const auto it = nodes_.find(name);
    if (it == nodes_.end()) return std::optional<probe::Reach>{};
    nodes = it->second;
  }
  auto r = reader_.reach(nodes->nodes, nodes->memo);
  if (!r) return fail(name + ": " + r.error().message);
  return std::optional<probe::Reach>(std::move(*r));
}

Result<std::vector<std::string>> SpecReviews::hardware(const std::string& name) {
  RGPU_TRY_ASSIGN(auto r, reach(name));
  return r ? std::move(r->identities) : std::vector<std::string>{};
}

}  // namespace rgpu::gate
