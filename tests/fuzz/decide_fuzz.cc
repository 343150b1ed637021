// libFuzzer target (clang only: cmake -DRGPU_FUZZ=ON with CXX=clang++; scripts/fuzz.sh runs it).
// The decision never crashes, and never allows a body that an independent parser (nlohmann,
// strict) cannot read as one JSON object. The first byte picks the route that reads the body.

#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "admission/decide.h"
#include "admission/null_world.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const char* const kRoutes[] = {"/v1.41/containers/create", "/v1.41/containers/abc/update",
                                        "/v1.41/containers/abc/exec", "/v1.41/volumes/create"};
  const std::string uri = kRoutes[data[0] % 4];
  const std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  rgpu::grants::GrantSet grants;
  grants.grants = {{"web", "nvidia.com/gpu=all", false, ""}};
  rgpu::admission::AuthzRequest request{"POST", uri, "application/json", body};
  // Nothing of a machine: the decision alone, on the body.
  const rgpu::admission::DecideOptions options{.world = rgpu::admission::null_world()};
  const auto decision = rgpu::admission::decide(grants, "web", request, options);
  if (!decision.allow) return 0;
  const auto oracle = nlohmann::json::parse(body, nullptr, false);
  if (oracle.is_discarded() || !oracle.is_object()) std::abort();
  return 0;
}
