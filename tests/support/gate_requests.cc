#include "tests/support/gate_requests.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "tests/support/build_paths.h"

namespace rgpu::test {

grants::GrantSet web_holding(std::initializer_list<const char*> names) {
  grants::GrantSet g;
  for (const char* name : names) g.grants.push_back({kGateRepo, name, false, "2026-11-29T00:00:00Z"});
  return g;
}

admission::Decision decide(const grants::GrantSet& grants, const std::string& repo,
                           const admission::AuthzRequest& request) {
  return admission::decide(grants, repo, request, admission::DecideOptions{.world = admission::null_world()});
}

admission::Decision decide(const grants::GrantsSource& grants, const std::string& repo,
                           const admission::AuthzRequest& request) {
  return admission::decide(grants, repo, request, admission::DecideOptions{.world = admission::null_world()});
}

admission::AuthzRequest req(const std::string& method, const std::string& uri, const std::string& body,
                            const std::string& content_type) {
  return admission::AuthzRequest{method, uri, content_type, body};
}

nlohmann::json inspect_fixture(const std::string& name) {
  std::ifstream in(fixture_path("docker-inspect/" + name));
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

void refused(const admission::Decision& d, const std::string& words) {
  INFO(d.msg);
  CHECK_FALSE(d.allow);
  CHECK_THAT(d.msg, Catch::Contains(words));
}

void allowed(const admission::Decision& d) {
  INFO(d.msg);
  CHECK(d.allow);
}

}  // namespace rgpu::test
