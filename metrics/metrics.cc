#include "metrics/metrics.h"

#include <map>
#include <sstream>

#include "canary/record.h"
#include "core/time_text.h"

namespace rgpu::metrics {
namespace {

void family(std::ostringstream& out, const char* name, const char* help, const char* type = "gauge") {
  out << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
}

int severity(doctor::Status s) {
  switch (s) {
    case doctor::Status::skip: return 0;
    case doctor::Status::ok: return 1;
    case doctor::Status::warn: return 2;
    case doctor::Status::fail: return 3;
  }
  return 0;
}

template <class T>
void link_series(std::ostringstream& out, const char* name, const probe::Gpu& g, std::optional<T> current,
                 std::optional<T> max) {
  if (!g.pci_address) return;
  for (auto [which, value] : {std::pair{"current", current}, std::pair{"max", max}}) {
    if (value) out << name << "{pci_address=\"" << *g.pci_address << "\",value=\"" << which << "\"} " << *value << "\n";
  }
}

// NVIDIA's memory health per GPU, where NVML reports it.
void nvidia_memory_series(std::ostringstream& out, const facts::Facts& f) {
  if (!f.nvml) return;
  const auto each = [&](const char* name, const char* help, auto value) {
    family(out, name, help);
    for (const auto& g : f.nvml->gpus) {
      if (const auto v = value(g); g.pci_address && v)
        out << name << "{pci_address=\"" << *g.pci_address << "\"} " << *v << "\n";
    }
  };
  each("rediacc_gpu_ecc_uncorrected_errors", "NVIDIA uncorrected ECC errors since the driver loaded (NVML, volatile).",
       [](const probe::NvmlGpu& g) { return g.ecc_uncorrected; });
  each("rediacc_gpu_row_remap_pending", "1 when a memory row remap or page retirement waits for the GPU's reset.",
       [](const probe::NvmlGpu& g) { return g.remap_pending ? std::optional<int>(*g.remap_pending) : std::nullopt; });
  each("rediacc_gpu_row_remap_failed", "1 when NVML reports a row remapping failure (the GPU needs replacing).",
       [](const probe::NvmlGpu& g) { return g.remap_failed ? std::optional<int>(*g.remap_failed) : std::nullopt; });
}

// A label value as the exposition format wants it: backslash, quote and newline escaped.
std::string label(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out;
}

// Who uses each GPU, per repository ("host": the machine's own processes; "unknown": a container
// no repository daemon lists), and which grants are in use: "granted but idle" as a series.
void usage_series(std::ostringstream& out, const facts::Facts& f) {
  if (!f.usage) return;
  std::map<std::pair<std::string, std::string>, std::pair<size_t, std::optional<std::uint64_t>>> per;
  for (const auto& use : f.usage->gpus) {
    for (const auto& p : use.processes) {
      auto& [n, bytes] = per[{usage::owner_label(p), usage::gpu_subject(use.gpu)}];
      ++n;
      if (p.memory_bytes) bytes = bytes.value_or(0) + *p.memory_bytes;
    }
  }
  family(out, "rediacc_gpu_processes", "Processes holding a GPU's device nodes open, by repository and GPU.");
  for (const auto& [key, v] : per)
    out << "rediacc_gpu_processes{repository=\"" << label(key.first) << "\",pci_address=\"" << key.second << "\"} "
        << v.first << "\n";
  family(out, "rediacc_gpu_memory_used_bytes",
         "GPU memory those processes hold where the driver says (NVML, DRM fdinfo), by repository and GPU.");
  for (const auto& [key, v] : per) {
    if (v.second)
      out << "rediacc_gpu_memory_used_bytes{repository=\"" << label(key.first) << "\",pci_address=\"" << key.second
          << "\"} " << *v.second << "\n";
  }
  if (!f.use) return;
  family(out, "rediacc_gpu_grant_in_use", "1 when a process of the repository uses what the grant covers now.");
  for (const auto& [key, used] : f.use->in_use)
    out << "rediacc_gpu_grant_in_use{repository=\"" << label(key.first) << "\",device=\"" << label(key.second) << "\"} "
        << (used ? 1 : 0) << "\n";
  if (!f.last_use || !*f.last_use) return;
  family(out, "rediacc_gpu_grant_last_used_timestamp_seconds",
         "When a process of the repository was last seen using the grant (Unix time); absent when never seen.");
  for (const auto& [key, t] : (*f.last_use)->seen)
    out << "rediacc_gpu_grant_last_used_timestamp_seconds{repository=\"" << label(key.first) << "\",device=\""
        << label(key.second) << "\"} " << std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count()
        << "\n";
}

std::int64_t unix_seconds(const std::string& rfc3339) {
  const auto t = parse_rfc3339_utc(rfc3339);
  return t ? std::chrono::duration_cast<std::chrono::seconds>(t->time_since_epoch()).count() : 0;
}

// The last canary of each repository's names, as its record keeps it.
void canary_series(std::ostringstream& out, const facts::Facts& f) {
  std::vector<canary::CanaryResult> all;
  for (const auto& record : f.canaries) {
    if (record.results) all.insert(all.end(), record.results->begin(), record.results->end());
  }
  if (all.empty()) return;
  const auto series = [&](const char* name, const canary::CanaryResult& c) {
    out << name << "{repository=\"" << label(c.repo) << "\",device=\"" << label(c.device) << "\"} ";
  };
  family(out, "rediacc_gpu_canary_ok", "1 when the last canary through the repository's own daemon saw the device.");
  for (const auto& c : all) {
    series("rediacc_gpu_canary_ok", c);
    out << (c.ok ? 1 : 0) << "\n";
  }
  family(out, "rediacc_gpu_canary_last_run_timestamp_seconds", "When the last canary ran (Unix time).");
  for (const auto& c : all) {
    series("rediacc_gpu_canary_last_run_timestamp_seconds", c);
    out << unix_seconds(c.at) << "\n";
  }
  family(out, "rediacc_gpu_canary_last_success_timestamp_seconds",
         "When a canary last succeeded (Unix time); absent when none has.");
  for (const auto& c : all) {
    if (!c.last_success) continue;
    series("rediacc_gpu_canary_last_success_timestamp_seconds", c);
    out << unix_seconds(*c.last_success) << "\n";
  }
}

// GPUs found now by vendor, and those lost (the recorded inventory has them or keeps them as
// missing, or the NVIDIA driver lists them): a machine that lost a GPU must not read as one that
// never had it, even after setup rewrote its inventory.
void gpu_series(std::ostringstream& out, const facts::Facts& f) {
  family(out, "rediacc_gpu_gpus", "GPUs found on this machine now, by vendor.");
  for (auto v : {probe::Vendor::nvidia, probe::Vendor::amd, probe::Vendor::intel, probe::Vendor::other}) {
    size_t n = 0;
    for (const auto& g : f.fresh.gpus) n += g.vendor == v;
    out << "rediacc_gpu_gpus{vendor=\"" << probe::to_string(v) << "\"} " << n << "\n";
  }
  const auto& lost = f.presence.lost;
  family(out, "rediacc_gpu_gpus_missing",
         "GPUs the recorded inventory has or keeps as missing, or the NVIDIA driver lists, that are gone from the PCI "
         "bus or do not answer; 0 when none.");
  out << "rediacc_gpu_gpus_missing " << lost.size() << "\n";
  family(out, "rediacc_gpu_gpu_lost", "1 for each such GPU: gone from the bus, answering all-ones or lost to NVML.");
  for (const auto& l : lost) out << "rediacc_gpu_gpu_lost{pci_address=\"" << l.gpu.pci_address << "\"} 1\n";
}

// The kernel's events since boot, per GPU and code (counters that restart with the machine), and
// AMD's RAS counters since the driver loaded.
void kernel_event_series(std::ostringstream& out, const facts::Facts& f) {
  const auto& log = f.kernel_log;
  family(out, "rediacc_gpu_xid_errors_total", "NVIDIA Xid events in the kernel log since boot, by GPU and code.",
         "counter");
  for (const auto& [key, n] : facts::xid_counts(log.lines))
    out << "rediacc_gpu_xid_errors_total{pci_address=\"" << key.first << "\",xid=\"" << key.second << "\"} " << n
        << "\n";
  family(out, "rediacc_gpu_amdgpu_events_total",
         "amdgpu GPU resets and uncorrectable (RAS) errors in the kernel log since boot, by GPU.", "counter");
  for (const auto& [key, n] : facts::amdgpu_events(log.lines))
    out << "rediacc_gpu_amdgpu_events_total{pci_address=\"" << key.first << "\",event=\"" << key.second << "\"} " << n
        << "\n";
  family(out, "rediacc_gpu_ras_errors", "AMD RAS error counters since the driver loaded, by GPU, block and kind.");
  for (const auto& c : f.ras_counts) {
    for (const auto& [kind, n] : {std::pair{"uncorrectable", c.uncorrectable}, std::pair{"correctable", c.correctable}})
      out << "rediacc_gpu_ras_errors{pci_address=\"" << c.pci_address << "\",block=\"" << c.block << "\",kind=\""
          << kind << "\"} " << n << "\n";
  }
  nvidia_memory_series(out, f);
  family(out, "rediacc_gpu_kernel_log_readable", "1 when a kernel log (/dev/kmsg, the journal, kern.log) was read.");
  out << "rediacc_gpu_kernel_log_readable " << (log.source.empty() ? 0 : 1) << "\n";
}

// The link as sysfs shows it now, so a dashboard can chart a downtrained link (width below its
// maximum) next to the idle speed drop that is no fault.
void pcie_series(std::ostringstream& out, const facts::Facts& f) {
  family(out, "rediacc_gpu_pcie_link_width", "PCIe link width of each GPU: current and maximum lanes.");
  for (const auto& g : f.fresh.gpus) {
    if (g.pcie_link)
      link_series(out, "rediacc_gpu_pcie_link_width", g, g.pcie_link->current_width, g.pcie_link->max_width);
  }
  family(out, "rediacc_gpu_pcie_link_speed_gts", "PCIe link speed of each GPU in GT/s: current and maximum.");
  for (const auto& g : f.fresh.gpus) {
    if (g.pcie_link)
      link_series(out, "rediacc_gpu_pcie_link_speed_gts", g, g.pcie_link->current_speed_gts,
                  g.pcie_link->max_speed_gts);
  }
}

void inventory_series(std::ostringstream& out, const facts::Facts& f, std::chrono::system_clock::time_point now) {
  const auto recorded_at = f.recorded ? parse_rfc3339_utc(f.recorded->generated_at) : std::nullopt;
  family(out, "rediacc_gpu_inventory_present", "1 when /etc/rediacc/gpu/inventory.json exists and parses.");
  out << "rediacc_gpu_inventory_present " << (f.recorded ? 1 : 0) << "\n";
  if (recorded_at) {
    family(out, "rediacc_gpu_inventory_age_seconds", "Seconds since the recorded inventory's facts were first seen.");
    out << "rediacc_gpu_inventory_age_seconds "
        << std::chrono::duration_cast<std::chrono::seconds>(now - *recorded_at).count() << "\n";
  }
}

// Each check's worst status (a check that runs per GPU is one series), spec drift and the failing count.
void doctor_series(std::ostringstream& out, const std::vector<doctor::Check>& checks) {
  std::map<std::pair<std::string, int>, doctor::Status> worst;
  for (const auto& c : checks) {
    auto [it, fresh] = worst.try_emplace({c.id, doctor::layer_number(c.layer)}, c.status);
    if (!fresh && severity(c.status) > severity(it->second)) it->second = c.status;
  }
  const auto failing = [&](const char* id) {
    for (const auto& [key, status] : worst) {
      if (key.first == id && status == doctor::Status::fail) return true;
    }
    return false;
  };
  family(out, "rediacc_gpu_spec_drift", "1 when a CDI spec no longer matches the loaded driver or the GPUs present.");
  out << "rediacc_gpu_spec_drift "
      << (failing(doctor::check_id::kNvidiaSpec) || failing(doctor::check_id::kRediaccSpecs) ? 1 : 0) << "\n";
  family(out, "rediacc_gpu_doctor_check", "Each doctor check, 1 on the series of its worst status.");
  for (const auto& [key, status] : worst) {
    out << "rediacc_gpu_doctor_check{id=\"" << key.first << "\",layer=\"" << key.second << "\",status=\""
        << doctor::status_name(status) << "\"} 1\n";
  }
  size_t failed = 0;
  for (const auto& [key, status] : worst) failed += status == doctor::Status::fail;
  family(out, "rediacc_gpu_doctor_failed_checks", "Doctor checks that fail; 0 on a healthy machine.");
  out << "rediacc_gpu_doctor_failed_checks " << failed << "\n";
}

void grant_series(std::ostringstream& out, const facts::Facts& f) {
  size_t exclusive = 0, shared = 0;
  if (f.grants) {
    for (const auto& g : f.grants->grants) (g.exclusive ? exclusive : shared) += 1;
  }
  family(out, "rediacc_gpu_grants", "Grants in force, by kind.");
  out << "rediacc_gpu_grants{exclusive=\"false\"} " << shared << "\n";
  out << "rediacc_gpu_grants{exclusive=\"true\"} " << exclusive << "\n";
  // Zero grants and a grants file nobody can read both count 0 above: this tells them apart.
  family(out, "rediacc_gpu_grants_readable", "1 when the grants file is absent or parses, 0 when it cannot be read.");
  out << "rediacc_gpu_grants_readable " << (f.grants ? 1 : 0) << "\n";
  const size_t moved = f.grant_moves.size();
  family(out, "rediacc_gpu_grants_moved",
         "Grants the gate refuses as the machine is now: the name reaches other hardware than was granted or than "
         "its key names, or no spec defines it; 0 when none.");
  out << "rediacc_gpu_grants_moved " << moved << "\n";
}

}  // namespace

std::string text(const facts::Facts& f, const std::vector<doctor::Check>& checks,
                 std::chrono::system_clock::time_point now) {
  std::ostringstream out;
  gpu_series(out, f);
  kernel_event_series(out, f);
  pcie_series(out, f);
  inventory_series(out, f, now);
  doctor_series(out, checks);
  grant_series(out, f);
  usage_series(out, f);
  canary_series(out, f);
  return out.str();
}

}  // namespace rgpu::metrics
