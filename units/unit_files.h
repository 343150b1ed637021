#pragma once
// The systemd units, drop-ins and udev rule setup writes, rendered as text. Writing them goes
// through a FileSink; enabling them through units/activation.h.

#include <array>
#include <string>
#include <vector>

namespace rgpu::units {

struct UnitFile {
  std::string path;  ///< machine path
  std::string content;
};

struct UnitOptions {
  std::string tool_path = "/usr/bin/rediacc-gpu";  ///< this binary, as the units run it
  std::string nvidia_ctk_path = "/usr/bin/nvidia-ctk";
  bool wsl = false;
  /// The repositories' Docker daemons: a template ("rediacc-docker@.service", the repository is
  /// %i) or a name prefix ("rediacc-docker-.service", renet's units rediacc-docker-{id}.service:
  /// the drop-in applies to each, systemd 246 and later, and the repository is %j, the network id).
  std::string repo_daemon_unit = "rediacc-docker@.service";
  bool packaged = false;  ///< rendered for the package's vendor directories, not by setup into /etc
  /// nvidia-ctk's hooks left out of every generated NVIDIA spec (setup --nvidia-disable-hook).
  std::vector<std::string> nvidia_disabled_hooks = {};
};

inline constexpr const char* kDisabledHooksVariable = "NVIDIA_CTK_CDI_GENERATE_DISABLED_HOOKS";
/// Every NVIDIA spec we have generated names each GPU and MIG device by index and by UUID, given
/// explicitly whatever the toolkit's default (1.14 made index alone): the UUID name is the one that
/// stays on its card when the driver numbers the GPUs anew.
inline constexpr const char* kNameStrategiesVariable = "NVIDIA_CTK_CDI_GENERATE_DEVICE_NAME_STRATEGIES";
inline constexpr std::array<const char*, 2> kNameStrategyArgs = {"--device-name-strategy=index",
                                                                 "--device-name-strategy=uuid"};

inline constexpr const char* kNvidiaSpecUnit = "rediacc-gpu-nvidia-spec.service";
/// Starts kNvidiaSpecUnit when the nvidia module loads.
inline constexpr const char* kNvidiaUdevRule = "/etc/udev/rules.d/90-rediacc-gpu-nvidia.rules";
/// How long kNvidiaSpecUnit waits for a driver that is not ready yet, before it gives up until the
/// module loads: the repositories' daemons start after it at boot.
inline constexpr int kNvidiaDriverWaitSeconds = 60;
inline constexpr const char* kRefreshUnit = "rediacc-gpu-refresh.service";
inline constexpr const char* kPluginSocketUnit = "rediacc-gpu-authz@.socket";
inline constexpr const char* kPluginServiceUnit = "rediacc-gpu-authz@.service";
inline constexpr const char* kViewsPathUnit = "rediacc-gpu-views.path";
inline constexpr const char* kViewsServiceUnit = "rediacc-gpu-views.service";
inline constexpr const char* kCanaryServiceUnit = "rediacc-gpu-canary@.service";
inline constexpr const char* kCanaryTimerUnit = "rediacc-gpu-canary@.timer";

/// nvidia-cdi-refresh pointed at /etc/cdi/nvidia.yaml (and WSL mode under WSL): our environment
/// file, and a drop-in that reads it after the package's own, so ours wins and survives the
/// package's conffile updates. Written before the package is installed: its post-install starts
/// the refresh at once.
std::vector<UnitFile> nvidia_refresh_redirect(const UnitOptions& options);

/// The NVIDIA spec regenerated (and the driver's control nodes made) at every boot, whenever
/// nvidia-persistenced starts (the spec mounts its socket only if it existed when generated; under
/// WSL a Windows driver update moves the driver store) and when the nvidia module loads (a udev
/// rule), and the drop-in that shows the repositories' daemons the persistenced
/// directory, /etc/cdi and nvidia-cdi-hook.
std::vector<UnitFile> nvidia_units(const UnitOptions& options);

/// The authorization plugin of each repository's daemon, socket-activated: the template socket
/// listens where dockerd discovers plugin rediacc-gpu-REPO (/run/docker/plugins), so the daemon
/// needs only --authorization-plugin=rediacc-gpu-REPO, and the socket exists before either starts.
/// Enabled per repository: systemctl enable --now rediacc-gpu-authz@REPO.socket.
std::vector<UnitFile> plugin_units(const UnitOptions& options);

/// The environment file of repository REPO's plugin (/etc/rediacc/gpu/plugins/REPO.env): where it
/// reads stored containers, its daemon at `docker_host`.
std::string plugin_environment(const std::string& docker_host);

/// Each repository's daemon reads its own CDI view as /etc/cdi: a drop-in for the repository
/// daemons' template that binds /var/lib/rediacc/gpu/cdi/%i read-only over /etc/cdi in the
/// daemon's mount namespace (made empty first when missing); and a path unit that rebuilds every
/// view when a spec in /etc/cdi or the grants file changes (nvidia-cdi-refresh, our boot unit,
/// a hand edit), with the oneshot service it starts.
std::vector<UnitFile> view_units(const UnitOptions& options);

/// The specifier that names the repository in the daemons' drop-ins: %i for a template, %j (the
/// part after the prefix's last dash) for a prefix drop-in.
std::string repository_specifier(const UnitOptions& options);

/// True when `unit` names a prefix drop-in's units ("rediacc-docker-.service").
bool is_prefix_unit(const std::string& unit);

/// The dockerd that renet's repository daemon units start by name, put first on their PATH: it
/// runs the machine's dockerd with --authorization-plugin=rediacc-gpu-REPO (REPO from the unit's
/// REDIACC_GPU_REPO), and refuses to start one without it. renet rewrites each daemon's
/// daemon.json at every start, so the plugin is given on the command line, which it never sees.
/// It lies at state::kDockerdShim.
std::string dockerd_shim(const UnitOptions& options);

/// For prefix daemon units (renet's): the drop-in that starts each repository's plugin socket
/// before its daemon, puts the dockerd shim first on the daemon's PATH and binds the view over
/// /run/cdi as well as /etc/cdi (Docker 25+ reads both unless cdi-spec-dirs says otherwise, and
/// renet's daemon.json is renet's). Empty for a template unit.
std::vector<UnitFile> gate_units(const UnitOptions& options);

/// For template daemon units: the drop-in that puts the verifier in front of runc (the directory
/// state::kRuntimeDir, whose runc is this binary) first on each repository daemon's PATH, and names
/// the repository (REDIACC_GPU_REPO=%i). Empty for a prefix unit, whose gate drop-in does both.
std::vector<UnitFile> runtime_units(const UnitOptions& options);

/// Where gate_units puts its drop-in for `repo_daemon_unit` (a prefix unit): what starts each of
/// renet's daemons behind its gate, read by doctor to tell whether setup has wired it.
std::string gate_dropin_path(const std::string& repo_daemon_unit);

/// Our specs and the inventory regenerated when a render node appears or disappears: a oneshot
/// service and the udev rule that starts it.
std::vector<UnitFile> hotplug_units(const UnitOptions& options);

/// The hourly canary of a repository's names through its own daemon: a template service running
/// `rediacc-gpu canary --repo REPO` and its timer. Enabled per repository by the operator
/// (systemctl enable --now rediacc-gpu-canary@REPO.timer); the image comes from
/// REDIACC_GPU_CANARY_IMAGE in /etc/rediacc/gpu/canary/REPO.env, else busybox.
std::vector<UnitFile> canary_units(const UnitOptions& options);

/// Where a package would ship the unit or rule setup writes at `etc_path`:
/// /etc/systemd/system/X -> /lib/systemd/system/X, /etc/udev/rules.d/X -> /lib/udev/rules.d/X.
/// Empty for any other path (drop-ins, environment files).
std::string vendor_path(const std::string& etc_path);

/// The units and rule the Debian package ships (hotplug and plugin), at their vendor paths, for
/// `tool_path` (the package's /usr/bin/rediacc-gpu): the same text setup writes, under a header
/// that says where it came from. The NVIDIA spec unit and the drop-ins stay setup's: they depend
/// on the machine.
std::vector<UnitFile> packaged_units(const std::string& tool_path = "/usr/bin/rediacc-gpu");

/// True for a file setup wrote (any version): its first line is setup's header.
bool written_by_setup(const std::string& content);

}  // namespace rgpu::units
