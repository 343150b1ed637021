// Layer 1: where each GPU sits. A link that trained narrower than the card can is a fault no
// container sees (the GPU works, at a fraction of its bandwidth); a lower speed alone is how GPUs
// save power at idle, so it is reported, not warned about.

#include <cstdio>

#include "doctor/doctor.h"
#include "doctor/gpu_label.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::host_driver};

std::string speed(std::optional<double> gts) {
  if (!gts) return "unknown speed";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g GT/s", *gts);
  return buf;
}

// Appended, not "x" + std::to_string(…): GCC 12 -O3 takes that for an overlapping copy (-Wrestrict).
std::string width(std::optional<unsigned> w) {
  if (!w) return "unknown width";
  std::string out = "x";
  out += std::to_string(*w);
  return out;
}

std::string numa(const probe::Gpu& g) {
  return g.numa_node ? "NUMA node " + std::to_string(*g.numa_node) : "NUMA node unknown (the firmware names none)";
}

Check placement(const probe::Gpu& g) {
  Check c = kCheck.ok("pcie-link", gpu_label(g) + ": ",
                      Evidence("current_link_speed, current_link_width, max_link_* and numa_node in sysfs"));
  c.subject = usage::gpu_subject(g);
  if (!g.pcie_link) {
    c.status = Status::skip;
    c.observed += "no PCIe link files (integrated, virtual or WSL2), " + numa(g);
    return c;
  }
  const auto& l = *g.pcie_link;
  c.observed += speed(l.current_speed_gts) + " " + width(l.current_width) + " of " + speed(l.max_speed_gts) + " " +
                width(l.max_width) + ", " + numa(g);
  if (l.current_width && l.max_width && *l.current_width < *l.max_width) {
    c.status = Status::warn;
    c.meaning = "the link trained narrower than the card can (" + width(l.current_width) + " of " + width(l.max_width) +
                "): the GPU works but moves data at a fraction of its bandwidth, silently";
    c.decision =
        "reseat the card and its riser, check that the slot is wired for " + width(l.max_width) +
        " (lspci -vv shows LnkSta \"(downgraded)\"; the kernel log's \"limited by\" line names the narrow link)";
  } else if (l.current_speed_gts && l.max_speed_gts && *l.current_speed_gts < *l.max_speed_gts) {
    c.meaning = "below its maximum speed: GPUs lower link speed at idle to save power; judge it under load";
  }
  return c;
}

}  // namespace

std::vector<Check> placement_checks(const Facts& f) {
  std::vector<Check> out;
  for (const auto& g : f.fresh.gpus) out.push_back(placement(g));
  return out;
}

}  // namespace rgpu::doctor
