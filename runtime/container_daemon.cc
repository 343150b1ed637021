#include "runtime/container_daemon.h"

#include "docker/engine_paths.h"

#include <sys/stat.h>

namespace rgpu::runtime {

bool under_dir(std::string_view path, std::string_view dir) {
  if (dir == "/") return path.starts_with("/");
  return path == dir || (path.starts_with(dir) && path.size() > dir.size() && path[dir.size()] == '/');
}

namespace {

// A daemon whose root is another directory than ours (one in a chroot or a container of its own)
// serves no container this runc makes. Only the kernel can follow /proc/PID/root, so only on the
// host's own root is it asked; a fixture's /proc keeps every daemon.
bool shares_our_root(const RootFs& fs, const std::string& pid) {
  if (!fs.is_host_root()) return true;
  struct ::stat theirs {
  }, ours{};
  if (::stat(("/proc/" + pid + "/root").c_str(), &theirs) != 0 || ::stat("/", &ours) != 0) return true;
  return theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino;
}

}  // namespace

Result<ContainerDaemon> container_daemon(const RootFs& fs, const RuncCommand& command) {
  const auto resolved = [&](const std::string& p) { return fs.resolve(p).value_or(p); };
  const std::string state = command.root.empty() ? "" : resolved(command.root);
  const std::string bundle = command.bundle.empty() ? "" : resolved(command.bundle);
  for (auto& daemon : docker::running_docker_daemons(fs)) {
    if (!daemon.root_user || !shares_our_root(fs, daemon.pid)) continue;
    ContainerDaemon found{.daemon = daemon,
                          .data_root = resolved(docker::data_root(fs, daemon)),
                          .exec_root = docker::exec_root(fs, daemon),
                          .build_step = false};
    // containerd's shim: runc --root EXEC_ROOT/runtime-runc/moby (the runtime's name, then the namespace).
    if (!state.empty() && under_dir(state, resolved(found.exec_root)) &&
        state.substr(resolved(found.exec_root).size()).starts_with("/runtime-"))
      return found;
    if (state.empty() && !bundle.empty() && under_dir(bundle, found.data_root + "/buildkit/executor")) {
      found.build_step = true;
      return found;
    }
  }
  return fail("no running dockerd keeps this container's runc state (" +
              (command.root.empty() ? "bundle " + command.bundle : command.root) +
              "), so the verifier cannot tell whose container it is and starts nothing");
}

}  // namespace rgpu::runtime
