// --root DIR, the one way a command is pointed at a machine other than this one: every command
// that reads the machine takes it, before or after the subcommand, and it is checked here once.

#include "cli/command.h"
#include "core/root_fs.h"

namespace rgpu::cli {
namespace {

// Every Linux machine has /sys or /proc (a container's root may lack /sys, an image's /proc is
// an empty mount point): a directory with neither is empty or mistyped, and read as a machine
// it would pass for a healthy one with no GPU, no driver and no daemon.
std::string machine_root_error(const std::string& dir) {
  const RootFs fs(dir);
  if (fs.kind("/sys") == NodeKind::directory || fs.kind("/proc") == NodeKind::directory) return {};
  return dir +
         " has neither /sys nor /proc, so it is no machine's root: give the directory that stands for / "
         "on the machine (an image's or a fixture's), or leave --root out for this machine";
}

}  // namespace

CLI::Validator machine_root() {
  return CLI::Validator([](std::string& dir) { return machine_root_error(dir); }, "", "MACHINE_ROOT");
}

void add_root_option(CLI::App& sub, GlobalOptions& global) {
  sub.add_option("--root", global.root, "Directory that stands for / on the machine (default /)")
      ->check(CLI::ExistingDirectory)
      ->check(machine_root());
}

}  // namespace rgpu::cli
