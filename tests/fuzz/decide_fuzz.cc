// libFuzzer target (clang only: cmake -DRGPU_FUZZ=ON with CXX=clang++; scripts/fuzz.sh runs it).
// The decision never crashes, and never allows a create body it cannot parse.

#include <cstdint>
#include <cstdlib>
#include <string>

#include "admission/decide.h"
#include "admission/go_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string body(reinterpret_cast<const char*>(data), size);
  rgpu::admission::GrantSet grants;
  grants.grants = {{"web", "nvidia.com/gpu=all", false, ""}};
  rgpu::admission::AuthzRequest request{
      "POST", "/v1.41/containers/create", {{"Content-Type", "application/json"}}, body};
  const auto decision = rgpu::admission::decide(grants, "web", request);
  const auto parsed = rgpu::admission::read_go_json(body);
  if (decision.allow && (!parsed || parsed->kind != rgpu::admission::GoValue::Kind::object)) std::abort();
  return 0;
}
