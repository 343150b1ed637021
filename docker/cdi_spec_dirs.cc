#include "docker/cdi_spec_dirs.h"

#include <sys/stat.h>

#include <algorithm>

#include "core/machine_paths.h"

namespace rgpu::docker {
namespace {

std::vector<std::string> entries(const nlohmann::json& list) {
  std::vector<std::string> out;
  for (const auto& d : list) out.push_back(d.is_string() ? d.get<std::string>() : d.dump());
  return out;
}

}  // namespace

std::vector<std::string> CdiSpecDirs::besides_etc_cdi() const {
  std::vector<std::string> out;
  for (const auto& d : dirs) {
    if (d != paths::kCdiSpecDir) out.push_back(d);
  }
  return out;
}

bool CdiSpecDirs::reads_etc_cdi() const {
  return std::find(dirs.begin(), dirs.end(), paths::kCdiSpecDir) != dirs.end();
}

std::optional<CdiSpecDirs> reported_spec_dirs(const nlohmann::json& info) {
  const auto list = info.is_object() ? info.find("CDISpecDirs") : info.end();
  if (!info.is_object() || list == info.end() || !list->is_array()) return std::nullopt;
  return CdiSpecDirs{SpecDirsFrom::info, entries(*list)};
}

CdiSpecDirs configured_spec_dirs(const nlohmann::json& config) {
  const auto list = config.is_object() ? config.find("cdi-spec-dirs") : config.end();
  if (!config.is_object() || list == config.end() || !list->is_array())
    return {SpecDirsFrom::defaults, {paths::kCdiSpecDir, paths::kDockerRunCdiDir}};
  return {SpecDirsFrom::config, entries(*list)};
}

CdiSpecDirs spec_dirs(const nlohmann::json& info, const nlohmann::json& config) {
  if (auto reported = reported_spec_dirs(info)) return std::move(*reported);
  return configured_spec_dirs(config);
}

std::optional<bool> cdi_feature(const nlohmann::json& config) {
  const auto features = config.is_object() ? config.find("features") : config.end();
  if (!config.is_object() || features == config.end() || !features->is_object()) return std::nullopt;
  const auto cdi = features->find("cdi");
  if (cdi == features->end() || !cdi->is_boolean()) return std::nullopt;
  return cdi->get<bool>();
}

bool same_directory(const RootFs& daemon_root, std::string_view dir, const RootFs& fs, std::string_view machine_dir) {
  if (dir.empty() || dir.front() != '/') return false;
  const auto seen = daemon_root.stat(dir);
  const auto it = fs.stat(machine_dir);
  return seen && it && S_ISDIR(seen->st_mode) && seen->st_dev == it->st_dev && seen->st_ino == it->st_ino;
}

}  // namespace rgpu::docker
