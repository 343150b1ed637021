// Layer 3, after a driver update: the containers started before it still have the old driver's
// libraries (facts/driver_libraries.h), and CUDA inside fails until each is restarted.

#include "core/joined.h"
#include "doctor/runtime/runtime_checks.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kRuntime{Layer::runtime};

}  // namespace

Check containers_driver(const Facts& f) {
  constexpr const char* kId = "container-driver";
  if (!f.nvidia_module) return kRuntime.skip(kId, "the NVIDIA driver is not loaded");
  if (f.containers_on_other_driver.empty())
    return kRuntime.ok(kId, "no running container has another driver's libraries than the loaded " + *f.nvidia_module,
                       Evidence("/proc/PID/mountinfo of each container's first process"));
  std::vector<std::string> stale;
  for (const auto& c : f.containers_on_other_driver)
    stale.push_back("container " + c.container.substr(0, 12) + " (process " + c.pid + ") has " + c.version);
  return kRuntime.fail(kId, joined(stale, "; ") + ", the module loaded now is " + *f.nvidia_module,
                       "the driver changed since those containers started: every CUDA call inside fails with "
                       "\"Driver/library version mismatch\"",
                       "restart those containers on their repository's daemon (docker restart ID): at its start the "
                       "daemon gives each the libraries the NVIDIA spec names now (nvidia-spec says whether it "
                       "follows the loaded driver)");
}

}  // namespace rgpu::doctor
