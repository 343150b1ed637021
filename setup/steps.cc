#include "setup/steps.h"

#include "core/machine_paths.h"
#include "core/machine_program.h"

#include <algorithm>
#include <sstream>

#include <boost/process/search_path.hpp>

#include "cdi-gen/generate.h"
#include "cdi-gen/spec_writer.h"
#include "cdi/char_links.h"
#include "cdi/inventory_names.h"
#include "core/init_system.h"
#include "core/joined.h"
#include "core/selinux_devices.h"
#include "core/split.h"
#include "core/state_paths.h"
#include "docker/cgroup_record.h"
#include "docker/rediacc_gates.h"
#include "docker/repo_plugin.h"
#include "docker/running_daemons.h"
#include "grants/store.h"
#include "grants/views.h"
#include "installers/nvidia_toolkit.h"
#include "probe/inventory_file.h"
#include "probe/machine_probe.h"
#include "probe/missing_gpus.h"
#include "probe/nfd_features.h"
#include "setup/nvidia_spec.h"
#include "units/activation.h"
#include "units/unit_files.h"

namespace rgpu::setup {
namespace {

// "written" after a real run, "would write" in a plan: a dry run's outcome never says it did.
std::string written(const SetupContext& ctx) { return ctx.options.dry_run ? "would write" : "written"; }

// The specs as the real run leaves them: what is on disk, our two as this run wrote (or, in a dry
// run, planned) them in place of what was there.
cdi::SpecIndex specs_after_run(const SetupContext& ctx) {
  auto index = cdi::read_spec_index(ctx.fs);
  std::vector<std::string> ours;
  for (const auto* spec : {&ctx.ours.dri, &ctx.ours.amd}) ours.push_back(cdi::spec_path(*spec));
  std::erase_if(index.devices, [&](const cdi::IndexedDevice& d) {
    return std::find(ours.begin(), ours.end(), d.spec_path) != ours.end();
  });
  for (const auto* spec : {&ctx.ours.dri, &ctx.ours.amd}) {
    if (spec->devices.empty()) continue;
    if (auto devices = cdi::parse_spec(cdi::spec_text(*spec), cdi::spec_path(*spec)))
      index.devices.insert(index.devices.end(), devices->begin(), devices->end());
  }
  std::sort(index.devices.begin(), index.devices.end(),
            [](const auto& a, const auto& b) { return a.qualified_name < b.qualified_name; });
  return index;
}

constexpr const char* kShadowingSpec = "/var/run/cdi/nvidia.yaml";

// Ownership is a record, not the spec's content: nvidia-cdi-refresh and our boot unit regenerate
// the spec (new driver, persistenced restarted), and it stays ours through every regeneration.
constexpr const char* kOwnedText =
    "# rediacc-gpu setup installed /etc/cdi/nvidia.yaml and keeps it regenerated; while this file\n"
    "# exists, setup --install-nvidia-toolkit=false removes that spec whatever its content.\n";

Result<void> write_all(SetupContext& ctx, const std::vector<units::UnitFile>& files) {
  for (const auto& f : files) RGPU_TRY(ctx.log.sink().write(f.path, f.content, 0644));
  return {};
}

bool shipped_as(const RootFs& fs, const std::string& vendor, const std::string& content) {
  if (vendor.empty()) return false;
  for (const std::string& path : {vendor, "/usr" + vendor}) {  // /lib and /usr/lib: one dir once merged
    auto text = fs.read_file(path);
    if (text && *text == content) return true;
  }
  return false;
}

// A unit the package ships with the very text setup would write needs no copy in /etc, where it
// would shadow the package's next version; setup's own earlier copy there goes. `packaged` is
// `files` rendered as the package renders them.
Result<void> write_unless_packaged(SetupContext& ctx, const std::vector<units::UnitFile>& files,
                                   const std::vector<units::UnitFile>& packaged) {
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& f = files[i];
    if (!shipped_as(ctx.fs, units::vendor_path(f.path), packaged[i].content)) {
      RGPU_TRY(ctx.log.sink().write(f.path, f.content, 0644));
      continue;
    }
    auto current = ctx.fs.read_file(f.path);
    if (current && units::written_by_setup(*current)) RGPU_TRY(ctx.log.sink().remove(f.path));
  }
  return {};
}

// Where the machine's systemd would find `name`, else where NVIDIA's package puts it.
std::string program_on_machine(const RootFs& fs, const std::string& name) {
  return machine_program(fs, name).value_or("/usr/bin/" + name);
}

}  // namespace

std::vector<std::string> recorded_disabled_hooks(const RootFs& fs) {
  std::vector<std::string> out;
  auto text = fs.read_optional(state::kNvidiaRefreshEnv);
  if (!text || !*text) return out;
  std::istringstream lines(**text);
  const std::string prefix = std::string(units::kDisabledHooksVariable) + "=";
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with(prefix)) continue;
    for (auto& name : split(std::string_view(line).substr(prefix.size()), ',', EmptyFields::drop))
      out.push_back(std::move(name));
  }
  return out;
}

namespace {

units::UnitOptions unit_options(const SetupContext& ctx) {
  units::UnitOptions o;
  o.tool_path = ctx.options.tool_path;
  o.wsl = ctx.report.inventory.platform == probe::Platform::wsl;
  o.repo_daemon_unit = ctx.options.repo_daemon_unit;
  o.nvidia_ctk_path = program_on_machine(ctx.fs, "nvidia-ctk");
  o.nvidia_disabled_hooks = ctx.options.nvidia_disabled_hooks;
  return o;
}

// Provisioning runs setup at every boot: a GPU the machine had and lost stays in the inventory as
// missing, so a reboot does not hide it, until it is back or the operator forgets it.
Result<std::string> step_probe(SetupContext& ctx) {
  RGPU_TRY_ASSIGN(ctx.report, probe::probe_hardware(ctx.fs));
  auto& inv = ctx.report.inventory;
  probe::note_missing_gpus(ctx.fs, inv);
  // What to forget is read from the recorded inventory: one that does not parse is named as such.
  if (!ctx.options.forget_gpus.empty()) RGPU_TRY(probe::read_inventory(ctx.fs));
  for (const auto& address : ctx.options.forget_gpus) RGPU_TRY(probe::forget_missing_gpu(ctx.fs, inv, address));
  ctx.toolkit = toolkit_wanted(ctx.options.mode, inv);
  std::string outcome = std::to_string(inv.gpus.size()) + (inv.gpus.size() == 1 ? " GPU" : " GPUs") + ", platform " +
                        probe::to_string(inv.platform);
  if (!inv.missing_gpus.empty())
    outcome += "; " + std::to_string(inv.missing_gpus.size()) + " missing (" +
               probe::missing_addresses(inv.missing_gpus) + ")";
  if (!ctx.options.forget_gpus.empty()) outcome += "; forgot " + joined(ctx.options.forget_gpus);
  return outcome;
}

// Why there is no NVIDIA GPU to work for: never "no NVIDIA GPU" while the inventory keeps some as
// missing (the driver may still list them), but which are missing.
std::string without_nvidia_gpu(const SetupContext& ctx, const std::string& plain, const std::string& kept = "") {
  std::vector<probe::MissingGpu> nvidia;
  for (const auto& m : ctx.report.inventory.missing_gpus) {
    if (m.vendor == probe::Vendor::nvidia) nvidia.push_back(m);
  }
  if (nvidia.empty()) return plain;
  return "skipped: every NVIDIA GPU is missing (" + probe::missing_addresses(nvidia) + "); doctor names them" + kept;
}

std::string toolkit_outcome(const SetupContext& ctx, const installers::ToolkitOutcome& outcome, const char* family) {
  const std::string package = installers::kToolkitPackage;
  const std::string wanted = ctx.options.toolkit_version;
  const std::string would = outcome.performed ? "" : "would ";
  switch (outcome.plan) {
    case installers::ToolkitPlan::keep:
      if (installers::compare_toolkit_versions(*outcome.installed_before, wanted) == 0)
        return package + " " + wanted + " already installed";
      return package + " " + *outcome.installed_before + " kept (at or above " + wanted +
             "; --nvidia-toolkit-version pins an exact one)";
    case installers::ToolkitPlan::install: return would + "install " + package + " " + wanted + " (" + family + ")";
    case installers::ToolkitPlan::upgrade:
      return would + "upgrade " + package + " " + *outcome.installed_before + " to " + wanted + " (" + family + ")";
    case installers::ToolkitPlan::downgrade:
      return would + "downgrade " + package + " " + *outcome.installed_before + " to " + wanted +
             " (--nvidia-toolkit-version; " + family + ")";
  }
  return package;
}

Result<std::string> step_toolkit(SetupContext& ctx) {
  switch (ctx.toolkit) {
    case ToolkitChoice::refused: return std::string("skipped (--install-nvidia-toolkit=false)");
    case ToolkitChoice::not_needed:
      return without_nvidia_gpu(ctx, "skipped (no NVIDIA GPU; --install-nvidia-toolkit=auto)");
    case ToolkitChoice::install: break;
  }
  auto os_text = ctx.fs.read_file("/etc/os-release");
  if (!os_text) return fail(os_text.error().message + " setup needs it to pick a package manager.");
  RGPU_TRY_ASSIGN(const auto family, installers::package_family(installers::parse_os_release(*os_text),
                                                                ctx.fs.host_path("/etc/os-release").string()));
  auto pm = installers::make_package_manager(family, ctx.fs.root().string());
  // The redirect first: the package's post-install starts nvidia-cdi-refresh at once.
  RGPU_TRY(write_all(ctx, units::nvidia_refresh_redirect(unit_options(ctx))));
  const installers::ToolkitWanted wanted{ctx.options.toolkit_version, ctx.options.toolkit_exact};
  RGPU_TRY_ASSIGN(const auto outcome,
                  installers::ensure_toolkit(ctx.fs, *pm, ctx.log.sink(), ctx.query, ctx.log.act(), wanted));
  RGPU_TRY(ctx.log.sink().remove(kShadowingSpec));
  return toolkit_outcome(ctx, outcome, installers::to_string(family));
}

Result<std::string> remove_our_spec(SetupContext& ctx) {
  const bool owned = ctx.fs.kind(state::kNvidiaSpecOwned) != NodeKind::missing;
  const bool present = ctx.fs.kind(paths::kNvidiaSpec) != NodeKind::missing;
  if (owned) {
    if (present) RGPU_TRY(ctx.log.sink().remove(paths::kNvidiaSpec));
    RGPU_TRY(ctx.log.sink().remove(state::kNvidiaSpecOwned));
    if (present) return std::string("removed the spec an earlier setup installed");
  }
  if (!present) return std::string("skipped");
  return std::string("skipped; ") + paths::kNvidiaSpec + " was not installed by setup and is left alone";
}

Result<std::string> step_nvidia_spec(SetupContext& ctx) {
  switch (ctx.toolkit) {
    case ToolkitChoice::refused: return remove_our_spec(ctx);
    case ToolkitChoice::not_needed: return without_nvidia_gpu(ctx, "skipped (no NVIDIA GPU)", "; the spec is kept");
    case ToolkitChoice::install: break;
  }
  if (!has_nvidia_gpu(ctx.report.inventory))
    return without_nvidia_gpu(ctx, "skipped: no NVIDIA GPU for a spec to describe", "; the spec is kept");
  // Under another root, that machine's nvidia-ctk runs inside it (chroot), reading its own driver
  // and devices and writing machine paths; this machine's nvidia-ctk would describe this machine.
  const NvidiaSpecOptions options{ctx.report.inventory.platform == probe::Platform::wsl,
                                  ctx.options.nvidia_disabled_hooks};
  RGPU_TRY_ASSIGN(const auto outcome,
                  refresh_nvidia_spec(ctx.fs, ctx.log.sink(), ctx.log.act(), ctx.log.scratch(), options));
  if (outcome.nodes_warning) ctx.report.warnings.push_back(*outcome.nodes_warning);
  if (!outcome.performed) {  // a dry run: nvidia-ctk did not run, so only the plan can be told
    ctx.log.plan(
        {Change::Kind::run, command_line(nvidia_generate_argv(ctx.fs, options, state::kGeneratedNvidiaSpec)), ""});
    ctx.log.plan({Change::Kind::write, paths::kNvidiaSpec, "as nvidia-ctk generates it"});
    return std::string("planned");
  }
  switch (outcome.hold) {
    case NvidiaSpecHold::none: break;
    // Provisioning may come before the driver: the boot unit makes the spec once it loads.
    case NvidiaSpecHold::driver_not_loaded:
      ctx.report.warnings.push_back(outcome.reason + ": " + paths::kNvidiaSpec + " is kept as it is; " +
                                    units::kNvidiaSpecUnit +
                                    " makes it when the nvidia module loads (or run rediacc-gpu cdi nvidia then)");
      return std::string("kept: the NVIDIA driver is not ready");
    case NvidiaSpecHold::generate_failed: return fail(outcome.reason);
    case NvidiaSpecHold::spec_unusable:
      return fail(outcome.reason + "; " + paths::kNvidiaSpec + " is kept as it was. Make the driver's control nodes (" +
                  installers::kMakeControlNodes + ") and run setup again.");
  }
  RGPU_TRY(ctx.log.sink().write(state::kNvidiaSpecOwned, kOwnedText, 0644));
  return std::string(outcome.installed == Change::Kind::unchanged ? "unchanged" : "written");
}

Result<std::string> step_our_specs(SetupContext& ctx) {
  ctx.ours = cdi::generate_specs(ctx.fs, ctx.report.inventory);
  const auto& specs = ctx.ours;
  ctx.report.warnings.insert(ctx.report.warnings.end(), specs.warnings.begin(), specs.warnings.end());
  RGPU_TRY(cdi::write_specs(ctx.log.sink(), {specs.dri, specs.amd}));
  return std::to_string(specs.dri.devices.size() + specs.amd.devices.size()) + " devices";
}

// After every spec is written: each repository's view follows /etc/cdi and the grants.
Result<std::string> step_views(SetupContext& ctx) {
  RGPU_TRY_ASSIGN(const auto changes, grants::refresh_views(ctx.fs, ctx.log.batch_sink()));
  ctx.log.add(changes);
  // The grants the specs now point at other hardware: setup says so, whatever else went well.
  if (auto set = grants::load_grants(ctx.fs)) {
    ctx.moved_grants = grants::moved_grants(probe::HardwareReader(ctx.fs), cdi::read_spec_index(ctx.fs), *set);
    for (const auto& m : ctx.moved_grants) ctx.report.warnings.push_back(grants::move_warning(m));
  }
  return ctx.log.changed() ? written(ctx) : "unchanged";
}

// After every spec is written: each character node they map gets its /dev/char link, or the
// first systemctl daemon-reload would take it from running containers (cdi/char_links.h).
Result<std::string> step_char_links(SetupContext& ctx) {
  // In a dry run our specs are not on disk, and the plan must still name the links the real run makes.
  RGPU_TRY_ASSIGN(const auto changes, cdi::write_char_links(ctx.fs, ctx.log.sink(), specs_after_run(ctx)));
  if (changes.empty()) return std::string("unchanged");
  return (ctx.options.dry_run ? "would make " : "") + std::to_string(changes.size()) +
         " link(s) for nodes that had none";
}

Result<void> run_all(SetupContext& ctx, const std::vector<Argv>& commands) {
  for (const auto& argv : commands) RGPU_TRY(installers::run_step(ctx.log.act(), argv, std::chrono::seconds(120)));
  return {};
}

// Each repository daemon running behind its plugin tells where it listens: its plugin reads
// stored containers there. An environment file the operator wrote is theirs, never replaced.
Result<void> write_plugin_environments(SetupContext& ctx) {
  for (const auto& d : docker::running_docker_daemons(ctx.fs)) {
    const auto repo = docker::plugin_repo(ctx.fs, d);
    const auto socket = docker::unix_host(ctx.fs, d);
    if (!repo || !socket) continue;
    const std::string path = docker::plugin_environment_path(*repo);
    if (auto current = ctx.fs.read_file(path); current && !units::written_by_setup(*current)) continue;
    RGPU_TRY(ctx.log.sink().write(path, units::plugin_environment("unix://" + *socket), 0644));
  }
  return {};
}

// renet's repository daemons as setup leaves them: each found is named, and one running without
// its gate is told with the command that restarts it behind it. Setup never restarts one: its
// tenants' containers would stop with it.
std::string repository_daemons(SetupContext& ctx) {
  const auto gates = docker::repo_daemon_gates(ctx.fs);
  if (gates.empty()) return "";
  std::vector<std::string> said;
  for (const auto& gate : gates) {
    switch (gate.state) {
      case docker::RepoDaemonGate::State::own_gate: said.push_back(gate.network_id + " behind its gate"); break;
      case docker::RepoDaemonGate::State::stopped:
        said.push_back(gate.network_id + " not running (its gate starts with it)");
        break;
      case docker::RepoDaemonGate::State::no_gate:
      case docker::RepoDaemonGate::State::other_gate:
        said.push_back(gate.network_id + " without its gate until restarted");
        ctx.report.warnings.push_back(docker::gate_fault(gate) + ": its containers run without the gate until it " +
                                      "restarts behind it. Restart it when its tenants can stop for a moment: " +
                                      docker::renet_restart_command(gate.network_id) + ".");
        break;
    }
  }
  return "; renet's repository daemons: " + joined(said);
}

Result<std::string> step_units(SetupContext& ctx) {
  // Without systemd as PID 1 nothing can be enabled or disabled: the files wait for one.
  const auto pid1 = pid1_not_systemd(ctx.fs);
  const auto options = unit_options(ctx);
  std::vector<std::string> enable;
  auto as_packaged = options;
  as_packaged.packaged = true;
  RGPU_TRY(write_unless_packaged(ctx, units::hotplug_units(options), units::hotplug_units(as_packaged)));
  RGPU_TRY(write_unless_packaged(ctx, units::plugin_units(options), units::plugin_units(as_packaged)));
  RGPU_TRY(write_unless_packaged(ctx, units::canary_units(options), units::canary_units(as_packaged)));
  RGPU_TRY(write_plugin_environments(ctx));
  if (ctx.options.host_policy)
    RGPU_TRY(ctx.log.sink().write(state::kHostPolicyPath, host_policy_text(*ctx.options.host_policy), 0644));
  for (const auto& f : units::gate_units(options)) RGPU_TRY(ctx.log.sink().write(f.path, f.content, 0644));
  for (const auto& f : units::runtime_units(options)) RGPU_TRY(ctx.log.sink().write(f.path, f.content, 0644));
  // The verifier in front of runc: found by the name runc, first on the daemons' PATH.
  RGPU_TRY(ctx.log.sink().link(std::string(state::kRuntimeDir) + "/runc", options.tool_path));
  if (units::is_prefix_unit(options.repo_daemon_unit))
    RGPU_TRY(ctx.log.sink().write(state::kDockerdShim, units::dockerd_shim(options), 0755));
  auto views = units::view_units(options);
  RGPU_TRY(write_all(ctx, {views.front()}));
  views.erase(views.begin());
  auto views_packaged = units::view_units(as_packaged);
  views_packaged.erase(views_packaged.begin());
  RGPU_TRY(write_unless_packaged(ctx, views, views_packaged));
  enable.push_back(units::kViewsPathUnit);
  if (ctx.toolkit == ToolkitChoice::install) {
    RGPU_TRY(write_all(ctx, units::nvidia_units(options)));
    enable.push_back(units::kNvidiaSpecUnit);
  } else if (ctx.toolkit == ToolkitChoice::refused) {
    auto ours = units::nvidia_units(options);
    auto redirect = units::nvidia_refresh_redirect(options);
    ours.insert(ours.end(), redirect.begin(), redirect.end());
    if (ctx.fs.kind(ours.front().path) == NodeKind::file && !pid1) {
      RGPU_TRY(run_all(ctx, units::deactivation_commands(ctx.fs, {units::kNvidiaSpecUnit})));
    }
    for (const auto& f : ours) RGPU_TRY(ctx.log.sink().remove(f.path));
  }
  // The warning says how to run their parts meanwhile (issue: "setup exits 0 once every step it
  // could do is done").
  if (pid1) {
    ctx.report.warnings.push_back("PID 1 here is " + *pid1 + ", not systemd: " + without_systemd_meaning() + ". " +
                                  without_systemd_by_hand(options.tool_path) + ".");
    return (ctx.log.changed() ? written(ctx) : "unchanged") + ", not started: PID 1 is " + *pid1 + ", not systemd";
  }
  const std::string daemons = units::is_prefix_unit(options.repo_daemon_unit) ? repository_daemons(ctx) : "";
  if (!ctx.log.changed()) return "unchanged" + daemons;
  RGPU_TRY(run_all(ctx, units::activation_commands(ctx.fs, enable)));
  return written(ctx) + (ctx.options.dry_run ? " and enable" : "") + daemons;
}

// On an enforcing SELinux host, the booleans that let container_t open the GPU nodes the gate
// grants (core/selinux_devices.h), set persistently; never label=disable, which the gate refuses.
Result<std::string> step_selinux(SetupContext& ctx) {
  if (!selinux_enforcing(ctx.fs)) return std::string("SELinux is not enforcing: nothing to set");
  const auto& inv = ctx.report.inventory;
  const auto has = [&](probe::Vendor v) {
    return std::any_of(inv.gpus.begin(), inv.gpus.end(), [&](const probe::Gpu& g) { return g.vendor == v; });
  };
  const auto needed = device_booleans(has(probe::Vendor::nvidia), has(probe::Vendor::amd));
  if (needed.empty()) return std::string("no GPU whose nodes SELinux keeps from containers");
  Argv argv = {"setsebool", "-P"};
  std::string names, missing;
  for (const auto& b : needed) {
    const auto value = selinux_boolean(ctx.fs, b.name);
    // setsebool fails on a boolean the loaded policy lacks: that is said, and the rest still set.
    if (!value) {
      missing += (missing.empty() ? "" : ", ") + std::string(b.name);
      continue;
    }
    names += (names.empty() ? "" : ", ") + std::string(b.name);
    if (!*value) argv.push_back(std::string(b.name) + "=on");
  }
  if (!missing.empty())
    ctx.report.warnings.push_back("SELinux is enforcing, but the loaded policy has no boolean " + missing +
                                  ": containers cannot open the GPU nodes they are granted; install container-selinux "
                                  "and run setup again");
  if (names.empty()) return "no boolean to set: the policy lacks " + missing;
  if (argv.size() == 2) return names + " already on";
  if (!ctx.fs.is_host_root()) argv.insert(argv.begin(), {"chroot", ctx.fs.root().string()});
  RGPU_TRY(run_all(ctx, {argv}));
  return names + " on, persistently (setsebool -P): containers open the GPU nodes they are granted";
}

Result<std::string> step_inventory(SetupContext& ctx) {
  const auto index = specs_after_run(ctx);
  for (const auto& problem : index.problems) {
    ctx.report.warnings.push_back("skipping CDI spec " + ctx.fs.host_path(problem.spec_path).string() + ": " +
                                  problem.reason);
  }
  cdi::attach_cdi_names(ctx.report.inventory, index);
  RGPU_TRY(probe::record_inventory(ctx.fs, ctx.log.sink(), ctx.report.inventory));
  RGPU_TRY(ctx.log.sink().write(state::kNfdFeaturePath, probe::nfd_features(ctx.report.inventory)));
  // What doctor's cgroup-change compares the machine with later (docker/cgroup_record.h).
  RGPU_TRY(ctx.log.sink().write(state::kCgroupRecord, docker::cgroup_record_text(docker::cgroups_now(ctx.fs)), 0644));
  const auto& inv = ctx.report.inventory;
  std::string outcome =
      (ctx.options.dry_run ? "would record " : "") + std::to_string(inv.cdi_devices.size()) + " grantable CDI names";
  // nvidia-ctk did not run: the names its spec will define are not known yet.
  if (ctx.options.dry_run && ctx.toolkit == ToolkitChoice::install && has_nvidia_gpu(inv))
    outcome += ", and those of the NVIDIA spec nvidia-ctk would generate";
  if (!inv.missing_gpus.empty()) outcome += ", " + std::to_string(inv.missing_gpus.size()) + " GPU(s) kept as missing";
  return outcome;
}

}  // namespace

const std::vector<SetupStep>& setup_steps() {
  static const std::vector<SetupStep> steps = {
      {"probe", "probe", {}, "", step_probe},
      {"nvidia-toolkit",
       "NVIDIA Container Toolkit",
       {"probe"},
       "when the package repository cannot be reached, set the proxy the package manager uses (apt: "
       "Acquire::https::Proxy in /etc/apt/apt.conf.d/; dnf, zypper: proxy= in their configuration) and run setup "
       "again, or run setup with --install-nvidia-toolkit=false to go without the NVIDIA spec",
       step_toolkit},
      {"nvidia-spec",
       "NVIDIA CDI spec",
       {"probe", "nvidia-toolkit"},
       "the previous spec is kept; fix what nvidia-ctk says (the driver, NVML) and run setup again, or run setup "
       "with --install-nvidia-toolkit=false",
       step_nvidia_spec},
      {"rediacc-specs", "rediacc.io CDI specs", {"probe"}, "", step_our_specs},
      {"repository-views", "repository CDI views", {"probe"}, "", step_views},
      {"char-links", "/dev/char links of the specs' nodes", {"probe"}, "", step_char_links},
      {"units", "systemd units and udev rule", {"probe"}, "", step_units},
      {"selinux", "SELinux device booleans", {"probe"}, "", step_selinux},
      {"inventory", "inventory", {"probe"}, "", step_inventory},
  };
  return steps;
}

}  // namespace rgpu::setup
