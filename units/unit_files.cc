#include "units/unit_files.h"

#include "core/machine_paths.h"
#include "core/state_paths.h"

namespace rgpu::units {
namespace {

constexpr const char* kSetupHeader =
    "# Written by rediacc-gpu setup; changes here are overwritten at the next setup.\n";
constexpr const char* kPackageHeader =
    "# Shipped by the rediacc-gpu package; a file of the same name under /etc overrides it.\n";
constexpr const char* kRedirectEnv = state::kNvidiaRefreshEnv;

std::string header(const UnitOptions& o) { return o.packaged ? kPackageHeader : kSetupHeader; }

std::string dropin_dir(const std::string& unit) { return "/etc/systemd/system/" + unit + ".d"; }

// The repository daemons' PATH after the dockerd shim: the verifier in front of runc first.
const std::string kSystemPath =
    std::string(state::kRuntimeDir) + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

}  // namespace

std::vector<UnitFile> nvidia_refresh_redirect(const UnitOptions& o) {
  std::string env = std::string(kSetupHeader) +
                    "# nvidia-cdi-refresh writes where the repositories' Docker daemons read specs; its default,\n"
                    "# /var/run/cdi, would outrank /etc/cdi and shadow the spec setup generates.\n"
                    "NVIDIA_CTK_CDI_OUTPUT_FILE_PATH=" +
                    paths::kNvidiaSpec + "\n";
  if (o.wsl) env += "NVIDIA_CTK_CDI_GENERATE_MODE=wsl\n";
  env += "# Each GPU named by index and by UUID, the name that stays on its card.\n";
  env += std::string(kNameStrategiesVariable) + "=index,uuid\n";
  if (!o.nvidia_disabled_hooks.empty()) {
    env += "# Hooks left out of the spec (setup --nvidia-disable-hook); kept by every later setup.\n";
    env += std::string(kDisabledHooksVariable) + "=";
    for (size_t i = 0; i < o.nvidia_disabled_hooks.size(); ++i) env += (i ? "," : "") + o.nvidia_disabled_hooks[i];
    env += "\n";
  }
  std::string dropin = std::string(kSetupHeader) +
                       "# A later EnvironmentFile= overrides the package's nvidia-cdi-refresh.env.\n"
                       "[Service]\nEnvironmentFile=" +
                       kRedirectEnv + "\n";
  return {{kRedirectEnv, env}, {dropin_dir("nvidia-cdi-refresh.service") + "/50-rediacc-gpu.conf", dropin}};
}

std::vector<UnitFile> nvidia_units(const UnitOptions& o) {
  // The control nodes the driver makes only at first use (nvidia-uvm, -uvm-tools, -modeset), then
  // the spec: both by `cdi nvidia`, which keeps the last good spec while the driver is not ready.
  // At boot it runs before the repositories' daemons (their views come after this unit).
  std::string refresh = o.tool_path + " cdi nvidia --wait=" + std::to_string(kNvidiaDriverWaitSeconds) +
                        " --nvidia-ctk=" + o.nvidia_ctk_path;
  for (const auto& hook : o.nvidia_disabled_hooks) refresh += " --disable-hook=" + hook;
  std::string spec_unit = std::string(kSetupHeader) +
                          "[Unit]\nDescription=Make the NVIDIA driver's control nodes and regenerate the NVIDIA CDI "
                          "spec in /etc/cdi for rediacc-gpu\n"
                          "After=nvidia-persistenced.service systemd-modules-load.service\n"
                          "ConditionPathExists=" +
                          o.nvidia_ctk_path +
                          "\n\n[Service]\nType=oneshot\n"
                          "# Waits for a driver that loads late; the udev rule starts it again when the module loads.\n"
                          "ExecStart=" +
                          refresh + "\nTimeoutStartSec=" + std::to_string(kNvidiaDriverWaitSeconds + 60) +
                          "\n\n[Install]\nWantedBy=multi-user.target nvidia-persistenced.service\n";
  // Debian's package names the module file nvidia-current.ko: the kernel calls it nvidia_current.
  std::string rule = std::string(kSetupHeader) +
                     "# The NVIDIA driver loading (at boot, or after an update or a reload): its control nodes and\n"
                     "# the NVIDIA spec follow it.\n"
                     "ACTION==\"add\", SUBSYSTEM==\"module\", KERNEL==\"nvidia|nvidia_current\", "
                     "RUN+=\"/usr/bin/systemctl --no-block start " +
                     std::string(kNvidiaSpecUnit) + "\"\n";
  std::string daemon_dropin = std::string(kSetupHeader) +
                              "# The NVIDIA spec mounts /run/nvidia-persistenced/socket into containers. Binding the\n"
                              "# directory, not the socket, carries a restart of nvidia-persistenced through.\n"
                              "[Unit]\nAfter=nvidia-persistenced.service\n\n[Service]\n"
                              "BindReadOnlyPaths=-/run/nvidia-persistenced\n"
                              "BindReadOnlyPaths=-/usr/bin/nvidia-cdi-hook\n";
  return {{"/etc/systemd/system/" + std::string(kNvidiaSpecUnit), spec_unit},
          {dropin_dir(o.repo_daemon_unit) + "/50-rediacc-gpu.conf", daemon_dropin},
          {kNvidiaUdevRule, rule}};
}

std::vector<UnitFile> plugin_units(const UnitOptions& o) {
  const std::string socket = header(o) +
                             "[Unit]\nDescription=rediacc-gpu authorization plugin socket of repository %i\n\n"
                             "[Socket]\nListenStream=/run/docker/plugins/rediacc-gpu-%i.sock\nSocketMode=0600\n"
                             "DirectoryMode=0755\nRemoveOnStop=yes\n\n[Install]\nWantedBy=sockets.target\n";
  // Read-only everywhere: the plugin reads grants and specs and writes nothing.
  const std::string service = header(o) +
                              "[Unit]\nDescription=rediacc-gpu authorization plugin of repository %i\n"
                              "Requires=rediacc-gpu-authz@%i.socket\nAfter=rediacc-gpu-authz@%i.socket\n\n"
                              "[Service]\n# REDIACC_GPU_DOCKER_HOST: the repository's own daemon, where stored "
                              "containers are read.\nEnvironmentFile=-" +
                              std::string(state::kPluginEnvDir) + "/%i.env\nExecStart=" + o.tool_path +
                              " authz-plugin --repo %i\nRestart=on-failure\nNoNewPrivileges=yes\nProtectSystem=strict\n"
                              "ProtectHome=yes\nPrivateTmp=yes\nPrivateNetwork=yes\n";
  return {{"/etc/systemd/system/" + std::string(kPluginSocketUnit), socket},
          {"/etc/systemd/system/" + std::string(kPluginServiceUnit), service}};
}

std::string plugin_environment(const std::string& docker_host) {
  return std::string(kSetupHeader) +
         "# The repository's own daemon: its plugin judges stored containers from there.\n" +
         state::kDockerHostVariable + "=" + docker_host + "\n";
}

bool is_prefix_unit(const std::string& unit) { return unit.ends_with("-.service"); }

std::string repository_specifier(const UnitOptions& o) { return is_prefix_unit(o.repo_daemon_unit) ? "%j" : "%i"; }

std::string dockerd_shim(const UnitOptions& o) {
  return "#!/bin/sh\n" + header(o) +
         "# renet starts its repository daemons' dockerd by name: this one is first on their PATH (the drop-in\n"
         "# rediacc-docker-.service.d/70-rediacc-gpu-gate.conf) and runs the machine's dockerd behind the\n"
         "# repository's rediacc-gpu plugin. renet rewrites daemon.json at every start; it never sees this flag.\n"
         "if [ -z \"$REDIACC_GPU_REPO\" ]; then\n"
         "  echo \"rediacc-gpu: REDIACC_GPU_REPO is not set, so no dockerd is started without its gate\" >&2\n"
         "  exit 1\nfi\n"
         "# The machine's dockerd: the first on PATH after this directory.\n"
         "self=$(dirname \"$0\")\n"
         "PATH=$(printf '%s' \"$PATH\" | sed \"s#$self:##g\")\nexport PATH\n"
         "exec dockerd --authorization-plugin=\"rediacc-gpu-$REDIACC_GPU_REPO\" \"$@\"\n";
}

std::vector<UnitFile> gate_units(const UnitOptions& o) {
  if (!is_prefix_unit(o.repo_daemon_unit)) return {};
  const std::string view = std::string(state::kViewsDir) + "/%j";
  std::string dropin = std::string(kSetupHeader) +
                       "# Each repository daemon renet starts (rediacc-docker-ID.service) runs behind its own\n"
                       "# rediacc-gpu plugin, started first, and reads only its own CDI view.\n"
                       "[Unit]\nWants=rediacc-gpu-authz@%j.socket " +
                       kViewsServiceUnit + "\nAfter=rediacc-gpu-authz@%j.socket " + kViewsServiceUnit +
                       "\n\n[Service]\nEnvironment=REDIACC_GPU_REPO=%j\n"
                       "# The dockerd shim first, then the verifier in front of runc (kRuntimeDir/runc): every\n"
                       "# runc the daemon's containerd and BuildKit run is judged first.\n"
                       "Environment=PATH=" +
                       state::kDockerdShimDir + ":" + kSystemPath + "\n";
  return {{gate_dropin_path(o.repo_daemon_unit), dropin}};
}

std::vector<UnitFile> runtime_units(const UnitOptions& o) {
  if (is_prefix_unit(o.repo_daemon_unit)) return {};  // gate_units' drop-in carries the same PATH
  std::string dropin = std::string(kSetupHeader) +
                       "# Every runc this repository's daemon runs (its containerd's shims, its BuildKit) is the\n"
                       "# verifier in front of the machine's runc, which judges each container where it is made.\n"
                       "[Service]\nEnvironment=REDIACC_GPU_REPO=%i\nEnvironment=PATH=" +
                       kSystemPath + "\n";
  return {{dropin_dir(o.repo_daemon_unit) + "/70-rediacc-gpu-runtime.conf", dropin}};
}

std::string gate_dropin_path(const std::string& repo_daemon_unit) {
  return dropin_dir(repo_daemon_unit) + "/70-rediacc-gpu-gate.conf";
}

std::vector<UnitFile> view_units(const UnitOptions& o) {
  const std::string view = std::string(state::kViewsDir) + "/" + repository_specifier(o);
  std::string dropin = std::string(kSetupHeader) +
                       "# The repository's own CDI view is its daemon's /etc/cdi: only the names the repository\n"
                       "# holds, so dockerd cannot resolve another at a start, a restore or in a fork. The view\n"
                       "# directory is bound, not its files: rediacc-gpu rewrites them inside it, never replaces it.\n"
                       "# It is /run/cdi too, CDI's other default directory, whose specs take precedence.\n"
                       "# Its view is rebuilt before it starts: the cards may have moved since it was written.\n"
                       "[Unit]\nWants=" +
                       kViewsServiceUnit + "\nAfter=" + kViewsServiceUnit +
                       "\n\n[Service]\nExecStartPre=+/bin/mkdir -p " + view + "\nBindReadOnlyPaths=" + view +
                       ":/etc/cdi\nBindReadOnlyPaths=" + view + ":/run/cdi\n";
  std::string path = header(o) +
                     "[Unit]\nDescription=Rebuild the repositories' CDI views when /etc/cdi or the grants change\n\n"
                     "[Path]\nPathChanged=/etc/cdi\nPathChanged=" +
                     std::string(state::kGrantsPath) + "\nUnit=" + kViewsServiceUnit +
                     "\n\n[Install]\nWantedBy=paths.target\n";
  std::string service = header(o) +
                        "[Unit]\nDescription=Rebuild the repositories' CDI views from /etc/cdi and the grants\n"
                        "# At boot, after the specs follow the cards: a view is judged against the hardware as it is.\n"
                        "After=" +
                        kRefreshUnit + " " + kNvidiaSpecUnit +
                        " nvidia-cdi-refresh.service\n\n"
                        "[Service]\nType=oneshot\nExecStart=" +
                        o.tool_path + " cdi views\n";
  return {{dropin_dir(o.repo_daemon_unit) + "/60-rediacc-gpu-cdi-view.conf", dropin},
          {"/etc/systemd/system/" + std::string(kViewsPathUnit), path},
          {"/etc/systemd/system/" + std::string(kViewsServiceUnit), service}};
}

std::vector<UnitFile> hotplug_units(const UnitOptions& o) {
  std::string service = header(o) +
                        "[Unit]\nDescription=Regenerate rediacc.io CDI specs and the GPU inventory after a render "
                        "node change\n\n[Service]\nType=oneshot\nExecStart=" +
                        o.tool_path + " cdi generate\n";
  std::string rule = header(o) +
                     "# A render or card node that appears or disappears, or the NVIDIA driver loading (it numbers\n"
                     "# its GPUs then), regenerates the rediacc.io specs, the inventory and the repositories' views.\n"
                     "ACTION==\"add|remove\", SUBSYSTEM==\"drm\", KERNEL==\"renderD*|card[0-9]*\", "
                     "RUN+=\"/usr/bin/systemctl --no-block start " +
                     kRefreshUnit +
                     "\"\nACTION==\"add\", SUBSYSTEM==\"module\", KERNEL==\"nvidia\", "
                     "RUN+=\"/usr/bin/systemctl --no-block start " +
                     kRefreshUnit + "\"\n";
  return {{"/etc/systemd/system/" + std::string(kRefreshUnit), service},
          {"/etc/udev/rules.d/90-rediacc-gpu.rules", rule}};
}

std::vector<UnitFile> canary_units(const UnitOptions& o) {
  // Not sandboxed like the plugin: it writes its record and talks to the repository's daemon.
  const std::string service = header(o) +
                              "[Unit]\nDescription=rediacc-gpu canary of repository %i's GPUs through its own "
                              "daemon\nAfter=rediacc-gpu-authz@%i.socket\n\n[Service]\nType=oneshot\n"
                              "# REDIACC_GPU_CANARY_IMAGE: an image the repository's daemon has (default busybox).\n"
                              "EnvironmentFile=-" +
                              std::string(state::kCanaryEnvDir) + "/%i.env\nExecStart=" + o.tool_path +
                              " canary --repo %i\nTimeoutStartSec=15min\n";
  const std::string timer = header(o) +
                            "[Unit]\nDescription=Hourly rediacc-gpu canary of repository %i\n\n[Timer]\n"
                            "OnCalendar=hourly\nRandomizedDelaySec=5min\nPersistent=true\n\n[Install]\n"
                            "WantedBy=timers.target\n";
  return {{"/etc/systemd/system/" + std::string(kCanaryServiceUnit), service},
          {"/etc/systemd/system/" + std::string(kCanaryTimerUnit), timer}};
}

std::string vendor_path(const std::string& etc_path) {
  for (const auto& [etc, vendor] : {std::pair{"/etc/systemd/system/", "/lib/systemd/system/"},
                                    std::pair{"/etc/udev/rules.d/", "/lib/udev/rules.d/"}}) {
    const std::string prefix = etc;
    if (etc_path.starts_with(prefix) && etc_path.find('/', prefix.size()) == std::string::npos) {
      return vendor + etc_path.substr(prefix.size());
    }
  }
  return {};
}

bool written_by_setup(const std::string& content) { return content.starts_with(kSetupHeader); }

std::vector<UnitFile> packaged_units(const std::string& tool_path) {
  UnitOptions o;
  o.packaged = true;
  o.tool_path = tool_path;
  auto files = hotplug_units(o);
  auto plugin = plugin_units(o);
  files.insert(files.end(), plugin.begin(), plugin.end());
  auto views = view_units(o);
  files.insert(files.end(), views.begin() + 1, views.end());
  auto canary = canary_units(o);
  files.insert(files.end(), canary.begin(), canary.end());  // the drop-in names the machine's daemon unit
  for (auto& f : files) f.path = vendor_path(f.path);
  return files;
}

}  // namespace rgpu::units
