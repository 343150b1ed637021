// rgpu-make-fixture NAME DIR: writes a named fake machine into DIR, for bench/ scripts.

#include <iostream>

#include "tests/support/fake_tools.h"
#include "tests/support/machines.h"

int main(int argc, char** argv) {
  using rgpu::test::named_machines;
  if (argc == 3 && std::string(argv[1]) == "--fake-tools") {
    rgpu::test::FakeTools fakes{std::filesystem::path(argv[2])};  // bin/ inside, RGPU_FAKE_DIR=DIR
    return 0;
  }
  if (argc != 3) {
    std::cerr << "usage: rgpu-make-fixture NAME DIR | --fake-tools DIR\nnames:";
    for (const auto& m : named_machines()) std::cerr << " " << m.name;
    std::cerr << "\n";
    return 2;
  }
  for (const auto& m : named_machines()) {
    if (m.name == argv[1]) {
      rgpu::test::FixtureRoot root{std::filesystem::path(argv[2])};
      m.build(root);
      return 0;
    }
  }
  std::cerr << "rgpu-make-fixture: no machine named " << argv[1] << "\n";
  return 2;
}
