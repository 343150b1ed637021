#include "docker/builder_entitlements.h"

#include <sys/stat.h>

#include "docker/go_json.h"
#include "docker/proc_tables.h"

namespace rgpu::docker {
namespace {

using Clock = std::chrono::system_clock;

Clock::time_point changed_at(const struct ::stat& st) {
  return Clock::time_point(std::chrono::duration_cast<Clock::duration>(std::chrono::seconds(st.st_ctim.tv_sec) +
                                                                       std::chrono::nanoseconds(st.st_ctim.tv_nsec)));
}

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? "/" : path.substr(0, slash);
}

constexpr const char* kOnlyAtStart =
    ", and dockerd reads its builder's entitlements only when it starts, so which it "
    "builds with cannot be told; restart the daemon.";

}  // namespace

Result<BuilderEntitlements> builder_entitlements(const std::optional<std::string>& daemon_json) {
  BuilderEntitlements out;
  if (!daemon_json || daemon_json->find_first_not_of(" \t\r\n") == std::string::npos) return out;
  RGPU_TRY_ASSIGN(auto doc, read_go_json(*daemon_json));
  if (doc.root().kind() != GoValue::Kind::object) return fail("it is not a JSON object");
  try {
    const auto builder = doc.root().field("builder");
    const auto entitlements = builder ? builder->field("entitlements") : std::nullopt;
    if (!entitlements) return out;
    const auto flag = [&](std::string_view name, bool& value) {
      const auto v = entitlements->field(name);
      if (v && v->kind() == GoValue::Kind::boolean) value = v->boolean();
    };
    flag("network-host", out.network_host);
    flag("security-insecure", out.security_insecure);
    flag("device", out.device);
  } catch (const FoldedDuplicate& e) {
    return fail(std::string(e.what()));
  }
  return out;
}

BuilderReach builder_reach(const BuilderEntitlements& granted, bool host_network) {
  if (granted.security_insecure) return BuilderReach::privileged;
  if (granted.network_host && !host_network) return BuilderReach::host_network;
  return BuilderReach::none;
}

Result<BuilderEntitlements> running_builder_entitlements(const ConfigFile& config, Clock::time_point started) {
  const bool changed_since = config.changed && *config.changed >= started;
  if (config.text) {
    if (changed_since) return fail(config.path + " changed after the daemon started" + kOnlyAtStart);
    auto granted = builder_entitlements(config.text);
    if (!granted)
      return fail(config.path + " cannot be judged (" + granted.error().message +
                  "); keep one spelling of each key, as valid JSON.");
    return granted;
  }
  if (config.required) return fail(config.path + " is gone, but the daemon was started with it" + kOnlyAtStart);
  if (changed_since)
    return fail(directory_of(config.path) + " changed after the daemon started, and " + config.path +
                " may have been removed from it" + kOnlyAtStart);
  return BuilderEntitlements{};
}

Result<ConfigFile> read_config_file(const RootFs& daemon_root, const RunningDaemon& daemon) {
  ConfigFile out{daemon.config_path(), std::nullopt, std::nullopt, daemon.flag("--config-file").has_value()};
  RGPU_TRY_ASSIGN(out.text, daemon_root.read_optional(out.path));
  // Its time after its text: a change made while it was read shows as one after the start.
  const auto st = daemon_root.stat(out.text ? out.path : directory_of(out.path));
  if (st) out.changed = changed_at(*st);
  return out;
}

Result<BuilderEntitlements> daemon_builder_entitlements(const RootFs& proc_root, const RootFs& daemon_root,
                                                        const RunningDaemon& daemon) {
  RGPU_TRY_ASSIGN(const auto started, process_started(proc_root, daemon.pid));
  RGPU_TRY_ASSIGN(const auto config, read_config_file(daemon_root, daemon));
  return running_builder_entitlements(config, started.by);
}

}  // namespace rgpu::docker
