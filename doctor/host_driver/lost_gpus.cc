#include "doctor/host_driver/lost_gpus.h"

#include <algorithm>

#include "probe/missing_gpus.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::host_driver};

// The first four bytes of configuration space (vendor and device id), read from the device now:
// sysfs's `vendor` file is what the kernel saw at enumeration, `config` is read live. Absent when
// it could not be read, so a pass says only what was read.
std::optional<bool> answers_all_ones(const RootFs& fs, const std::string& address) {
  auto config = fs.read_file("/sys/bus/pci/devices/" + address + "/config");
  if (!config || config->size() < 4) return std::nullopt;
  return std::all_of(config->begin(), config->begin() + 4,
                     [](char c) { return static_cast<unsigned char>(c) == 0xff; });
}

bool nvml_lost(const Facts& f, const std::string& address) {
  if (!f.nvml) return false;
  return std::any_of(f.nvml->gpus.begin(), f.nvml->gpus.end(),
                     [&](const probe::NvmlGpu& n) { return n.lost && n.pci_address == address; });
}

std::string what_to_do(const probe::MissingGpu& g) {
  const std::string log = g.vendor == probe::Vendor::nvidia ? "Xid 79 (fallen off the bus) or another Xid"
                          : g.vendor == probe::Vendor::amd  ? "an amdgpu GPU reset or RAS error"
                                                            : "a driver error";
  return "read the kernel log for " + log + " (journalctl -k, dmesg); reset the GPU" +
         (g.vendor == probe::Vendor::nvidia ? " (nvidia-smi -r -i " + g.pci_address + ")" : "") +
         ", or reseat or power-cycle it, then run rediacc-gpu setup; if it was removed on purpose, run rediacc-gpu "
         "setup --forget-gpu " +
         g.pci_address + " (once the NVIDIA driver no longer lists it: after a reboot)";
}

probe::MissingGpu identity_of(const probe::Gpu& g) {
  return {g.pci_address.value_or(""), g.vendor, g.name, g.uuid, ""};
}

// The same slot, or the same card in another slot (its UUID): as setup tells a GPU is back.
const probe::Gpu* on_bus(const probe::Inventory& fresh, const probe::MissingGpu& m) {
  for (const auto& g : fresh.gpus) {
    if (g.pci_address == m.pci_address || (m.uuid && !m.uuid->empty() && g.uuid == m.uuid)) return &g;
  }
  return nullptr;
}

bool named(const std::vector<LostGpu>& out, const std::string& address) {
  return std::any_of(out.begin(), out.end(), [&](const LostGpu& l) { return l.gpu.pci_address == address; });
}

// Why a GPU that should be there is lost, or nothing when it answers.
std::optional<std::string> lost_reason(const Facts& f, const probe::MissingGpu& g) {
  const auto* now = on_bus(f.fresh, g);
  if (!now) return "is no longer on the PCI bus";
  const std::string address = now->pci_address.value_or(g.pci_address);
  if (answers_all_ones(f.fs, address).value_or(false))
    return "reads all-ones from its configuration space (the device does not answer)";
  if (nvml_lost(f, address)) return "is reported lost by NVML (GPU_IS_LOST: it stopped answering the driver)";
  return std::nullopt;
}

}  // namespace

std::vector<LostGpu> lost_gpus(const Facts& f) {
  std::vector<LostGpu> out;
  const auto consider = [&](const probe::MissingGpu& g, const std::string& known) {
    if (g.pci_address.empty() || named(out, g.pci_address)) return;
    if (auto why = lost_reason(f, g)) out.push_back({g, known, *why});
  };
  if (f.recorded) {
    for (const auto& g : f.recorded->gpus) {
      if (g.pci_address && g.platform == probe::Platform::native)
        consider(identity_of(g), "recorded in the inventory of " + f.recorded->generated_at);
    }
    for (const auto& m : f.recorded->missing_gpus) consider(m, "recorded missing since " + m.missing_since);
  }
  // Read live: a GPU the driver still holds is one the machine had, whatever the inventory says.
  for (const auto& d : probe::nvidia_driver_gpus(f.fs)) {
    consider(d, "listed by the NVIDIA driver (" + std::string(probe::kNvidiaDriverGpus) + "/" + d.pci_address + ")");
  }
  // A GPU lost since setup ran with no inventory recorded still fails, from NVML's word alone.
  for (const auto& g : f.fresh.gpus) {
    if (!g.pci_address || named(out, *g.pci_address)) continue;
    if (nvml_lost(f, *g.pci_address))
      out.push_back({identity_of(g), "", "is reported lost by NVML (GPU_IS_LOST: it stopped answering the driver)"});
  }
  return out;
}

std::vector<Check> gpu_present_checks(const Facts& f) {
  std::vector<Check> out;
  for (const auto& lost : lost_gpus(f)) {
    const auto& g = lost.gpu;
    out.push_back(kCheck.fail(
        "gpu-present",
        g.name + " (" + g.pci_address + ")" + (lost.known.empty() ? "" : ", " + lost.known) + ", " + lost.why,
        "its containers have lost it, and the names that reached it reach nothing now", what_to_do(g)));
    out.back().subject = g.pci_address;
  }
  if (!out.empty()) return out;
  if (!f.recorded) return {kCheck.skip("gpu-present", "no recorded inventory to compare the bus with")};
  size_t n = 0, answered = 0;
  for (const auto& g : f.recorded->gpus) {
    if (!g.pci_address || g.platform != probe::Platform::native) continue;
    ++n;
    answered += answers_all_ones(f.fs, *g.pci_address).has_value();
  }
  if (n == 0) return {kCheck.skip("gpu-present", "the inventory records no GPU on the PCI bus")};
  std::string seen = std::to_string(n) + " recorded GPU(s) on the PCI bus";
  if (answered == n) {
    seen += n == 1 ? ", answering from its configuration space" : ", each answering from its configuration space";
  } else {
    seen += ", " + std::to_string(answered) + " answering from their configuration space (" +
            std::to_string(n - answered) + " could not be read: run as root to read it)";
  }
  if (f.nvml) seen += ", and none NVML reports lost";
  return {kCheck.ok("gpu-present", seen,
                    Evidence("the inventory of " + f.recorded->generated_at + ", /sys/bus/pci/devices/*/config" +
                             (f.nvml ? ", NVML" : "")))};
}

}  // namespace rgpu::doctor
