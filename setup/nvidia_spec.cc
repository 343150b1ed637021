#include "setup/nvidia_spec.h"

#include <algorithm>

#include "cdi/spec_index.h"
#include "core/machine_paths.h"
#include "core/state_paths.h"
#include "installers/nvidia_toolkit.h"
#include "units/unit_files.h"

namespace rgpu::setup {
namespace {

constexpr std::chrono::seconds kGenerateTimeout{300};
constexpr std::chrono::seconds kNodesTimeout{60};

Argv in_machine(const RootFs& fs, Argv argv) {
  if (!fs.is_host_root()) argv.insert(argv.begin(), {"chroot", fs.root().string()});
  return argv;
}

// "exit 1" or why it did not start, for the one line that says neither command worked.
std::string how_it_ended(const Result<CommandResult>& r) {
  if (!r) return r.error().message;
  return "exit " + std::to_string(r->exit_code);
}

std::optional<std::string> make_control_nodes(const RootFs& fs, CommandRunner& act, const std::string& nvidia_ctk) {
  // Each there already: nothing to make, and a run that changes nothing says so.
  if (std::all_of(installers::kNvidiaControlNodes.begin(), installers::kNvidiaControlNodes.end(),
                  [&](const char* node) { return fs.kind(node) == NodeKind::char_device; }))
    return std::nullopt;
  const auto ctk = act.run(
      in_machine(fs, {nvidia_ctk, "system", "create-device-nodes", "--control-devices", "--load-kernel-modules"}),
      kNodesTimeout);
  if (ctk && ctk->exit_code == 0) return std::nullopt;
  // A toolkit before create-device-nodes: the driver's own helper makes the same nodes.
  const auto uvm = act.run(in_machine(fs, {"nvidia-modprobe", "-u", "-c=0"}), kNodesTimeout);
  const auto modeset = act.run(in_machine(fs, {"nvidia-modprobe", "-m"}), kNodesTimeout);
  if (uvm && uvm->exit_code == 0 && modeset && modeset->exit_code == 0) return std::nullopt;
  return std::string("neither ") + installers::kMakeControlNodes + " (" + how_it_ended(ctk) +
         ") nor nvidia-modprobe (" + how_it_ended(uvm.has_value() && uvm->exit_code == 0 ? modeset : uvm) +
         ") made the NVIDIA driver's control nodes (/dev/nvidia-uvm, /dev/nvidia-modeset): the spec maps only those "
         "already there; check that the driver is loaded (lsmod | grep nvidia)";
}

// Why the generated spec would break the names it defines, absent when it would not.
std::optional<std::string> unusable(const RootFs& fs, const std::string& text) {
  auto devices = cdi::parse_spec(text, paths::kNvidiaSpec);
  if (!devices) return "nvidia-ctk wrote a spec that cannot be read: " + devices.error().message;
  if (devices->empty()) return std::string("nvidia-ctk wrote a spec that defines no device");
  for (const auto& d : *devices) {
    for (const auto& node : d.device_nodes) {
      if (fs.kind(node) != NodeKind::char_device)
        return "nvidia-ctk wrote a spec whose " + d.qualified_name + " maps " + node +
               ", which is not a character device in /dev (a container given it would not start)";
    }
  }
  return std::nullopt;
}

NvidiaSpecOutcome held(NvidiaSpecHold why, std::string reason) {
  NvidiaSpecOutcome out;
  out.hold = why;
  out.reason = std::move(reason);
  return out;
}

}  // namespace

Argv nvidia_generate_argv(const RootFs& fs, const NvidiaSpecOptions& options, const std::string& output) {
  Argv argv = {options.nvidia_ctk, "cdi", "generate", "--output=" + output};
  argv.insert(argv.end(), units::kNameStrategyArgs.begin(), units::kNameStrategyArgs.end());
  if (options.wsl) argv.push_back("--mode=wsl");
  for (const auto& hook : options.disabled_hooks) argv.push_back("--disable-hook=" + hook);
  return in_machine(fs, std::move(argv));
}

std::optional<std::string> nvidia_driver_not_ready(const RootFs& fs, bool wsl) {
  if (wsl) {
    if (fs.kind("/dev/dxg") == NodeKind::char_device) return std::nullopt;
    return std::string("/dev/dxg is missing (WSL's GPU is not there yet)");
  }
  if (fs.kind("/proc/driver/nvidia/version") == NodeKind::file) return std::nullopt;
  return std::string("/proc/driver/nvidia/version is missing (the nvidia module is not loaded)");
}

Result<NvidiaSpecOutcome> refresh_nvidia_spec(const RootFs& fs, FileSink& sink, CommandRunner& act,
                                              CommandRunner& scratch, const NvidiaSpecOptions& options) {
  if (auto why = nvidia_driver_not_ready(fs, options.wsl))
    return held(NvidiaSpecHold::driver_not_loaded, "the NVIDIA driver is not ready: " + *why);
  std::optional<std::string> nodes_warning;
  if (!options.wsl) nodes_warning = make_control_nodes(fs, act, options.nvidia_ctk);
  // Generated beside our state, never in /etc/cdi (a consumer would read a half-made spec).
  const auto argv = nvidia_generate_argv(fs, options, state::kGeneratedNvidiaSpec);
  RGPU_TRY_ASSIGN(const auto ran, scratch.run(argv, kGenerateTimeout));
  if (!ran.performed) {
    NvidiaSpecOutcome out;
    out.performed = false;
    return out;
  }
  MachineFileSink own(fs);  // our scratch file: removing it is not a change
  if (ran.exit_code != 0) {
    own.remove(state::kGeneratedNvidiaSpec);
    return held(NvidiaSpecHold::generate_failed, command_line(argv) + " failed with exit code " +
                                                     std::to_string(ran.exit_code) + ". Its output:\n" + ran.output);
  }
  auto text = fs.read_file(state::kGeneratedNvidiaSpec);
  if (!text)
    return held(NvidiaSpecHold::generate_failed,
                command_line(argv) + " exited 0 but wrote no spec: " + text.error().message);
  own.remove(state::kGeneratedNvidiaSpec);
  if (auto why = unusable(fs, *text)) return held(NvidiaSpecHold::spec_unusable, *why);
  RGPU_TRY_ASSIGN(const auto installed, sink.write(paths::kNvidiaSpec, *text, 0644));
  NvidiaSpecOutcome out;
  out.installed = installed.kind;
  out.nodes_warning = std::move(nodes_warning);
  return out;
}

}  // namespace rgpu::setup
