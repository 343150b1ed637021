#include "plugin/live_gate.h"

#include <chrono>

#include "plugin/daemon_containers.h"

namespace rgpu::plugin {

Result<std::unique_ptr<LiveGate>> LiveGate::open(const RootFs& fs, GateSettings settings) {
  RGPU_TRY_ASSIGN(auto containers, daemon_containers(settings.docker_host, settings.no_daemon_why));
  return std::unique_ptr<LiveGate>(new LiveGate(fs, std::move(settings), std::move(containers)));
}

LiveGate::LiveGate(const RootFs& fs, GateSettings settings, admission::ContainerSource containers)
    : settings_(std::move(settings)),
      cache_(fs),
      grants_([this] { return cache_.current(); }),
      spec_reviews_(fs, settings_.repo),
      host_paths_(fs, std::chrono::seconds(2),
                  [this](std::string_view path) { return spec_reviews_.name_for_node(path); }),
      containers_(std::move(containers)),
      reviews_([this](const std::string& name) { return spec_reviews_.of(name); }),
      names_([this] { return spec_reviews_.defined(); }),
      hardware_([this](const std::string& name) { return spec_reviews_.hardware(name); }),
      build_safety_(fs, settings_.repo, settings_.docker_host),
      builds_([this] { return build_safety_.check(); }),
      options_{.allow_buildkit = settings_.allow_buildkit,
               .host_paths = &host_paths_,
               .containers = &containers_,
               .reviews = &reviews_,
               .names = &names_,
               .hardware = &hardware_,
               .builds = &builds_} {}

admission::Decision LiveGate::decide(const admission::AuthzRequest& request) {
  return admission::decide_or_refuse(grants_, settings_.repo, request, options_);
}

}  // namespace rgpu::plugin
