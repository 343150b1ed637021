#include "core/init_system.h"

namespace rgpu {

std::optional<std::string> pid1_name(const RootFs& fs) {
  const auto comm = fs.read_optional("/proc/1/comm");
  if (!comm || !*comm) return std::nullopt;
  std::string name = **comm;
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
  if (name.empty()) return std::nullopt;
  return name;
}

std::optional<std::string> pid1_not_systemd(const RootFs& fs) {
  auto name = pid1_name(fs);
  if (name == "systemd") return std::nullopt;
  return name;
}

std::string without_systemd_meaning() {
  return "the units are written but nothing starts them: no repository daemon's plugin socket listens (its "
         "daemon refuses every request), and the specs and views are not regenerated at boot, after a GPU change "
         "or after a grant";
}

std::string without_systemd_by_hand(const std::string& tool) {
  return "from the host's own supervisor, run `" + tool +
         " authz-plugin --repo REPO --socket /run/docker/plugins/rediacc-gpu-REPO.sock` for each repository, `" + tool +
         " cdi generate` at boot and after a GPU is added or removed, and `" + tool +
         " cdi views` after each grant or revoke; or turn systemd on (WSL2: [boot] systemd=true in /etc/wsl.conf) and "
         "run setup again";
}

}  // namespace rgpu
