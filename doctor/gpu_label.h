#pragma once
// How doctor names a GPU to a person: its model and, where it sits on the PCI bus, its address
// there (two cards of one model differ only by it).

#include <string>

#include "probe/inventory.h"

namespace rgpu::doctor {

inline std::string gpu_label(const probe::Gpu& g) {
  return g.name + (g.pci_address ? " (" + *g.pci_address + ")" : "");
}

}  // namespace rgpu::doctor
