#include "admission/capabilities.h"

#include <algorithm>
#include <array>
#include <functional>
#include <vector>

#include "core/in_quotes.h"

namespace rgpu::admission {

using docker::GoValue;
namespace {

// Allowed: Docker's default set, and what GPU and HPC workloads ask for that stays inside the
// container's own namespaces. Refused: whatever reaches the host's kernel, devices, files
// outside the container's mounts, or state every tenant shares. Sources in docs/capabilities.md.
constexpr std::array<CapabilityRule, 41> kPolicy = {{
    {"CHOWN", true, "Docker default"},
    {"DAC_OVERRIDE", true, "Docker default"},
    {"DAC_READ_SEARCH", false, "open_by_handle_at opens any host file by handle (shocker)"},
    {"FOWNER", true, "Docker default"},
    {"FSETID", true, "Docker default"},
    {"KILL", true, "Docker default"},
    {"SETGID", true, "Docker default"},
    {"SETUID", true, "Docker default"},
    {"SETPCAP", true, "Docker default"},
    {"LINUX_IMMUTABLE", true, "file flags on the container's own files"},
    {"NET_BIND_SERVICE", true, "Docker default"},
    {"NET_BROADCAST", true, "the container's own network namespace"},
    {"NET_ADMIN", true, "the container's own network namespace (host networking is refused)"},
    {"NET_RAW", true, "Docker default"},
    {"IPC_LOCK", true, "pinned memory for GPU and RDMA transfers, charged to the memory cgroup"},
    {"IPC_OWNER", true, "the container's own IPC namespace (host IPC is refused)"},
    {"SYS_MODULE", false, "loads code into the host's kernel"},
    {"SYS_RAWIO", false, "raw port I/O on host hardware (iopl, ioperm), /dev/mem"},
    {"SYS_CHROOT", true, "Docker default"},
    {"SYS_PTRACE", false, "reads and writes other processes' memory, walks /proc/PID/root", true},
    {"SYS_PACCT", false, "host-wide process accounting file"},
    {"SYS_ADMIN", false, "mount, namespaces, bpf, cgroup release agents: host root"},
    {"SYS_BOOT", false, "reboot, kexec (the host's, with a shared PID namespace)"},
    {"SYS_NICE", true, "NUMA binding (mbind, set_mempolicy) and priorities, for GPU workloads"},
    {"SYS_RESOURCE", true, "raises the container's own resource limits"},
    {"SYS_TIME", false, "sets the host's clock, which every container shares"},
    {"SYS_TTY_CONFIG", false, "vhangup and privileged ioctls on host terminals"},
    {"MKNOD", true, "Docker default; a node made is still closed by the device cgroup"},
    {"LEASE", true, "file leases on the container's own files"},
    {"AUDIT_WRITE", true, "Docker default"},
    {"AUDIT_CONTROL", false, "changes the host's audit rules"},
    {"SETFCAP", true, "Docker default"},
    {"MAC_OVERRIDE", false, "overrides AppArmor/SELinux/Smack policy"},
    {"MAC_ADMIN", false, "loads or replaces AppArmor/SELinux/Smack policy for every container"},
    {"SYSLOG", false, "reads the host's kernel log and kernel addresses"},
    {"WAKE_ALARM", false, "alarms that wake the host from suspend"},
    {"BLOCK_SUSPEND", false, "keeps the host from suspending"},
    {"AUDIT_READ", false, "reads the host's audit log"},
    {"PERFMON", false, "perf events: observes the host's kernel and other tenants"},
    {"BPF", false, "BPF programs: reads kernel memory, writes other processes' memory"},
    {"CHECKPOINT_RESTORE", false, "process checkpoint and restore; no GPU workload needs it", true},
}};

// Go's unicode.ToUpper on one rune of `s` at `i`, as ASCII; 0 when the rune's upper case is not
// ASCII (or the bytes are not UTF-8, which Go reads as U+FFFD).
char go_upper_ascii(std::string_view s, size_t& i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    ++i;
    return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : static_cast<char>(c);
  }
  const auto next = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0; };
  if (c == 0xC4 && next(1) == 0xB1) {  // U+0131 dotless i
    i += 2;
    return 'I';
  }
  if (c == 0xC5 && next(1) == 0xBF) {  // U+017F long s
    i += 2;
    return 'S';
  }
  return 0;
}

const CapabilityRule* rule_of(std::string_view normalised) {
  if (normalised.substr(0, 4) != "CAP_") return nullptr;
  for (const auto& rule : kPolicy) {
    if (rule.name == normalised.substr(4)) return &rule;
  }
  return nullptr;
}

// The names of a StrSlice, or a refusal when dockerd could not read it as one.
Refusal for_each_name(const std::optional<GoValue>& list, std::string_view field,
                      const std::function<std::optional<std::string>(std::string_view)>& each) {
  if (!list || list->is_null()) return std::nullopt;
  if (list->kind() == GoValue::Kind::string) return each(list->text());
  if (list->kind() != GoValue::Kind::array) return "refused: " + std::string(field) + " is not a list of names.";
  for (const GoValue item : list->items()) {
    if (item.kind() != GoValue::Kind::string && !item.is_null())
      return "refused: " + std::string(field) + " holds a value that is not a name.";
    if (auto bad = each(item.text())) return bad;
  }
  return std::nullopt;
}

}  // namespace

std::span<const CapabilityRule> capability_policy() { return kPolicy; }

std::optional<std::string> normalise_capability(std::string_view written) {
  std::string upper;
  upper.reserve(written.size() + 4);
  for (size_t i = 0; i < written.size();) {
    const char c = go_upper_ascii(written, i);
    if (c == 0) return std::nullopt;
    upper += c;
  }
  if (upper == "ALL") return upper;
  if (upper.rfind("CAP_", 0) != 0) upper.insert(0, "CAP_");
  if (!rule_of(upper)) return std::nullopt;
  return upper;
}

bool keeps_capability(const std::optional<GoValue>& cap_add, const std::optional<GoValue>& cap_drop,
                      std::string_view name) {
  const auto names = [](const std::optional<GoValue>& list) {
    std::vector<std::string> out;
    for_each_name(list, "", [&](std::string_view written) -> std::optional<std::string> {
      if (auto n = normalise_capability(written)) out.push_back(std::move(*n));
      return std::nullopt;
    });
    return out;
  };
  const auto added = names(cap_add), dropped = names(cap_drop);
  const auto has = [](const std::vector<std::string>& list, std::string_view n) {
    return std::find(list.begin(), list.end(), n) != list.end();
  };
  if (has(added, "ALL") || has(added, name)) return true;
  if (has(dropped, "ALL") || has(dropped, name)) return false;
  const CapabilityRule* rule = rule_of(std::string(name));
  return rule && std::string_view(rule->reason) == "Docker default";
}

Refusal check_capabilities(const std::optional<GoValue>& cap_add, const std::optional<GoValue>& cap_drop,
                           const PolicyRules& policy) {
  const auto known = [](std::string_view written) -> std::optional<std::string> {
    if (normalise_capability(written)) return std::nullopt;
    return "refused: " + in_quotes(written) + " is no capability Docker knows; see capabilities(7).";
  };
  if (auto bad = for_each_name(cap_drop, "CapDrop", known)) return bad;
  return for_each_name(cap_add, "CapAdd", [&](std::string_view written) -> std::optional<std::string> {
    const auto name = normalise_capability(written);
    if (!name) return known(written);
    if (*name == "ALL")
      return "refused: --cap-add " + in_quotes(written) +
             " gives every capability, host root among them; add only those the workload needs.";
    const CapabilityRule* rule = rule_of(*name);
    if (rule->allowed || (rule->for_checkpoints && policy.checkpoint_capabilities)) return std::nullopt;
    const std::string seen =
        *name == "CAP_" + std::string(written) || *name == written ? "" : " (written " + in_quotes(written) + ")";
    return "refused: capability " + *name + seen + ": " + std::string(rule->reason) +
           "; only the capabilities in rediacc-gpu's policy (docs/capabilities.md) may be added.";
  });
}

}  // namespace rgpu::admission
