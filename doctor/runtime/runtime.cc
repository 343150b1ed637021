// Layer 3: what joins the driver to containers, in the order a request travels: the NVIDIA spec
// and what makes it (nvidia_toolkit.cc), Docker as configured (docker_config.cc), and the
// running daemons as they say they are (daemon_answers.cc).

#include "doctor/doctor.h"
#include "doctor/runtime/runtime_checks.h"

namespace rgpu::doctor {

std::vector<Check> runtime_checks(const Facts& f) {
  return {toolkit(f),    nvidia_spec(f), containers_driver(f), shadowing_spec(f), refresh_wired(f),   docker_daemon(f),
          docker_cdi(f), daemon_cdi(f),  daemon_gpu_path(f),   spec_dirs(f),      daemon_spec_dirs(f)};
}

}  // namespace rgpu::doctor
