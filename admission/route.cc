#include "admission/route.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

#include "core/hex_digit.h"
#include "core/split.h"

namespace rgpu::admission {
namespace {

Result<std::string> percent_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size() || hex_digit(s[i + 1]) < 0 || hex_digit(s[i + 2]) < 0) {
      return fail("the request path has a malformed percent escape");
    }
    out += static_cast<char>(hex_digit(s[i + 1]) * 16 + hex_digit(s[i + 2]));
    i += 2;
  }
  return out;
}

// The query of a raw request URI: after the first '?', up to a '#'.
std::string_view query_of(std::string_view uri) {
  const auto q = uri.find('?');
  if (q == std::string_view::npos) return {};
  const auto rest = uri.substr(q + 1);
  return rest.substr(0, rest.find('#'));
}

// url.QueryUnescape: '+' is a space; an error for a malformed escape.
std::optional<std::string> query_unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] != '%') {
      out += s[i];
    } else if (i + 2 < s.size() && hex_digit(s[i + 1]) >= 0 && hex_digit(s[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(s[i + 1]) * 16 + hex_digit(s[i + 2]));
      i += 2;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::string_view strip_origin(std::string_view uri) {
  if (auto scheme = uri.find("://"); scheme != std::string_view::npos && uri.find('/') > scheme) {
    auto slash = uri.find('/', scheme + 3);
    uri = slash == std::string_view::npos ? std::string_view("/") : uri.substr(slash);
  }
  return uri.substr(0, uri.find_first_of("?#"));
}

bool clean(const std::string& path) {
  if (path.empty() || path[0] != '/') return false;
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    const std::string_view seg(path.data() + start, end - start);
    if (seg == "." || seg == ".." || (seg.empty() && end != path.size())) return false;
    start = end + 1;
  }
  return true;
}

// The path's first character is its leading '/', which opens no segment.
std::vector<std::string> segments(const std::string& path) {
  return split(std::string_view(path).substr(std::min<size_t>(path.size(), 1)), '/', EmptyFields::keep);
}

// dockerd routes /containers/{name:.*}/VERB: the name may hold '/' (a legacy link registers
// "/parent/alias" as another name of the linked container), so any depth is that route.
RouteKind classify_container_post(const std::string& verb) {
  if (verb == "update") return RouteKind::container_update;
  if (verb == "start") return RouteKind::container_start;
  if (verb == "restart") return RouteKind::container_restart;
  if (verb == "unpause") return RouteKind::container_unpause;
  if (verb == "exec") return RouteKind::exec_create;
  if (verb == "checkpoints") return RouteKind::checkpoint_create;
  return RouteKind::other;
}

RouteKind classify_post(const std::vector<std::string>& s) {
  const size_t n = s.size();
  if (n == 2 && s[0] == "containers" && s[1] == "create") return RouteKind::container_create;
  if (n >= 3 && s[0] == "containers") return classify_container_post(s[n - 1]);
  if (n == 2 && s[0] == "volumes" && s[1] == "create") return RouteKind::volume_create;
  if (n >= 2 && s[0] == "services" && (s[1] == "create" || (n == 3 && s[2] == "update"))) return RouteKind::swarm;
  if (n == 2 && s[0] == "swarm" && (s[1] == "init" || s[1] == "join")) return RouteKind::swarm;
  if (n >= 2 && s[0] == "plugins") {
    const std::string& last = s[n - 1];
    if (last == "pull" || last == "create" || last == "upgrade" || last == "set" || last == "enable") {
      return RouteKind::plugin;
    }
  }
  if (n == 1 && (s[0] == "session" || s[0] == "grpc")) return RouteKind::buildkit;
  if (n == 1 && s[0] == "build") return RouteKind::build;
  if (n == 2 && s[0] == "images" && s[1] == "create") return RouteKind::image_pull;
  if (n == 2 && s[0] == "networks" && s[1] == "create") return RouteKind::network_create;
  return RouteKind::other;
}

// "/v1.41/containers/create" -> "/containers/create", as dockerd registers every route twice.
std::string strip_version(const std::string& path) {
  if (path.size() < 3 || path.compare(0, 2, "/v") != 0) return path;
  size_t i = 2;
  while (i < path.size() && (std::isdigit(static_cast<unsigned char>(path[i])) || path[i] == '.')) ++i;
  if (i == 2 || i >= path.size() || path[i] != '/') return path;
  return path.substr(i);
}

}  // namespace

// dockerd's postBuild reads the builder with r.FormValue("version"): the first value Go's
// url.ParseQuery keeps (a pair with ';' dropped, %XX decoded, the key matched exactly); "2" is
// BuildKit, empty or "1" the classic builder, anything else refused by dockerd itself.
bool builds_with_buildkit(std::string_view query) {
  const auto versions = query_values(query, "version");
  return !versions.empty() && versions.front() == "2";
}

std::vector<std::string> query_values(std::string_view query, std::string_view key) {
  std::vector<std::string> out;
  for (const std::string_view pair : split(query, '&', EmptyFields::drop)) {
    if (pair.find(';') != std::string_view::npos) continue;
    const auto eq = pair.find('=');
    const auto k = query_unescape(pair.substr(0, eq));
    const auto v = query_unescape(eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1));
    if (k && v && *k == key) out.push_back(*v);
  }
  return out;
}

Result<Route> route_of(std::string_view method, std::string_view request_uri) {
  // Go's server reads a request's URI with url.ParseRequestURI, which knows no fragment: a raw '#'
  // stays in the path, or in the query after a '?', where a reader that cuts at it would not look.
  if (request_uri.find('#') != std::string_view::npos)
    return fail(
        "the request URI holds a raw '#', which dockerd reads as part of the path or the query; write it "
        "%23");
  RGPU_TRY_ASSIGN(auto decoded, percent_decode(strip_origin(request_uri)));
  if (!clean(decoded)) return fail("the request path \"" + decoded + "\" is not clean (//, . or .. segments)");
  std::string path = strip_version(decoded);
  Route route{RouteKind::other, path, std::string(query_of(request_uri)), {}};
  const auto segs = segments(path);
  if (method == "POST") route.kind = classify_post(segs);
  if (route.kind == RouteKind::build && builds_with_buildkit(route.query)) route.kind = RouteKind::buildkit;
  if (segs.size() >= 3 && segs[0] == "containers") {
    for (size_t i = 1; i + 1 < segs.size(); ++i) route.container += (i > 1 ? "/" : "") + segs[i];
  }
  if (method == "GET" && segs.size() == 1 && (segs[0] == "session" || segs[0] == "grpc"))
    route.kind = RouteKind::buildkit;
  // dockerd routes /containers/{name:.*}/checkpoints and .../checkpoints/{checkpoint}.
  const size_t n = segs.size();
  // docker cp: dockerd mounts the container's stored mounts to read or write through them.
  if (n >= 3 && segs[0] == "containers" && segs[n - 1] == "archive" &&
      (method == "GET" || method == "HEAD" || method == "PUT"))
    route.kind = RouteKind::container_archive;
  if (n >= 3 && segs[0] == "containers" &&
      ((method == "GET" && segs[n - 1] == "checkpoints") ||
       (method == "DELETE" && n >= 4 && segs[n - 2] == "checkpoints")))
    route.kind = RouteKind::checkpoint_access;
  return route;
}

}  // namespace rgpu::admission
