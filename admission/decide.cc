#include "admission/decide.h"

#include <cctype>
#include <optional>

#include "admission/body_checks.h"
#include "admission/go_json.h"
#include "admission/route.h"

namespace rgpu::admission {
namespace {

Decision allow() { return {true, ""}; }
Decision deny(std::string msg) { return {false, std::move(msg)}; }

bool json_media_type(const std::string& content_type) {
  std::string media = content_type.substr(0, content_type.find(';'));
  while (!media.empty() && std::isspace(static_cast<unsigned char>(media.back()))) media.pop_back();
  for (auto& c : media) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return media == "application/json";
}

// Fail closed: a route that can attach hardware is decided on its body, so the body must be
// there, be JSON as dockerd reads it, and be all of it.
std::optional<GoDocument> read_body(const AuthzRequest& request, std::string& why) {
  if (request.body.empty()) {
    why = "refused: the request carries no body the gate can read (chunked, over 1 MiB, or not JSON).";
    return std::nullopt;
  }
  if (request.body.size() > kMaxBody) {
    why = "refused: the request body is over 1 MiB.";
    return std::nullopt;
  }
  if (!json_media_type(header(request, "Content-Type"))) {
    why = "refused: the request body is not application/json.";
    return std::nullopt;
  }
  auto body = read_go_json(request.body);
  if (!body) {
    why = "refused: " + body.error().message + ".";
    return std::nullopt;
  }
  if (body->root().kind() != GoValue::Kind::object) {
    why = "refused: the request body is not a JSON object.";
    return std::nullopt;
  }
  return std::move(*body);
}

Decision decide_create(const GoValue& body, CheckContext& context) {
  if (const auto hc = body.field("HostConfig")) {
    if (auto bad = check_host_config(*hc, context)) return deny(*bad);
  }
  // Engines up to 26.1 read HostConfig fields at the top level of a create body too.
  if (auto bad = check_host_config(body, context)) return deny(*bad);
  return allow();
}

Decision decide_exec(const GoValue& body) {
  if (const auto p = body.field("Privileged"); p && !p->is_empty()) {
    return deny("refused: a privileged exec; run the command without --privileged.");
  }
  return allow();
}

Decision decide_volume(const GoValue& body) {
  if (auto bad = check_volume(body.field("Driver"), body.field("DriverOpts"))) return deny(*bad);
  return allow();
}

}  // namespace

Decision decide(const GrantSet& grants, const std::string& repo, const AuthzRequest& request,
                const DecideOptions& options) {
  // The aliasing constructor: a shared_ptr that points at `grants` and owns nothing.
  const GrantsSource source = [&grants]() -> Result<std::shared_ptr<const GrantSet>> {
    return std::shared_ptr<const GrantSet>(std::shared_ptr<const GrantSet>(), &grants);
  };
  return decide(source, repo, request, options);
}

Decision decide(const GrantsSource& source, const std::string& repo, const AuthzRequest& request,
                const DecideOptions& options) {
  auto route = route_of(request.method, request.uri);
  if (!route) return deny("refused: " + route.error().message + ".");
  switch (route->kind) {
    case RouteKind::other: return allow();
    case RouteKind::swarm:
      return deny(
          "refused: swarm services and swarm membership create containers the gate never sees; use docker run or "
          "Compose.");
    case RouteKind::plugin:
      return deny("refused: installing or configuring Docker plugins can grant devices; ask an operator.");
    case RouteKind::buildkit:
      if (options.allow_buildkit) return allow();
      return deny(
          "refused: BuildKit sessions can attach CDI devices to builds out of the gate's sight; build with "
          "DOCKER_BUILDKIT=0 docker build, or ask an operator to turn off the builder's device entitlement.");
    case RouteKind::container_start:
      if (!request.body.empty())
        return deny("refused: a body on containers/start (old API versions apply a HostConfig there).");
      return allow();
    default: break;
  }
  std::string why;
  auto body = read_body(request, why);
  LazyGrants grants(source);
  CheckContext context{grants, repo, options.host_paths};
  if (!body) return deny(why);
  switch (route->kind) {
    case RouteKind::container_create: return decide_create(body->root(), context);
    case RouteKind::container_update: {
      auto bad = check_host_config(body->root(), context);
      return bad ? deny(*bad) : allow();
    }
    case RouteKind::exec_create: return decide_exec(body->root());
    case RouteKind::volume_create: return decide_volume(body->root());
    default: return allow();
  }
}

}  // namespace rgpu::admission
