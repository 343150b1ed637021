#include "doctor/doctor.h"

#include <algorithm>

namespace rgpu::doctor {

const char* status_name(Status status) {
  switch (status) {
    case Status::ok: return "ok";
    case Status::warn: return "warn";
    case Status::fail: return "fail";
    case Status::skip: return "skip";
  }
  return "skip";
}

std::vector<Check> run_doctor(const Facts& facts) {
  std::vector<Check> all;
  for (auto layer :
       {host_driver_checks, placement_checks, device_node_checks, runtime_checks, spec_checks, grant_checks,
        policy_checks, host_policy_checks, repo_daemon_checks, usage_checks, escape_checks, canary_checks}) {
    auto checks = layer(facts);
    all.insert(all.end(), checks.begin(), checks.end());
  }
  return all;
}

bool healthy(const std::vector<Check>& checks) {
  return std::none_of(checks.begin(), checks.end(), [](const Check& c) { return c.status == Status::fail; });
}

}  // namespace rgpu::doctor
