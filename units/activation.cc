#include "units/activation.h"

namespace rgpu::units {
namespace {

Argv systemctl(const RootFs& fs, bool live, Argv args) {
  Argv argv = {"systemctl"};
  if (!live) argv.push_back("--root=" + fs.root().string());
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

}  // namespace

bool is_live_systemd(const RootFs& fs) {
  return fs.is_host_root() && fs.kind("/run/systemd/system") == NodeKind::directory;
}

std::vector<Argv> activation_commands(const RootFs& fs, const std::vector<std::string>& enable) {
  const bool live = is_live_systemd(fs);
  std::vector<Argv> commands;
  if (live) {
    commands.push_back({"systemctl", "daemon-reload"});
    commands.push_back({"udevadm", "control", "--reload"});
  }
  if (!enable.empty()) {
    Argv args = {"enable"};
    args.insert(args.end(), enable.begin(), enable.end());
    commands.push_back(systemctl(fs, live, args));
  }
  return commands;
}

std::vector<Argv> deactivation_commands(const RootFs& fs, const std::vector<std::string>& disable) {
  if (disable.empty()) return {};
  Argv args = {"disable"};
  args.insert(args.end(), disable.begin(), disable.end());
  return {systemctl(fs, is_live_systemd(fs), args)};
}

}  // namespace rgpu::units
