// rgpu-packaged-units DIR: writes the units and udev rule the package ships under DIR, at their
// vendor paths (DIR/lib/systemd/system/..., DIR/lib/udev/rules.d/...), rendered by the same code
// setup uses, so the package and setup never disagree about a unit's text.

#include <filesystem>
#include <fstream>
#include <iostream>

#include "units/unit_files.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: rgpu-packaged-units DIR\n";
    return 2;
  }
  for (const auto& f : rgpu::units::packaged_units()) {
    const std::filesystem::path out = std::filesystem::path(argv[1]) / f.path.substr(1);
    std::filesystem::create_directories(out.parent_path());
    std::ofstream(out, std::ios::binary | std::ios::trunc) << f.content;
    std::cout << out.string() << "\n";
  }
  return 0;
}
