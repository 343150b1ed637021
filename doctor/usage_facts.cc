// The usage facts of one doctor, metrics or usage run: NVML asked once, the processes found,
// and the record of grant use brought up to date.

#include "doctor/check.h"

namespace rgpu::doctor {

void gather_nvml(Facts& f) {
  if (!has_vendor(f.fresh, probe::Vendor::nvidia)) return;
  if (auto nvml = probe::query_nvml(f.fs, probe::native_library_dirs()); nvml && *nvml) f.nvml = std::move(**nvml);
}

void gather_usage(Facts& f, std::chrono::system_clock::time_point now, const UsageOptions& options) {
  f.usage = gpu_usage(f.fs, f.fresh, f.nvml, docker::repo_daemon_addresses(f.fs, f.daemons), options);
  if (!f.grants) return;
  f.use = judge_use(f.fs, *f.grants, f.specs, *f.usage);
  f.last_use = record_use(f.fs, *f.use, now);
}

}  // namespace rgpu::doctor
