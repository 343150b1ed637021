#include "tests/support/fixture_root.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace rgpu::test {

namespace {

// Where the roots go: RGPU_TEST_TMPDIR when it names a writable folder, else the usual temp dir.
// The unit tier's tests set it to /dev/shm (tests/CMakeLists.txt): their sweeps build and remove
// thousands of small files and nodes a second, and on ext4 each new inode scans the recently
// deleted ones (measured: 90% of the unit tier's time in the kernel, a sweep 6.3 s on ext4 and
// 0.8 s on tmpfs). Not the tests with a real daemon: a root under /dev is, to their gate, a bind
// of the host's /dev.
std::filesystem::path roots_dir() {
  if (const char* dir = std::getenv("RGPU_TEST_TMPDIR"); dir && *dir && ::access(dir, W_OK) == 0) return dir;
  return std::filesystem::temp_directory_path();
}

}  // namespace

FixtureRoot::FixtureRoot() {
  std::string tmpl = (roots_dir() / "rgpu-root.XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

FixtureRoot::FixtureRoot(std::filesystem::path dir) : path_(std::move(dir)), keep_(true) {
  std::filesystem::create_directories(path_);
}

FixtureRoot::~FixtureRoot() {
  if (keep_) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::filesystem::path FixtureRoot::host(std::string_view machine_path) const {
  std::string rel(machine_path);
  while (!rel.empty() && rel.front() == '/') rel.erase(0, 1);
  return path_ / rel;
}

void FixtureRoot::mkdir(std::string_view machine_path) const {
  std::filesystem::create_directories(host(machine_path));
}

void FixtureRoot::write(std::string_view machine_path, std::string_view content) const {
  auto p = host(machine_path);
  std::filesystem::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << content;
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

void FixtureRoot::link(std::string_view machine_path, std::string_view target) const {
  auto p = host(machine_path);
  std::filesystem::create_directories(p.parent_path());
  std::filesystem::create_symlink(std::string(target), p);
}

void FixtureRoot::char_node(std::string_view machine_path, unsigned major, unsigned minor) const {
  auto p = host(machine_path);
  std::filesystem::create_directories(p.parent_path());
  if (::mknod(p.c_str(), S_IFCHR | 0666, ::makedev(major, minor)) != 0) {
    throw std::runtime_error("mknod " + p.string() + " failed (tests must run as root)");
  }
}

void FixtureRoot::char_driver(unsigned major, std::string_view name) const {
  std::string devices = read("/proc/devices");
  if (devices.empty()) devices = "Character devices:\n  1 mem\n 10 misc\n195 nvidia-frontend\n226 drm\n";
  const std::string line = std::to_string(major) + " " + std::string(name) + "\n";
  if (devices.find("\n" + line) == std::string::npos) devices += line;
  write("/proc/devices", devices);
}

std::string FixtureRoot::read(std::string_view machine_path) const {
  std::ifstream in(host(machine_path), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace rgpu::test
