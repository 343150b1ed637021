#pragma once
// Which CDI spec directories a dockerd reads, from what it answers (GET /info) or how it is
// configured (daemon.json), and whether one of them is a given directory of the machine: one
// reading for the gate's BuildKit verdict and doctor's checks of the daemons' spec directories,
// so the two cannot read one daemon two ways.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/root_fs.h"

namespace rgpu::docker {

/// Where a daemon's list of spec directories comes from.
enum class SpecDirsFrom { info, config, defaults };

struct CdiSpecDirs {
  SpecDirsFrom from = SpecDirsFrom::defaults;
  /// As the daemon names them; an entry that is no string as its JSON text, which is no path.
  std::vector<std::string> dirs;

  /// Those other than /etc/cdi, the one directory rediacc-gpu's specs and a repository's view
  /// (bound over it) are in.
  std::vector<std::string> besides_etc_cdi() const;
  bool reads_etc_cdi() const;
};

/// What the daemon's GET /info reports (CDISpecDirs: API 1.44, Docker 25 and later with CDI on);
/// absent when it reports none.
std::optional<CdiSpecDirs> reported_spec_dirs(const nlohmann::json& info);

/// What a daemon.json sets (a "cdi-spec-dirs" list), else Docker 25's defaults: /etc/cdi and
/// /var/run/cdi.
CdiSpecDirs configured_spec_dirs(const nlohmann::json& config);

/// What the daemon reports, else what its daemon.json sets (a daemon before API 1.44 says nothing).
CdiSpecDirs spec_dirs(const nlohmann::json& info, const nlohmann::json& config);

/// "features": {"cdi": …} of a daemon.json: absent unless it is set to true or false.
std::optional<bool> cdi_feature(const nlohmann::json& config);

/// True when `dir`, resolved as the daemon resolves it in its own root (`daemon_root`: its
/// /proc/PID/root, links and ".." staying in it), is the directory `machine_dir` of `fs` itself
/// (its device and inode), not a copy of it. A relative, missing or non-directory one is not: a
/// directory missing now could be made later, and the daemon's CDI cache watches for it.
bool same_directory(const RootFs& daemon_root, std::string_view dir, const RootFs& fs, std::string_view machine_dir);

}  // namespace rgpu::docker
