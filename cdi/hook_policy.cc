#include "cdi/hook_policy.h"

#include <sys/stat.h>

#include <algorithm>
#include <sstream>

#include "core/state_paths.h"

namespace rgpu::cdi {

std::vector<std::string> allowed_hooks(const RootFs& fs) {
  std::vector<std::string> out(std::begin(kToolkitHooks), std::end(kToolkitHooks));
  auto text = fs.read_optional(state::kAllowedHooksPath);
  if (!text || !*text) return out;
  std::istringstream lines(**text);
  for (std::string line; std::getline(lines, line);) {
    line = line.substr(0, line.find('#'));
    line.erase(0, line.find_first_not_of(" \t"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (line.starts_with("/")) out.push_back(line);
  }
  return out;
}

std::string hook_text(const CdiHook& hook) {
  std::string text = hook.hook_name + " " + hook.path;
  // args[0] is the program's own name, as in execve.
  for (size_t i = 1; i < hook.args.size(); ++i) text += " " + hook.args[i];
  return text;
}

namespace {

// Why an allowed path is still not trusted, or "": root must own it and nobody else write it,
// else whoever can write it runs as root in every container's hook.
std::string untrusted(const RootFs& fs, const std::string& path) {
  const auto st = fs.stat(path);
  if (!st) return "";  // not installed: runc fails the start, nothing runs
  if (st->st_uid != 0) return "not owned by root";
  if (st->st_mode & (S_IWGRP | S_IWOTH)) return "writable by others than root";
  return "";
}

}  // namespace

std::vector<std::string> needs_review(const RootFs& fs, const IndexedDevice& device,
                                      const std::vector<std::string>& allowed, bool net) {
  std::vector<std::string> out;
  if (net) {
    for (const auto& n : device.carried.net_devices)
      out.push_back("net device " + n.host_interface + " (as " + n.name + ")");
  } else {
    for (const auto& h : device.carried.hooks) {
      std::string why = std::find(allowed.begin(), allowed.end(), h.path) == allowed.end() ? "not in the allow-list"
                                                                                           : untrusted(fs, h.path);
      if (!why.empty()) out.push_back("hook " + hook_text(h) + " (" + why + ")");
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace rgpu::cdi
