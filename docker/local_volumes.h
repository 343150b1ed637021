#pragma once
// What Docker's local volume driver mounts for a named volume when a container using it starts:
// the options stored with the volume in the daemon's data root (volumes/NAME/opts.json), which the
// driver reads when the daemon starts. They outlive the request that set them, and a data root
// copied in by a fork carries them while `docker volume inspect` shows none (its metadata is kept
// apart): so a volume is judged by this file, not by what made it.

#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "core/root_fs.h"

namespace rgpu::docker {

struct RunningDaemon;

/// The mount options stored with a local volume (its opts.json's MountType, MountDevice, MountOpts).
struct LocalVolumeMount {
  std::string type;
  std::string device;
  std::string options;
};

/// "type=none device=/etc o=bind", as `docker volume create --opt` names them.
std::string mount_text(const LocalVolumeMount& mount);

/// What `name`'s stored options mount, in the daemon whose data root is `data_root` (a machine
/// path); nothing for a plain directory (no options file, or empty options), or for a name no
/// volume of the local driver can have (not one path component). An error naming the file when it
/// cannot be read or parsed.
Result<std::optional<LocalVolumeMount>> local_volume_mount(const RootFs& fs, const std::string& data_root,
                                                           std::string_view name);

/// What named volume `name` of `daemon` mounts: "" for a plain one, else mount_text; an error
/// when its options cannot be read.
Result<std::string> volume_mount_of(const RootFs& fs, const RunningDaemon& daemon, std::string_view name);

}  // namespace rgpu::docker
