#include "admission/decide.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "admission/api_fields.h"
#include "admission/body_checks.h"
#include "admission/route.h"
#include "core/ascii_case.h"
#include "core/structured_text.h"
#include "docker/go_json.h"

namespace rgpu::admission {

using docker::FoldedDuplicate;
using docker::GoDocument;
using docker::GoValue;
using docker::read_go_json;
namespace {

// What a world that cannot tell whether builds are safe answers for BuildKit.
constexpr const char* kBuildkitWhy =
    "BuildKit sessions can attach CDI devices to builds out of the gate's sight, and this gate was given no daemon "
    "to check what its builds can reach; build with DOCKER_BUILDKIT=0 docker build.";

Decision allow() { return {true, ""}; }
Decision deny(std::string msg) { return {false, std::move(msg)}; }

// fromImage names moby/buildkit, with or without a registry, tag or digest.
bool pulls_buildkit(const Route& route) {
  for (std::string image : query_values(route.query, "fromImage")) {
    image = image.substr(0, image.find('@'));
    if (const auto colon = image.rfind(':'); colon != std::string::npos && image.find('/', colon) == std::string::npos)
      image.resize(colon);
    if (image == "moby/buildkit" || (image.size() > 14 && image.compare(image.size() - 14, 14, "/moby/buildkit") == 0))
      return true;
  }
  return false;
}

// The request's media type, lower-cased, without parameters ("application/json").
std::string media_type(const AuthzRequest& request) {
  std::string media = request.content_type.substr(0, request.content_type.find(';'));
  while (!media.empty() && std::isspace(static_cast<unsigned char>(media.back()))) media.pop_back();
  for (auto& c : media) c = ascii_lower(c);
  return media;
}

// Fail closed: a route that can attach hardware is decided on its body, so the body must be
// there, be JSON as dockerd reads it, and be all of it.
std::optional<GoDocument> read_body(const AuthzRequest& request, std::string& why) {
  if (request.body.empty()) {
    why =
        "refused: the request carries no body the gate can read (chunked, over dockerd's plugin limit, or not "
        "JSON).";
    return std::nullopt;
  }
  if (request.body.size() > kMaxBody) {
    why = "refused: the request body is over 4 MiB, more than dockerd hands a plugin.";
    return std::nullopt;
  }
  if (media_type(request) != "application/json") {
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

// dockerd reads query parameters with Go's r.FormValue, which also parses a form-encoded body,
// and hands a plugin only JSON bodies: such a body would carry parameters the gate never sees.
bool form_body(const AuthzRequest& request) {
  const std::string media = media_type(request);
  return media.find("application/x-www-form-urlencoded") != std::string::npos ||
         media.find("multipart/form-data") != std::string::npos;
}

// POST /images/create: a pull (fromImage) or an import (fromSrc, a URL or the body). dockerd reads
// both with r.Form.Get, whose first values come from a form body; it parses one whenever the first
// of two Content-Type headers names a form, while the plugin is shown the last, and no body (26 and
// 28.5 both do: tests/e2e/gate_reality_test.cc). So an import, whose body the gate never sees, can
// carry any fromSrc, and a pull is judged only when its Content-Length says it has no body at all
// (the docker CLI, Compose and the SDKs send "Content-Length: 0"; a chunked body has none).
Refusal image_create_refusal(const AuthzRequest& request, const Route& route) {
  const auto images = query_values(route.query, "fromImage");
  const bool import = images.empty() || images.front().empty() || !query_values(route.query, "fromSrc").empty();
  if (import)
    return std::string(
        "refused: docker import (POST /images/create without fromImage): dockerd downloads a fromSrc URL from the "
        "host's network, and reads the archive from a body whose parameters the gate cannot see; use docker load "
        "with an image archive instead.");
  if (request.content_length != "0")
    return std::string(
        "refused: a pull that may carry a body (its Content-Length is not 0): dockerd reads a form body's "
        "parameters before the query's, and never shows such a body to the gate; pull without a body, as docker "
        "pull does.");
  return std::nullopt;
}

bool any_non_empty(const std::vector<std::string>& values) {
  return std::any_of(values.begin(), values.end(), [](const std::string& v) { return !v.empty(); });
}

constexpr const char* kCheckpointDirWhy =
    "a checkpoint directory of the request's choosing holds process images anyone could have written, and CRIU "
    "restores whatever process they describe, as root; leave the checkpoint directory unset (the daemon keeps "
    "checkpoints with the container)";

// dockerd's names.RestrictedNamePattern, [a-zA-Z0-9][a-zA-Z0-9_.-]+: what it checks a checkpoint's
// name against at create, and never at a start, which joins the name to the container's checkpoint
// directory as it is (daemon/checkpoint.go getCheckpointDir): "../" would climb out of it.
Refusal checkpoint_name(std::string_view name) {
  const auto plain = [](unsigned char c) { return std::isalnum(c) != 0; };
  const bool ok = name.size() >= 2 && plain(name.front()) && std::all_of(name.begin(), name.end(), [&](char c) {
                    return plain(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
                  });
  if (ok) return std::nullopt;
  return "refused: \"" + std::string(name) +
         "\" is not a checkpoint name (letters, digits, '_', '.' and '-', starting with a letter or digit); a "
         "start would look for it outside the container's own checkpoint directory.";
}

Decision decide_start(const AuthzRequest& request, const Route& route, const PolicyRules& policy) {
  if (!request.body.empty() || form_body(request))
    return deny("refused: a body on containers/start (old API versions apply a HostConfig there).");
  const auto checkpoints = query_values(route.query, "checkpoint");
  const bool from_checkpoint = any_non_empty(checkpoints);
  if (any_non_empty(query_values(route.query, "checkpoint-dir")))
    return deny(std::string("refused: docker start --checkpoint-dir: ") + kCheckpointDirWhy + ".");
  if (from_checkpoint && !policy.checkpoints)
    return deny(
        "refused: restoring a checkpoint runs CRIU as root on the host, which this machine's policy (strict) does not "
        "allow; start the container without it.");
  for (const auto& name : checkpoints) {
    if (auto bad = checkpoint_name(name); bad && !name.empty()) return deny(*bad);
  }
  return allow();
}

// docker checkpoint create: CRIU dumps the running container into the daemon's own checkpoint
// directory, where only a later start of that container reads it back.
Decision decide_checkpoint(const GoValue& body) {
  if (const auto dir = body.field("CheckpointDir"); dir && !dir->is_empty())
    return deny(std::string("refused: docker checkpoint create --checkpoint-dir: ") + kCheckpointDirWhy + ".");
  const auto id = body.field("CheckpointID");
  if (auto bad = checkpoint_name(id && id->kind() == GoValue::Kind::string ? id->text() : "")) return deny(*bad);
  return allow();
}

// Listing a container's checkpoints makes and reads the directory ?dir= names, removing one removes
// DIR/NAME whole (daemon/checkpoint.go): any directory of the host, under every policy.
Decision decide_checkpoint_access(const Route& route) {
  if (any_non_empty(query_values(route.query, "dir")))
    return deny(
        std::string("refused: a checkpoint directory of the request's choosing (--checkpoint-dir): dockerd "
                    "would make, list or remove a directory of the host there; leave it unset."));
  return allow();
}

// A build context dockerd downloads itself (remote=URL or git): from the daemon's network
// namespace, the host's on a Rediacc machine, where every repository's loopback services listen;
// the download's text comes back in the build's output. "client-session" is BuildKit's context
// from the client's own session.
Refusal remote_context(const Route& route) {
  for (const auto& remote : query_values(route.query, "remote")) {
    if (remote.empty() || remote == "client-session") continue;
    return "refused: docker build from \"" + remote +
           "\": dockerd would download the context itself, from the host's network where other repositories' "
           "services listen; download or clone it yourself and build from a local directory.";
  }
  return std::nullopt;
}

// The classic builder runs each RUN step in a container of the query's network and cgroup parent.
// dockerd 26 and 28.5 read /build's parameters from the query alone, also when the first of two
// Content-Type headers names a form (tests/e2e/gate_reality_test.cc shows it).
Decision decide_build(const Route& route, const PolicyRules& policy) {
  if (auto bad = remote_context(route)) return deny(*bad);
  for (const auto& mode : query_values(route.query, "networkmode")) {
    if (mode == "host" && !policy.host_network)
      return deny("refused: docker build --network host: RUN steps would share the host's network.");
  }
  if (any_non_empty(query_values(route.query, "cgroupparent")))
    return deny("refused: docker build --cgroup-parent places build steps outside the repository's cgroup.");
  return allow();
}

bool restart_policy_set(const GoValue& body) {
  const auto policy = body.field("RestartPolicy");
  const auto name = policy && policy->kind() == GoValue::Kind::object ? policy->field("Name") : std::nullopt;
  return name && !name->text().empty() && name->text() != "no";
}

// "refused: X." -> "X", to be said of a stored container.
std::string_view reason_of(std::string_view refusal) {
  if (refusal.starts_with("refused: ")) refusal.remove_prefix(9);
  while (refusal.ends_with('.')) refusal.remove_suffix(1);
  return refusal;
}

std::string container_label(const GoValue& inspect, const std::string& asked) {
  const auto name = inspect.kind() == GoValue::Kind::object ? inspect.field("Name") : std::nullopt;
  const auto id = inspect.kind() == GoValue::Kind::object ? inspect.field("Id") : std::nullopt;
  std::string label = "container \"" + std::string(name && !name->text().empty() ? name->text() : asked) + "\"";
  if (id && id->text().size() >= 12) label += " (" + std::string(id->text().substr(0, 12)) + ")";
  return label;
}

// The route runs a process in a container that already exists: judge what the daemon stored
// for it as a create would be judged now, so a revoke, a fork or an edited data-root cannot
// carry a device past the gate. A world without the daemon's containers judges the request alone.
Decision decide_stored(const std::string& name, CheckContext& context) {
  auto known = context.world.stored_container(name);
  if (!known) return allow();
  const std::string who = "repository \"" + context.repo + "\"";
  auto& text = *known;
  if (!text) {
    return deny("refused: the gate could not read container \"" + name + "\" from " + who +
                "'s daemon to check what it attaches: " + std::string(reason_of(text.error().message)) + ".");
  }
  auto doc = read_go_json(*text);
  if (!doc)
    return deny("refused: " + who + "'s daemon described container \"" + name + "\" in a form the gate cannot read.");
  try {
    if (auto bad = check_stored_container(doc->root(), context)) {
      return deny("refused: " + container_label(doc->root(), name) + " of " + who +
                  " was made with what a new container would be refused now: " + std::string(reason_of(*bad)) +
                  "; or recreate the container without it.");
    }
  } catch (const FoldedDuplicate& e) {
    return deny(std::string("refused: the stored container: ") + e.what() + ".");
  }
  return allow();
}

Decision decide_exec(const GoValue& body) {
  if (auto bad = check_working_dir(body.field("WorkingDir"))) return deny(*bad);
  if (const auto p = body.field("Privileged"); p && !p->is_empty()) {
    return deny("refused: a privileged exec; run the command without --privileged.");
  }
  if (auto bad = check_known_fields(body, ApiObject::exec)) return deny(*bad);
  return allow();
}

Decision decide_volume(const GoValue& body) {
  if (auto bad = check_volume(body.field("Driver"), body.field("DriverOpts"))) return deny(*bad);
  if (auto bad = check_known_fields(body, ApiObject::volume_create)) return deny(*bad);
  return allow();
}

// Reading a field that two keys name throws FoldedDuplicate, caught by the caller.
Decision decide_body(RouteKind kind, const GoValue& body, CheckContext& context) {
  switch (kind) {
    case RouteKind::container_create: {
      auto bad = check_create(body, context);
      return bad ? deny(*bad) : allow();
    }
    case RouteKind::container_update: {
      auto bad = check_update(body, context);
      return bad ? deny(*bad) : allow();
    }
    case RouteKind::exec_create: return decide_exec(body);
    case RouteKind::volume_create: return decide_volume(body);
    case RouteKind::network_create: {
      auto bad = check_network_create(body);
      return bad ? deny(*bad) : allow();
    }
    case RouteKind::checkpoint_create: return decide_checkpoint(body);
    default: return allow();
  }
}

bool on_stored_container(RouteKind kind) {
  return kind == RouteKind::container_start || kind == RouteKind::container_restart ||
         kind == RouteKind::container_unpause || kind == RouteKind::container_archive ||
         kind == RouteKind::exec_create || kind == RouteKind::container_update || kind == RouteKind::checkpoint_create;
}

// The request's own decision, then, where the route runs a process in an existing container,
// the stored container's.
Decision decide_in(CheckContext& context, const AuthzRequest& request, const Route& route,
                   const DecideOptions& options) {
  const auto stored = [&](Decision own) {
    if (!own.allow) return own;
    return decide_stored(route.container, context);
  };
  switch (route.kind) {
    case RouteKind::container_start: return stored(decide_start(request, route, options.policy));
    case RouteKind::container_restart:
    case RouteKind::container_unpause:
    case RouteKind::container_archive: return stored(allow());
    default: break;
  }
  std::string why;
  auto body = read_body(request, why);
  if (!body) return deny(why);
  try {
    Decision own = decide_body(route.kind, body->root(), context);
    if (route.kind == RouteKind::exec_create || route.kind == RouteKind::checkpoint_create ||
        (route.kind == RouteKind::container_update && restart_policy_set(body->root())))
      return stored(std::move(own));
    return own;
  } catch (const FoldedDuplicate& e) {
    return deny(std::string("refused: ") + e.what() + ".");
  }
}

Decision decide_request(const grants::GrantsSource& source, const std::string& repo, const AuthzRequest& request,
                        const Route& route, const DecideOptions& options) {
  LazyGrants grants(source);
  CheckContext context{.grants = grants, .repo = repo, .world = options.world, .policy = options.policy};
  Decision d = decide_in(context, request, route, options);
  if (!d.allow) d.detail = std::move(context.detail);
  return d;
}

}  // namespace

Decision decide(const grants::GrantSet& grants, const std::string& repo, const AuthzRequest& request,
                const DecideOptions& options) {
  // The aliasing constructor: a shared_ptr that points at `grants` and owns nothing.
  const grants::GrantsSource source = [&grants]() -> Result<std::shared_ptr<const grants::GrantSet>> {
    return std::shared_ptr<const grants::GrantSet>(std::shared_ptr<const grants::GrantSet>(), &grants);
  };
  return decide(source, repo, request, options);
}

bool asks_the_daemon(const AuthzRequest& request) {
  auto route = route_of(request.method, request.uri);
  // A create may name --volumes-from containers, whose mounts are read from the daemon.
  return route &&
         (on_stored_container(route->kind) || route->kind == RouteKind::container_create ||
          route->kind == RouteKind::buildkit || (route->kind == RouteKind::image_pull && pulls_buildkit(*route)));
}

namespace {

// Why BuildKit may not build for this repository now; nothing when it may.
Refusal builds_refused(const DecideOptions& options) {
  if (options.allow_buildkit) return std::nullopt;
  const auto verdict = options.world.build_refusal(options.policy);
  if (!verdict) return std::string(kBuildkitWhy);
  if (*verdict) return "BuildKit builds are refused for this repository: " + **verdict;
  return std::nullopt;
}

}  // namespace

Decision decide(const grants::GrantsSource& source, const std::string& repo, const AuthzRequest& request,
                const DecideOptions& options) {
  auto route = route_of(request.method, request.uri);
  if (!route) return deny("refused: " + route.error().message + ".");
  // dockerd reads query parameters with Go's r.FormValue, which reads a form body's first, and
  // never hands a plugin a body that is not JSON: the parameters that count would be unseen.
  if (form_body(request))
    return deny(
        "refused: a form-encoded body: dockerd reads request parameters from it, and never shows it to the gate; "
        "send them in the query.");
  switch (route->kind) {
    case RouteKind::other: return allow();
    case RouteKind::swarm:
      return deny(
          "refused: swarm services and swarm membership create containers the gate never sees; use docker run or "
          "Compose.");
    case RouteKind::plugin:
      return deny("refused: installing or configuring Docker plugins can grant devices; ask an operator.");
    case RouteKind::buildkit: {
      if (auto bad = remote_context(*route)) return deny(*bad);
      const auto why = builds_refused(options);
      return why ? deny("refused: " + *why) : allow();
    }
    case RouteKind::image_pull: {
      if (auto bad = image_create_refusal(request, *route)) return deny(*bad);
      // Refused /grpc, buildx silently falls back to a docker-container builder and pulls
      // moby/buildkit: refusing that pull is how the user gets to read why, instead of a
      // registry error (and the daemon does not reach for the network). Where builds pass, the
      // pull is only a pull: the builder's privileged container is refused at its create.
      if (!pulls_buildkit(*route)) return allow();
      const auto why = builds_refused(options);
      return why ? deny("refused: buildx fell back to a moby/buildkit container after the gate refused BuildKit. " +
                        *why)
                 : allow();
    }
    case RouteKind::build: return decide_build(*route, options.policy);
    case RouteKind::checkpoint_access: return decide_checkpoint_access(*route);
    case RouteKind::checkpoint_create:
      if (!options.policy.checkpoints)
        return deny(
            "refused: checkpoints are restored by CRIU as root on the host, which this machine's policy (strict) does "
            "not allow; run the container anew instead.");
      return decide_request(source, repo, request, *route, options);
    default: return decide_request(source, repo, request, *route, options);
  }
}

// The tenant learns that it failed; the operator's journal gets what failed (Decision::detail).
constexpr const char* kGateFailed =
    "refused: the gate failed on this request; nothing was done. Ask an operator to read the plugin's journal.";

Decision decide_or_refuse(const grants::GrantsSource& grants, const std::string& repo, const AuthzRequest& request,
                          const DecideOptions& options) {
  try {
    return decide(grants, repo, request, options);
  } catch (const std::exception& e) {
    return {false, kGateFailed, without_parser_tag(e.what())};
  } catch (...) {
    return {false, kGateFailed, "an exception that is not a std::exception"};
  }
}

}  // namespace rgpu::admission
