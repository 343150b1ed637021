// rediacc-gpu authz-plugin: the admission decision as a Docker authorization plugin, serving one
// repository's daemon over a unix socket (or the socket systemd passes, when socket-activated).

#include <unistd.h>

#include <chrono>
#include <iostream>
#include <string>

#include "cli/command.h"
#include "cli/repo_arg.h"
#include "core/state_paths.h"
#include "docker/repo_plugin.h"
#include "gate/live_gate.h"
#include "plugin/authz_server.h"

namespace rgpu::cli {
namespace {

struct PluginFlags {
  std::string repo;
  std::string socket;
  std::string docker_host;
  bool allow_buildkit = false;
};

// One write per line, so lines from a busy plugin never interleave in the journal.
void log_line(const std::string& line) {
  const std::string text = "rediacc-gpu authz-plugin: " + line + "\n";
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, text.data(), text.size());
}

int run_authz_plugin(const GlobalOptions& global, const PluginFlags& f) {
  RootFs fs(global.root);
  auto repo = repo_of(fs, f.repo);
  if (!repo) return report_usage(repo.error());
  const std::string docker_host = f.docker_host.empty() ? docker::configured_docker_host(fs, *repo) : f.docker_host;
  auto gate = gate::LiveGate::open(
      fs, {*repo, docker_host,
           "the plugin of repository \"" + *repo + "\" was started without --docker-host, so it cannot see " +
               "what the container attaches; set " + state::kDockerHostVariable + "=unix:///PATH/docker.sock in " +
               docker::plugin_environment_path(*repo) + " and restart rediacc-gpu-authz@" + *repo,
           f.allow_buildkit});
  if (!gate) return report_usage(gate.error());
  plugin::AuthzServer server(
      (*gate)->grants(),
      plugin::PluginSettings{
          .repo = *repo, .options = (*gate)->options(), .policy = [g = gate->get()] { return g->policy(); }},
      log_line);
  if (docker_host.empty()) {
    log_line("warning: no --docker-host: start, restart, unpause and exec of existing containers are refused");
  }
  const int activated = plugin::socket_from_systemd();
  // The machine's plugin socket, under --root DIR in DIR; an explicit --socket is a host path.
  const std::string socket = f.socket.empty() ? fs.socket_path(docker::plugin_socket(*repo)).string() : f.socket;
  auto ready = activated >= 0 ? server.adopt(activated) : server.listen(socket);
  if (!ready) return report_failure(ready.error());
  log_line("serving repository " + *repo + (activated >= 0 ? " on the socket systemd passed" : " on " + socket));
  server.run();
  return kExitOk;
}

}  // namespace

Runner attach_authz_plugin(CLI::App& sub, GlobalOptions& global) {
  add_root_option(sub, global);
  auto f = std::make_shared<PluginFlags>();
  sub.add_option("--repo", f->repo, "Repository whose daemon calls this plugin")->required();
  sub.add_option("--socket", f->socket,
                 "Unix socket to listen on, a host path (default the machine's "
                 "/run/docker/plugins/rediacc-gpu-REPO.sock, under --root, where dockerd finds plugin "
                 "rediacc-gpu-REPO); ignored when systemd passes one");
  add_docker_host_option(sub, f->docker_host,
                         "the repository's own, where the stored container of a start, restart, unpause or exec is "
                         "read and judged; without it those requests are refused")
      ->envname(state::kDockerHostVariable);
  sub.add_flag(
      "--allow-buildkit", f->allow_buildkit,
      "Allow BuildKit builds (/session, /grpc, /build?version=2), only for builders with device entitlements off");
  return [&global, f] { return run_authz_plugin(global, *f); };
}

}  // namespace rgpu::cli
