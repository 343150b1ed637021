// libpci, whose whole-file parse the probe no longer pays for, is the judge of the names.
#include <catch2/catch.hpp>
extern "C" {
#include <pci/pci.h>
}

#include <cstdarg>
#include <cstdio>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "probe/pci_scan.h"
#include "tests/support/fixture_root.h"

using rgpu::RootFs;
using rgpu::probe::PciNames;
using rgpu::test::FixtureRoot;

namespace {

void quiet(char*, ...) {}

// The name the probe showed while it used libpci: the device, else "VENDOR device 0xDDDD",
// else "PCI device 0xVVVV:0xDDDD".
class LibpciNames {
 public:
  explicit LibpciNames(const std::string& ids) : path_(ids) {
    acc_ = pci_alloc();
    acc_->warning = quiet;
    acc_->debug = quiet;
    pci_set_param(acc_, const_cast<char*>("hwdb.disable"), const_cast<char*>("1"));
    pci_set_name_list_path(acc_, path_.data(), 0);
  }
  ~LibpciNames() { pci_cleanup(acc_); }
  LibpciNames(const LibpciNames&) = delete;
  LibpciNames& operator=(const LibpciNames&) = delete;

  std::string name(unsigned vendor, unsigned device) {
    char buf[512];
    const int flags = PCI_LOOKUP_NO_NUMBERS;
    if (const char* n = pci_lookup_name(acc_, buf, sizeof buf, flags | PCI_LOOKUP_DEVICE, vendor, device)) return n;
    char out[600];
    if (const char* v = pci_lookup_name(acc_, buf, sizeof buf, flags | PCI_LOOKUP_VENDOR, vendor, 0)) {
      std::snprintf(out, sizeof out, "%s device 0x%04x", v, device);
    } else {
      std::snprintf(out, sizeof out, "PCI device 0x%04x:0x%04x", vendor, device);
    }
    return out;
  }

 private:
  std::string path_;
  pci_access* acc_;
};

// Every vendor and device id a pci.ids text lists.
std::vector<std::pair<unsigned, unsigned>> listed_ids(const std::string& text) {
  std::vector<std::pair<unsigned, unsigned>> out;
  std::istringstream in(text);
  unsigned vendor = 0xffff;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("C ", 0) == 0) break;  // the class list ends the vendors
    unsigned id = 0;
    if (line[0] != '\t' && std::sscanf(line.c_str(), "%4x", &id) == 1) {
      vendor = id;
      out.emplace_back(vendor, 0xfffe);  // a device the vendor lacks
    } else if (line.size() > 1 && line[1] != '\t' && std::sscanf(line.c_str() + 1, "%4x", &id) == 1) {
      out.emplace_back(vendor, id);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("pci.ids: every vendor and device of the installed pci.ids is named as libpci names it") {
  const std::string installed = "/usr/share/misc/pci.ids";
  std::ifstream in(installed);
  INFO("pci.ids is missing: run bash scripts/setup.sh test");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  const auto ids = listed_ids(text.str());
  REQUIRE(ids.size() > 10000);

  FixtureRoot root;  // the root has no pci.ids of its own: the installed one is used
  PciNames ours(RootFs(root.path()));
  LibpciNames judge(installed);
  size_t differ = 0;
  for (const auto& [vendor, device] : ids) {
    const auto mine = ours.device_name(static_cast<std::uint16_t>(vendor), static_cast<std::uint16_t>(device));
    const auto theirs = judge.name(vendor, device);
    if (mine != theirs && ++differ <= 5) {
      INFO(std::hex << vendor << ":" << device);
      CHECK(mine == theirs);
    }
  }
  CHECK(differ == 0);
  CHECK(ours.device_name(0xfffe, 0x1234) == judge.name(0xfffe, 0x1234));  // an unknown vendor
}

TEST_CASE("pci.ids: the root's own file wins, with its comments, subsystems, blanks and class list") {
  FixtureRoot root;
  root.write("/usr/share/misc/pci.ids",
             "# comment 10de  Not a vendor\n"
             "10de  NVIDIA Corporation \n"
             "\t2330  GH100 [H100 SXM5 80GB]\n"
             "\t\t10de 16c1  H100 SXM5 80GB\n"
             "#\t2331  commented out\n"
             "\n"
             "\t2684\tAD102 [GeForce RTX 4090]\r\n"
             "\t2685  Trailing blanks kept but one  \n"
             "  # an indented comment\n"
             "1002  Advanced Micro Devices, Inc. [AMD/ATI]\n"
             "\t74A1  Aqua Vanjaram [Instinct MI300X]\n"
             "C 03  Display controller\n"
             "\t00  VGA compatible controller\n"
             "\t02  3D controller\n");
  PciNames ours{RootFs(root.path())};
  LibpciNames judge(root.host("/usr/share/misc/pci.ids").string());
  for (const auto& [vendor, device] : std::vector<std::pair<unsigned, unsigned>>{{0x10de, 0x2330},
                                                                                 {0x10de, 0x16c1},
                                                                                 {0x10de, 0x2331},
                                                                                 {0x10de, 0x2684},
                                                                                 {0x10de, 0x2685},
                                                                                 {0x1002, 0x74a1},
                                                                                 {0x1002, 0x0302},
                                                                                 {0x0300, 0x0000},
                                                                                 {0x0003, 0x0002},
                                                                                 {0x8086, 0x56a0}}) {
    INFO(std::hex << vendor << ":" << device);
    CHECK(ours.device_name(static_cast<std::uint16_t>(vendor), static_cast<std::uint16_t>(device)) ==
          judge.name(vendor, device));
  }
  CHECK(ours.device_name(0x10de, 0x2330) == "GH100 [H100 SXM5 80GB]");
}

TEST_CASE("pci.ids: a Fedora, Oracle Linux or openSUSE root's hwdata copy names the GPUs") {
  FixtureRoot root;  // hwdata's place, and no /usr/share/misc/pci.ids
  root.write("/usr/share/hwdata/pci.ids", "10de  NVIDIA Corporation\n\t2330  Named by hwdata\n");
  PciNames ours{RootFs(root.path())};
  CHECK(ours.device_name(0x10de, 0x2330) == "Named by hwdata");

  FixtureRoot both;  // Debian's place first, when a root somehow has both
  both.write("/usr/share/misc/pci.ids", "10de  NVIDIA Corporation\n\t2330  Named by pci.ids\n");
  both.write("/usr/share/hwdata/pci.ids", "10de  NVIDIA Corporation\n\t2330  Named by hwdata\n");
  PciNames first{RootFs(both.path())};
  CHECK(first.device_name(0x10de, 0x2330) == "Named by pci.ids");
}
