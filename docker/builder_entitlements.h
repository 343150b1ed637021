#pragma once
// What a dockerd's own BuildKit grants the builds it runs, from "builder": {"entitlements": …} of
// its daemon.json. Each default is dockerd's when the key is absent (builder-next/controller.go
// getEntitlements, 20.10 to 29): network-host on, security-insecure off, device on (29.0+; 28.x's
// BuildKit attaches only the CDI devices its specs mark auto-allowed, as a view marks its own, and
// 26's none at all).

#include <nlohmann/json.hpp>

namespace rgpu::docker {

struct BuilderEntitlements {
  bool network_host = true;        ///< RUN --network=host: a step shares the host's network
  bool security_insecure = false;  ///< RUN --security=insecure: a step runs privileged
  bool device = true;              ///< RUN --device NAME: a step gets a CDI device the daemon resolves
};

/// The entitlements a daemon.json grants (keys matched in any ASCII case, as Go's decoder does);
/// a config that is no object, or names none, grants the defaults.
BuilderEntitlements builder_entitlements(const nlohmann::json& config);

}  // namespace rgpu::docker
