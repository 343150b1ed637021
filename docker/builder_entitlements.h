#pragma once
// What a dockerd's own BuildKit grants the builds it runs, from "builder": {"entitlements": …} of
// its daemon.json: dockerd has no flag for them, and reads them once, when it starts (neither
// SIGHUP nor anything else reloads the builder). Each default is dockerd's when the key is absent
// (builder-next/controller.go getEntitlements, 20.10 to 29): network-host on, security-insecure
// off, device on (29.0+; 28.x's BuildKit attaches only the CDI devices its specs mark
// auto-allowed, as a view marks its own, and 26's none at all). Doctor and the gate judge them
// with the same functions, so they cannot disagree on one file.

#include <chrono>
#include <optional>
#include <string>

#include "core/result.h"
#include "core/root_fs.h"
#include "docker/running_daemons.h"

namespace rgpu::docker {

struct BuilderEntitlements {
  bool network_host = true;        ///< RUN --network=host: a step shares the host's network
  bool security_insecure = false;  ///< RUN --security=insecure: a step runs privileged
  bool device = true;              ///< RUN --device NAME: a step gets a CDI device the daemon resolves
};

/// The entitlements a daemon.json's text grants, read as dockerd's Go decoder reads it (keys folded
/// as Go folds them); no text or an empty one grants the defaults. An error for text that is no
/// JSON object (dockerd does not start with it) and for two spellings of one key, which Go merges
/// with the last winning: refused rather than guessed. Pure.
Result<BuilderEntitlements> builder_entitlements(const std::optional<std::string>& daemon_json);

/// What a builder's entitlements let a build step do that no container of the repository may, the
/// first of: run privileged (security-insecure); share the host's network (network-host), unless
/// the machine's policy lets containers do so (`host_network`). The gate refuses BuildKit, and
/// doctor says it does, for the same answer. Pure.
enum class BuilderReach { none, privileged, host_network };
BuilderReach builder_reach(const BuilderEntitlements& granted, bool host_network);

/// A daemon's daemon.json as it is now.
struct ConfigFile {
  std::string path;                 ///< as the daemon names it
  std::optional<std::string> text;  ///< absent: there is no such file
  /// When it last changed (its ctime, which no one can set back); for a missing file, its
  /// directory's (a removal changes that); absent when neither is there.
  std::optional<std::chrono::system_clock::time_point> changed;
  bool required = false;  ///< named by --config-file: dockerd does not start without it
};

/// What the daemon that had started by `started` (ProcessStart::by) builds with: `config`'s
/// entitlements, while the file is unchanged since; an error when it cannot be told (the file, or
/// the directory of a missing one, changed at or after then, or a required file is gone), saying
/// to restart the daemon, and when the file cannot be judged. A change within the tick the daemon
/// started in counts as one it read: dockerd reads its config well after its process starts (Go's
/// runtime and dockerd's package initialisation come first: over 100 ms under strace), and a
/// writer that starts the daemon right after writing the file is not refused for it. Pure.
Result<BuilderEntitlements> running_builder_entitlements(const ConfigFile& config,
                                                         std::chrono::system_clock::time_point started);

/// The daemon's daemon.json (config_path) as `daemon_root` shows it: the daemon's own view of
/// files (/proc/PID/root), or the machine's for doctor.
Result<ConfigFile> read_config_file(const RootFs& daemon_root, const RunningDaemon& daemon);

/// running_builder_entitlements of `daemon`: its daemon.json read in `daemon_root`, its start read
/// from the /proc of `proc_root` (process_started).
Result<BuilderEntitlements> daemon_builder_entitlements(const RootFs& proc_root, const RootFs& daemon_root,
                                                        const RunningDaemon& daemon);

}  // namespace rgpu::docker
