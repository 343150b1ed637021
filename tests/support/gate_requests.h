#pragma once
// What the gate's unit tests hand the decision and check of it: a request as the plugin receives
// it, the grants of the one repository they ask as, and an answer that must refuse with given
// words or allow (the refusal is printed when it does not).

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

#include "admission/authz_request.h"
#include "admission/decide.h"
#include "admission/null_world.h"
#include "grants/grant_set.h"

namespace rgpu::test {

/// The repository every gate unit test asks as.
inline constexpr const char* kGateRepo = "web";

/// What `web` holds: each name, shared, granted at one fixed time.
grants::GrantSet web_holding(std::initializer_list<const char*> names);

/// The decision on the request alone, in the world that knows nothing (admission::null_world()):
/// where the gate's unit tests of the body's rules judge. A test that needs the machine's paths,
/// a daemon or the specs passes its own world to admission::decide.
admission::Decision decide(const grants::GrantSet& grants, const std::string& repo,
                           const admission::AuthzRequest& request);
admission::Decision decide(const grants::GrantsSource& grants, const std::string& repo,
                           const admission::AuthzRequest& request);

/// A request as dockerd forwards it; a body is JSON unless told otherwise.
admission::AuthzRequest req(const std::string& method, const std::string& uri, const std::string& body = "",
                            const std::string& content_type = "application/json");

/// What dockerd 26.1.5 answers GET /containers/{name}/json with (tests/fixtures/docker-inspect),
/// on a cgroup v1 machine (so CgroupnsMode is the host's, dockerd's default there):
/// "plain-26.1.5.json" for a container created with nothing (`docker create img true`),
/// "cdi-device-26.1.5.json" with --device rediacc.io/dri=renderD128.
nlohmann::json inspect_fixture(const std::string& name);

/// The decision refused, with a message that contains `words`.
void refused(const admission::Decision& d, const std::string& words);

/// The decision allowed.
void allowed(const admission::Decision& d);

}  // namespace rgpu::test
