#include "gate/build_safety.h"

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "core/state_paths.h"
#include "core/structured_text.h"
#include "docker/builder_entitlements.h"
#include "docker/cdi_spec_dirs.h"
#include "docker/client.h"
#include "docker/proc_tables.h"
#include "docker/serving_daemon.h"
#include "docker/view_verdict.h"

namespace rgpu::gate {
namespace {

constexpr auto kKeep = std::chrono::seconds(2);

constexpr const char* kFallback =
    " Until then, build with DOCKER_BUILDKIT=0 docker build (the classic builder, which the gate reads).";

}  // namespace

// Every spec directory the daemon reports must be the view itself (docker::reads_only_view, which
// doctor's buildkit check asks too).
admission::Refusal spec_dirs_refusal(const nlohmann::json& info, const RootFs& daemon_root, const RootFs& fs,
                                     const std::string& repo) {
  const std::string view = std::string(state::kViewsDir) + "/" + repo;
  // No daemon.json stands in for what the daemon reports: the daemon may read otherwise.
  const auto verdict = docker::reads_only_view(docker::spec_dirs(info, nullptr), daemon_root, fs, view);
  if (verdict.ok()) return std::nullopt;
  const std::string why = "the repository's daemon " + verdict.reason();
  if (!verdict.reported) return why + ", so which specs a build could use cannot be told; use Docker 25 or later.";
  return why + " (" + fs.host_path(view).string() +
         "), so a build could use a name the repository was not granted; ask an operator to bind the view over the "
         "daemon's /etc/cdi (rediacc-gpu setup's drop-in does) and set \"cdi-spec-dirs\": [\"/etc/cdi\"].";
}

// A build step may neither run privileged nor share the host's network, as no container of the
// repository may; where the machine's policy runs services on the host's network, a build step may
// share it too.
admission::Refusal builder_refusal(const Result<docker::BuilderEntitlements>& granted, const std::string& config_path,
                                   const PolicyRules& policy) {
  if (!granted) return "the repository's daemon's " + granted.error().message;
  switch (docker::builder_reach(*granted, policy.host_network)) {
    case docker::BuilderReach::privileged:
      return "the repository's daemon lets builds run privileged (\"builder\": {\"entitlements\": "
             "{\"security-insecure\": true}} in " +
             config_path + "); ask an operator to remove it and restart the daemon.";
    case docker::BuilderReach::host_network:
      return "the repository's daemon lets builds use the host's network (its builder's network-host entitlement "
             "is on unless " +
             config_path +
             " says \"builder\": {\"entitlements\": {\"network-host\": false}}); ask an operator to set it and "
             "restart the daemon.";
    case docker::BuilderReach::none: break;
  }
  return std::nullopt;
}

BuildSafety::BuildSafety(const RootFs& fs, std::string repo, std::string docker_host)
    : fs_(fs), repo_(std::move(repo)), docker_host_(std::move(docker_host)) {}

admission::Refusal BuildSafety::check(const PolicyRules& policy) {
  const std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (!kept_ || now - kept_->at > kKeep || kept_->host_network != policy.host_network)
    kept_ = Kept{now, policy.host_network, judge(policy)};
  return kept_->verdict;
}

// The builder's entitlements the running daemon builds with (docker::running_builder_entitlements,
// which doctor calls too): its daemon.json as the daemon sees it, and only while the file is what
// it started with; also, while this daemon runs, the text the gate first read of it, which a
// clock set back or a link swapped to an older file could otherwise hide a change from.
admission::Refusal BuildSafety::entitlements_refusal(const docker::RunningDaemon& daemon, const RootFs& daemon_root,
                                                     const PolicyRules& policy) {
  const std::string who = "the repository's daemon's ";
  const auto started = docker::process_started(RootFs("/"), daemon.pid);
  if (!started) return "the start of the repository's daemon cannot be told: " + started.error().message + ".";
  const auto config = docker::read_config_file(daemon_root, daemon);
  if (!config) return who + daemon.config_path() + " cannot be read: " + config.error().message;
  const auto granted = docker::running_builder_entitlements(*config, started->by);
  if (granted) {
    if (!first_read_ || first_read_->pid != daemon.pid || first_read_->ticks != started->ticks) {
      first_read_ = FirstRead{daemon.pid, started->ticks, config->text};
    } else if (first_read_->text != config->text) {
      return who + config->path +
             " is not what the gate first read while this daemon ran, and dockerd reads its builder's entitlements "
             "only when it starts; restart the daemon.";
    }
  }
  return builder_refusal(granted, config->path, policy);
}

admission::Refusal BuildSafety::judge(const PolicyRules& policy) {
  const auto why = [](std::string text) { return admission::Refusal(text + kFallback); };
  if (docker_host_.empty())
    return why("the plugin was given no daemon (--docker-host), so which specs a build could use cannot be told.");
  const auto socket = docker::docker_socket(docker_host_);
  if (!socket) return why(socket.error().message + ".");
  const auto daemon = docker::serving_daemon(*socket);
  if (!daemon) return why(daemon.error().message + ".");
  const auto info = docker::docker_call_at(docker_host_, "GET", "/info", std::chrono::seconds(5));
  if (!info || info->status != 200)
    return why("the repository's daemon did not answer GET /info" + (info ? "" : ": " + info.error().message) + ".");
  const auto doc = nlohmann::json::parse(info->body, nullptr, false);
  // The daemon's files as it sees them: its mount namespace and root, through /proc/PID/root.
  const RootFs daemon_root("/proc/" + daemon->pid + "/root");
  if (auto refused = spec_dirs_refusal(doc, daemon_root, fs_, repo_)) return why(*refused);
  if (auto refused = entitlements_refusal(*daemon, daemon_root, policy)) return why(*refused);
  return std::nullopt;
}

}  // namespace rgpu::gate
