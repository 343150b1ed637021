#pragma once
// HostConfig.SecurityOpt read as dockerd's parseSecurityOpt reads it (daemon/daemon_unix.go,
// 20.10 to 26): a bare "no-new-privileges" or "disable", then key=value, or key:value when there
// is no '='. What a repository may set is decided on the parsed key and value.

#include <optional>
#include <string>

#include "admission/refusal.h"
#include "core/host_policy.h"
#include "docker/go_json.h"

namespace rgpu::admission {

/// A refusal message for a security option that loosens the container's confinement or that
/// dockerd would not accept; nothing when every option is allowed. Allowed: no-new-privileges
/// (bare or true), apparmor=docker-default, and an empty apparmor= or seccomp= (the daemon's
/// defaults). Refused: label (any: a label picks the SELinux
/// type and categories, spc_t or another tenant's), bare disable, seccomp (any profile: the CLI
/// sends a file's JSON inline, and a profile can allow every syscall), no-new-privileges=false,
/// writable-cgroups, other AppArmor profiles, and anything dockerd does not parse.
Refusal check_security_options(const std::optional<docker::GoValue>& options, const PolicyRules& policy = {});

/// A refusal message when MaskedPaths or ReadonlyPaths is set at all: dockerd uses a non-null
/// list verbatim instead of its defaults, so even [] (what the CLI sends for
/// --security-opt systempaths=unconfined) unmasks /proc/kcore, /proc/sys and the rest.
Refusal check_system_paths(const std::optional<docker::GoValue>& masked,
                           const std::optional<docker::GoValue>& readonly);

/// The same for a container the daemon stores, where both lists are always filled in: a refusal
/// message when either lacks one of Docker's default paths (a fork or an edited hostconfig.json
/// that unmasks /proc/kcore). Paths added to the defaults are the daemon's to add.
Refusal check_stored_system_paths(const std::optional<docker::GoValue>& masked,
                                  const std::optional<docker::GoValue>& readonly);

}  // namespace rgpu::admission
