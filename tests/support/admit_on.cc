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

}  // namespace rgpu::test
