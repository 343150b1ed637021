#pragma once
// Binds, mounts, named volumes and --volumes-from, judged where dockerd will mount them (mount_spec.h)
// against the roots the host policy gives the repository (host_paths.h).
// Parts of the body's checks (body_checks.h), for admission's own files.

#include <optional>
#include <string>

#include "admission/body_checks.h"
#include "admission/host_config_fields.h"
#include "core/host_policy.h"
#include "docker/go_json.h"

namespace rgpu::admission {

/// Binds are "source:target[:mode]", read as dockerd's Linux parser reads them (parse_bind).
Refusal check_binds(const std::optional<docker::GoValue>& binds, CheckContext& context);

Refusal check_mounts(const std::optional<docker::GoValue>& mounts, CheckContext& context);

/// A container's mount points as the daemon lists them (GET /containers/{name}/json, Mounts):
/// what dockerd mounts at a start, whatever the HostConfig says (a copied or edited data root can
/// make them differ), and what --volumes-from copies. A bind's Source is the path it mounts (already
/// cleaned); a named volume is judged by what its driver mounts; an entry of any other kind that
/// names a host path is judged as a bind of it. Read-only as the daemon says, or when `read_only_all`.
Refusal check_mount_points(const docker::GoValue& mounts, const std::string& what, bool read_only_all,
                           CheckContext& context);

/// --volumes-from copies every mount point of the named container, binds included, into the new
/// one; that container may have been made before the gate, or its stored configuration edited.
/// Its mount points as the daemon lists them (GET /containers/{name}/json, Mounts) are judged as
/// if the new container bound them itself.
Refusal check_volumes_from(const std::optional<docker::GoValue>& from, CheckContext& context);

}  // namespace rgpu::admission
