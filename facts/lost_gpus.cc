#include "facts/lost_gpus.h"

#include <algorithm>

namespace rgpu::facts {
namespace {

// The first four bytes of configuration space (vendor and device id), read from the device now:
// sysfs's `vendor` file is what the kernel saw at enumeration, `config` is read live. Absent when
// it could not be read, so a pass says only what was read.
std::optional<bool> answers_all_ones(const RootFs& fs, const std::string& address) {
  auto config = fs.read_file("/sys/bus/pci/devices/" + address + "/config");
  if (!config || config->size() < 4) return std::nullopt;
  return std::all_of(config->begin(), config->begin() + 4,
                     [](char c) { return static_cast<unsigned char>(c) == 0xff; });
}

bool nvml_lost(const std::optional<probe::NvmlReport>& nvml, const std::string& address) {
  if (!nvml) return false;
  return std::any_of(nvml->gpus.begin(), nvml->gpus.end(),
                     [&](const probe::NvmlGpu& n) { return n.lost && n.pci_address == address; });
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
std::optional<std::string> lost_reason(const PresenceSources& s, const probe::MissingGpu& g) {
  const auto* now = on_bus(s.fresh, g);
  if (!now) return "is no longer on the PCI bus";
  const std::string address = now->pci_address.value_or(g.pci_address);
  if (answers_all_ones(s.fs, address).value_or(false))
    return "reads all-ones from its configuration space (the device does not answer)";
  if (nvml_lost(s.nvml, address)) return "is reported lost by NVML (GPU_IS_LOST: it stopped answering the driver)";
  return std::nullopt;
}

std::vector<LostGpu> lost_gpus(const PresenceSources& s) {
  std::vector<LostGpu> out;
  const auto consider = [&](const probe::MissingGpu& g, const std::string& known) {
    if (g.pci_address.empty() || named(out, g.pci_address)) return;
    if (auto why = lost_reason(s, g)) out.push_back({g, known, *why});
  };
  if (s.recorded) {
    for (const auto& g : s.recorded->gpus) {
      if (g.pci_address && g.platform == probe::Platform::native)
        consider(identity_of(g), "recorded in the inventory of " + s.recorded->generated_at);
    }
    for (const auto& m : s.recorded->missing_gpus) consider(m, "recorded missing since " + m.missing_since);
  }
  // Read live: a GPU the driver still holds is one the machine had, whatever the inventory says.
  for (const auto& d : s.nvidia_driver_gpus) {
    consider(d, "listed by the NVIDIA driver (" + std::string(probe::kNvidiaDriverGpus) + "/" + d.pci_address + ")");
  }
  // A GPU lost since setup ran with no inventory recorded still fails, from NVML's word alone.
  for (const auto& g : s.fresh.gpus) {
    if (!g.pci_address || named(out, *g.pci_address)) continue;
    if (nvml_lost(s.nvml, *g.pci_address))
      out.push_back({identity_of(g), "", "is reported lost by NVML (GPU_IS_LOST: it stopped answering the driver)"});
  }
  return out;
}

}  // namespace

GpuPresence gpu_presence(const PresenceSources& s) {
  GpuPresence out{lost_gpus(s)};
  if (!s.recorded) return out;
  for (const auto& g : s.recorded->gpus) {
    if (!g.pci_address || g.platform != probe::Platform::native) continue;
    ++out.recorded;
    out.answering += answers_all_ones(s.fs, *g.pci_address).has_value();
  }
  return out;
}

}  // namespace rgpu::facts
