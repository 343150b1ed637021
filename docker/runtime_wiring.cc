#include "docker/runtime_wiring.h"

#include <sys/stat.h>

#include "core/split.h"
#include "core/state_paths.h"
#include "docker/proc_tables.h"

namespace rgpu::docker {
namespace {

std::string command_base(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// "PPid:\t812" of /proc/PID/status.
std::string parent_of(const RootFs& fs, const std::string& pid) {
  const auto status = fs.read_optional("/proc/" + pid + "/status");
  if (!status || !*status) return {};
  for (const auto& line : split(**status, '\n', EmptyFields::drop)) {
    if (line.starts_with("PPid:")) return line.substr(line.find_first_not_of(" \t", 5));
  }
  return {};
}

std::string path_of(const RootFs& fs, const std::string& pid) {
  const auto environ = fs.read_file("/proc/" + pid + "/environ");
  if (!environ) return {};
  for (const auto& entry : split(*environ, '\0', EmptyFields::drop)) {
    if (entry.starts_with("PATH=")) return entry.substr(5);
  }
  return {};
}

// The containerd that runs the daemon's shims: the one it started (its child), else the one its
// --containerd socket names; none when neither runs.
std::optional<std::string> containerd_of(const RootFs& fs, const RunningDaemon& daemon) {
  const auto external = daemon.flag("--containerd");
  for (const auto& pid : process_ids(fs)) {
    const auto args = process_args(fs, pid);
    if (args.empty() || command_base(args.front()) != "containerd") continue;
    if (!external && parent_of(fs, pid) == daemon.pid) return pid;
    if (external) {
      for (size_t i = 1; i + 1 < args.size(); ++i) {
        if ((args[i] == "--address" || args[i] == "-a") && args[i + 1] == *external) return pid;
      }
    }
  }
  return std::nullopt;
}

bool executable_file(const RootFs& fs, const std::string& path) {
  const auto st = fs.stat(path);
  return st && S_ISREG(st->st_mode) && (st->st_mode & 0111) != 0;
}

}  // namespace

RuntimeWiring runtime_wiring(const RootFs& fs, const RunningDaemon& daemon) {
  RuntimeWiring w;
  const auto containerd = containerd_of(fs, daemon);
  w.path_from = containerd ? "containerd " + *containerd : "dockerd " + daemon.pid;
  w.path = path_of(fs, containerd ? *containerd : daemon.pid);
  for (const auto& dir : split(w.path, ':', EmptyFields::drop)) {
    const std::string candidate = dir + "/runc";
    if (!executable_file(fs, candidate)) continue;
    (w.first_runc ? w.next_runc : w.first_runc) = candidate;
    if (w.next_runc) break;
  }
  return w;
}

std::string runtime_wiring_fault(const RuntimeWiring& w) {
  const std::string verifier = std::string(state::kRuntimeDir) + "/runc";
  if (!w.first_runc)
    return "no runc is on the PATH of " + w.path_from + (w.path.empty() ? " (its environment cannot be read)" : "");
  if (*w.first_runc != verifier)
    return "its containers' runc is " + *w.first_runc + " (first on the PATH of " + w.path_from +
           "), not the verifier " + verifier;
  if (!w.next_runc) return "no runc follows the verifier on the PATH of " + w.path_from + ", so nothing starts";
  return {};
}

}  // namespace rgpu::docker
