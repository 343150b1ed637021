#pragma once
// Which Engine API route a request reaches, read the way dockerd's router reads it: the raw
// RequestUri, absolute form or not, with its query dropped, percent-decoded (%2F included),
// with or without a /vN.NN prefix. Paths that are not clean are refused: the daemon only
// redirects them, and a checker that normalised them differently could be fooled.

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace rgpu::admission {

enum class RouteKind {
  container_create,
  container_update,
  container_start,
  container_restart,
  container_unpause,
  container_archive,  ///< GET, HEAD, PUT /containers/{id}/archive: dockerd mounts the stored mounts
  exec_create,
  volume_create,
  swarm,              ///< services create/update, swarm init/join
  plugin,             ///< plugins pull/create/upgrade/set/enable
  buildkit,           ///< /session, /grpc, and POST /build whose query picks BuildKit (version=2)
  build,              ///< the classic builder, POST /build: its query picks the RUN steps' network
  checkpoint_create,  ///< POST /containers/{id}/checkpoints (CRIU, experimental daemons)
  checkpoint_access,  ///< GET /containers/{id}/checkpoints, DELETE .../checkpoints/{name}: their ?dir=
  image_pull,         ///< POST /images/create
  network_create,     ///< POST /networks/create: its driver and options reach the host's interfaces
  other,
};

struct Route {
  RouteKind kind = RouteKind::other;
  std::string path;   ///< decoded, without the version prefix
  std::string query;  ///< raw, after '?' and before '#'
  /// The container a /containers/{name}/... route names, as dockerd's router reads {name:.*}:
  /// every segment between "containers" and the last one ("a/b" for a legacy link's name).
  std::string container;
};

/// Every value of `key` in a raw query, as Go's url.ParseQuery reads it ('&' separates, '+' is a
/// space, %XX decoded; a pair with ';' or a bad escape is dropped, as Go drops it).
std::vector<std::string> query_values(std::string_view query, std::string_view key);

/// True when POST /build with this raw query runs BuildKit, as dockerd picks the builder: the first
/// value of `version` is "2" (empty, absent or "1" is the classic builder).
bool builds_with_buildkit(std::string_view query);

/// The route of `method` and `request_uri`; an error for a path that is not clean or not decodable.
Result<Route> route_of(std::string_view method, std::string_view request_uri);

}  // namespace rgpu::admission
