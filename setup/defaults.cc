#include "setup/defaults.h"

#include <algorithm>
#include <filesystem>

#include "docker/rediacc_layout.h"
#include "setup/steps.h"

namespace rgpu::setup {

std::string unit_tool_path(const RootFs& fs, const std::string& given) {
  if (!given.empty()) return given;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return kPackagedToolPath;
  if (fs.is_host_root()) return self.string();
  // Under --root: this binary's place in that root when it runs from there (an image or a WSL
  // distribution given the release's single file in /usr/local/bin), else the package's.
  const auto inside = self.lexically_relative(fs.root());
  if (inside.empty() || *inside.begin() == "..") return kPackagedToolPath;
  return (std::filesystem::path("/") / inside).string();
}

std::vector<std::string> disabled_hooks(const RootFs& fs, const std::vector<std::string>& given) {
  if (given.empty()) return recorded_disabled_hooks(fs);
  std::vector<std::string> out;
  for (const auto& h : given) {
    if (h != "none" && std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
  }
  return out;
}

std::string repo_daemon_unit(const RootFs& fs, const std::string& given) {
  if (!given.empty() && given != "auto") return given;
  return docker::rediacc_layout_evidence(fs) ? kRediaccRepoDaemonUnit : kDefaultRepoDaemonUnit;
}

namespace {

RecordedPolicy chosen_policy(const RootFs& fs, const std::string& given) {
  if (const auto named = parse_host_policy(given)) return {*named, "--host-policy=" + given};
  if (auto evidence = docker::rediacc_layout_evidence(fs))
    return {HostPolicy::rediacc, "found a Rediacc layout: " + *evidence};
  return {HostPolicy::strict, "found no Rediacc layout (no rediacc-docker-ID unit or /run/rediacc socket)"};
}

}  // namespace

Result<RecordedPolicy> host_policy(const RootFs& fs, const std::string& given, const std::vector<std::string>& roots) {
  auto out = chosen_policy(fs, given);
  if (!roots.empty() && roots != std::vector<std::string>{"default"}) {
    out.bind_roots.emplace();
    for (const auto& r : roots) {
      RGPU_TRY_ASSIGN(auto root, parse_bind_root(r));
      out.bind_roots->push_back(std::move(root));
    }
    out.bind_roots_named = true;
    return out;
  }
  if (roots.empty()) {
    RGPU_TRY_ASSIGN(const auto recorded, read_host_policy(fs));
    if (recorded && recorded->bind_roots_named && recorded->bind_roots) {
      out.bind_roots = recorded->bind_roots;
      out.bind_roots_named = true;
      return out;
    }
  }
  out.bind_roots = *default_bind_roots(out.policy);
  return out;
}

}  // namespace rgpu::setup
