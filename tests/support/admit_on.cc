#include "tests/support/admit_on.h"

#include "tests/support/authz_envelope.h"

namespace rgpu::test {

RunResult tool_on(const FixtureRoot& root, std::vector<std::string> args) {
  args.push_back("--root");
  args.push_back(root.str());
  return run_tool(args);
}

RunResult admit_create(const FixtureRoot& root, const std::string& repo, const std::string& name) {
  const std::string body =
      R"({"Image":"img","HostConfig":{"DeviceRequests":[{"Driver":"cdi","DeviceIDs":[")" + name + R"("]}]}})";
  return run_tool({"admit", "--repo", repo, "--root", root.str()}, authz_post("/v1.53/containers/create", body));
}

std::vector<nlohmann::json> doctor_checks(const FixtureRoot& root, const std::string& id) {
  const auto doc = nlohmann::json::parse(tool_on(root, {"doctor", "-o", "json"}).out);
  std::vector<nlohmann::json> out;
  for (const auto& c : doc["checks"]) {
    if (c["id"] == id) out.push_back(c);
  }
  return out;
}

}  // namespace rgpu::test
