#include "doctor/lost_gpus.h"

#include <algorithm>

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::host_driver};

// The first four bytes of configuration space (vendor and device id), read from the device now:
// sysfs's `vendor` file is what the kernel saw at enumeration, `config` is read live.
bool answers_all_ones(const RootFs& fs, const std::string& address) {
  auto config = fs.read_file("/sys/bus/pci/devices/" + address + "/config");
  if (!config || config->size() < 4) return false;
  return std::all_of(config->begin(), config->begin() + 4,
                     [](char c) { return static_cast<unsigned char>(c) == 0xff; });
}

std::string what_to_do(const probe::Gpu& g) {
  const std::string log = g.vendor == probe::Vendor::nvidia ? "Xid 79 (fallen off the bus) or another Xid"
                          : g.vendor == probe::Vendor::amd  ? "an amdgpu GPU reset or RAS error"
                                                            : "a driver error";
  return "read the kernel log for " + log + " (journalctl -k, dmesg); reset the GPU" +
         (g.vendor == probe::Vendor::nvidia ? " (nvidia-smi -r -i " + *g.pci_address + ")" : "") +
         ", or reseat or power-cycle it; once it is back run rediacc-gpu setup (which also records a GPU removed on "
         "purpose)";
}

}  // namespace

std::vector<LostGpu> lost_gpus(const Facts& f) {
  std::vector<LostGpu> out;
  if (!f.recorded) return out;
  for (const auto& g : f.recorded->gpus) {
    if (!g.pci_address || g.platform != probe::Platform::native) continue;
    const bool on_bus = std::any_of(f.fresh.gpus.begin(), f.fresh.gpus.end(),
                                    [&](const probe::Gpu& now) { return now.pci_address == g.pci_address; });
    if (!on_bus) {
      out.push_back({g, "is no longer on the PCI bus"});
    } else if (answers_all_ones(f.fs, *g.pci_address)) {
      out.push_back({g, "reads all-ones from its configuration space (the device does not answer)"});
    }
  }
  return out;
}

std::vector<Check> gpu_present_checks(const Facts& f) {
  if (!f.recorded) return {kCheck.skip("gpu-present", "no recorded inventory to compare the bus with")};
  std::vector<Check> out;
  for (const auto& lost : lost_gpus(f)) {
    const auto& g = lost.gpu;
    out.push_back(kCheck.fail("gpu-present",
                              g.name + " (" + *g.pci_address + "), recorded in the inventory of " +
                                  f.recorded->generated_at + ", " + lost.why,
                              "its containers have lost it, and the names that reached it reach nothing now",
                              what_to_do(g)));
    out.back().subject = *g.pci_address;
  }
  if (out.empty()) {
    size_t n = 0;
    for (const auto& g : f.recorded->gpus) n += g.pci_address && g.platform == probe::Platform::native;
    out.push_back(kCheck.ok("gpu-present", std::to_string(n) +
                                               " recorded GPU(s) on the PCI bus, each answering from its "
                                               "configuration space"));
  }
  return out;
}

}  // namespace rgpu::doctor
