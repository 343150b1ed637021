#pragma once
// Where rediacc-gpu keeps what it owns on a machine (machine paths; RootFs maps them under --root).
// Configuration others read lives in /etc/rediacc/gpu; the tool's own bookkeeping (locks, the
// record of which files setup owns, scratch files) lives in /var/lib/rediacc/gpu, one place an
// operator can look at or wipe. docs/files.md lists them all.

namespace rgpu::state {

inline constexpr const char* kConfigDir = "/etc/rediacc/gpu";
inline constexpr const char* kStateDir = "/var/lib/rediacc/gpu";

/// One environment file per repository's plugin (REPO.env), read by rediacc-gpu-authz@REPO:
/// REDIACC_GPU_DOCKER_HOST names the repository's own daemon, where the plugin reads stored
/// containers. Setup writes it for each repository daemon it finds running behind our plugin.
inline constexpr const char* kPluginEnvDir = "/etc/rediacc/gpu/plugins";
/// The variable authz-plugin and admit read when --docker-host is not given.
inline constexpr const char* kDockerHostVariable = "REDIACC_GPU_DOCKER_HOST";

/// Held by setup for its whole run: a second setup waits, then finds nothing to do.
inline constexpr const char* kSetupLock = "/var/lib/rediacc/gpu/setup.lock";
/// Held by grant and revoke while they read, change and write grants.json.
inline constexpr const char* kGrantsLock = "/var/lib/rediacc/gpu/grants.lock";
/// Present while setup is responsible for /etc/cdi/nvidia.yaml (it, nvidia-cdi-refresh and our
/// boot unit regenerate it), so `--install-nvidia-toolkit=false` removes it whatever its content.
inline constexpr const char* kNvidiaSpecOwned = "/var/lib/rediacc/gpu/nvidia-spec.owned";
/// nvidia-ctk's output before setup installs it into /etc/cdi; removed once installed.
inline constexpr const char* kGeneratedNvidiaSpec = "/var/lib/rediacc/gpu/nvidia.yaml.generated";
/// The canary's last results, one file per repository (REPO.json), with the last success.
inline constexpr const char* kCanaryDir = "/var/lib/rediacc/gpu/canary";
/// The canary timer's settings per repository (REPO.env: the image), written by the operator.
inline constexpr const char* kCanaryEnvDir = "/etc/rediacc/gpu/canary";
/// When each grant was last seen in use (usage, metrics and doctor keep it): what doctor's
/// granted-but-idle note reads. Rebuilt when removed.
inline constexpr const char* kGrantUseRecord = "/var/lib/rediacc/gpu/grant-use.json";
/// The host's cgroup mode and each repository daemon's cgroup driver as setup last found them
/// (docker/cgroup_record.h): doctor names a change since.
inline constexpr const char* kCgroupRecord = "/var/lib/rediacc/gpu/cgroup.json";
/// The dockerd that renet's repository daemons start by name, first on their PATH (units'
/// dockerd_shim): it runs the machine's dockerd behind the repository's plugin.
inline constexpr const char* kDockerdShimDir = "/var/lib/rediacc/gpu/dockerd-shim";
inline constexpr const char* kDockerdShim = "/var/lib/rediacc/gpu/dockerd-shim/dockerd";
/// The verifier in front of runc: this directory holds `runc`, a link to rediacc-gpu, and setup puts
/// it on the guarded daemons' PATH after the dockerd shim, before the machine's runc.
inline constexpr const char* kRuntimeDir = "/var/lib/rediacc/gpu/runtime";
/// Where the verifier mounts each bind source it opened, for runc to bind from: a tmpfs of its own,
/// private, that only root can enter (a directory per runc command, removed when it returns).
inline constexpr const char* kRuntimeStagingDir = "/run/rediacc-gpu/staging";
/// NVIDIA's armoured repository key as downloaded; removed once dearmored into the keyring.
inline constexpr const char* kDownloadedKey = "/var/lib/rediacc/gpu/nvidia-container-toolkit.gpgkey";

/// Files and directories others read, each named here once (docs/files.md says what each holds).
/// The parent of every view (machine path).
inline constexpr const char* kViewsDir = "/var/lib/rediacc/gpu/cdi";
/// One path a line, '#' starts a comment: hook programs the operator allows beside the toolkit's.
inline constexpr const char* kAllowedHooksPath = "/etc/rediacc/gpu/allowed-hooks";
inline constexpr const char* kGrantsPath = "/etc/rediacc/gpu/grants.json";
/// The machine's host policy as setup chose it (strict or rediacc, and why): what the gate
/// applies beyond its absolute refusals (core/host_policy.h).
inline constexpr const char* kHostPolicyPath = "/etc/rediacc/gpu/host-policy.json";
inline constexpr const char* kInventoryPath = "/etc/rediacc/gpu/inventory.json";
inline constexpr const char* kNfdFeaturePath = "/etc/kubernetes/node-feature-discovery/features.d/rediacc-gpu";
/// nvidia-cdi-refresh's environment as setup redirects it; it also records the hooks the
/// operator disabled (NVIDIA_CTK_CDI_GENERATE_DISABLED_HOOKS, which nvidia-ctk reads), so a later
/// setup keeps them.
inline constexpr const char* kNvidiaRefreshEnv = "/etc/rediacc/gpu/nvidia-cdi-refresh.env";

}  // namespace rgpu::state
