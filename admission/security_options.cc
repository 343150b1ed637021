#include "admission/security_options.h"

#include "admission/container_model.h"

#include <array>
#include <string_view>

namespace rgpu::admission {

using docker::GoValue;
namespace {

constexpr const char* kSeeDefaults =
    "drop it: the daemon's defaults (seccomp, AppArmor docker-default, SELinux labels) keep devices and other "
    "tenants out";

// strconv.ParseBool's true spellings.
bool go_true(std::string_view v) {
  constexpr std::array<std::string_view, 6> kTrue = {"1", "t", "T", "TRUE", "true", "True"};
  for (const auto t : kTrue) {
    if (v == t) return true;
  }
  return false;
}

std::string refuse(std::string_view option, std::string_view why) {
  return "refused: security option \"" + std::string(option) + "\" " + std::string(why) + "; " + kSeeDefaults + ".";
}

Refusal check_one(std::string_view opt, const PolicyRules& policy) {
  if (opt == "no-new-privileges") return std::nullopt;
  if (opt == "disable") return refuse(opt, "turns SELinux labelling off");
  // dockerd splits at the first '=' when there is one, else at the first ':'.
  size_t sep = opt.find('=');
  if (sep == std::string_view::npos) sep = opt.find(':');
  if (sep == std::string_view::npos) return refuse(opt, "is not one dockerd reads");
  const std::string_view key = opt.substr(0, sep);
  const std::string_view value = opt.substr(sep + 1);
  if (key == "no-new-privileges") {
    if (go_true(value)) return std::nullopt;
    return refuse(opt, "lets processes gain privileges through setuid files");
  }
  if (key == "apparmor") {
    if (value.empty() || value == "docker-default") return std::nullopt;  // empty: the default
    // Rediacc's checkpointed containers run unconfined: CRIU's restore is refused by docker-default.
    if (value == "unconfined" && policy.apparmor_unconfined) return std::nullopt;
    return refuse(opt, "replaces the AppArmor profile docker-default");
  }
  if (key == "label") return refuse(opt, "chooses the SELinux label (spc_t, or another container's categories)");
  if (key == "seccomp") {
    if (value.empty()) return std::nullopt;  // the daemon's profile
    if (value.substr(0, 1) == "{")
      return refuse("seccomp=<inline profile>",
                    "replaces Docker's seccomp profile with the repository's own, which can allow any syscall");
    return refuse(opt, "replaces or removes Docker's seccomp profile");
  }
  if (key == "writable-cgroups") return refuse(opt, "makes the cgroup tree writable");
  return refuse(opt, "is not one dockerd reads");
}

// The first default `list` lacks, or nothing.
// (The defaults are container_model.h's, which the verifier in front of runc judges by too.)
template <size_t N>
std::optional<std::string_view> missing_default(const std::optional<GoValue>& list, const char* const (&defaults)[N]) {
  for (const std::string_view path : defaults) {
    bool found = false;
    if (list && list->kind() == GoValue::Kind::array) {
      for (const GoValue item : list->items())
        found = found || (item.kind() == GoValue::Kind::string && item.text() == path);
    }
    if (!found) return path;
  }
  return std::nullopt;
}

}  // namespace

Refusal check_stored_system_paths(const std::optional<GoValue>& masked, const std::optional<GoValue>& readonly) {
  const auto gone = missing_default(masked, kDefaultMaskedPaths);
  const auto writable = gone ? std::nullopt : missing_default(readonly, kDefaultReadonlyPaths);
  if (!gone && !writable) return std::nullopt;
  return "refused: the container's " +
         std::string(gone ? "MaskedPaths no longer mask " : "ReadonlyPaths no longer hold ") +
         std::string(gone ? *gone : *writable) +
         ", which Docker keeps from every container (a --security-opt systempaths=unconfined container, or an edited "
         "hostconfig.json); recreate it without that option.";
}

Refusal check_security_options(const std::optional<GoValue>& options, const PolicyRules& policy) {
  if (!options || options->is_null()) return std::nullopt;
  if (options->kind() != GoValue::Kind::array) return "refused: SecurityOpt is not a list.";
  for (const GoValue o : options->items()) {
    if (o.kind() != GoValue::Kind::string && !o.is_null())
      return "refused: SecurityOpt holds a value that is not text.";
    if (auto bad = check_one(o.text(), policy)) return bad;
  }
  return std::nullopt;
}

Refusal check_system_paths(const std::optional<GoValue>& masked, const std::optional<GoValue>& readonly) {
  for (const auto& [list, name] : {std::pair{&masked, "MaskedPaths"}, std::pair{&readonly, "ReadonlyPaths"}}) {
    if (*list && !(*list)->is_null()) {
      return std::string("refused: ") + name +
             " replaces Docker's masked and read-only /proc and /sys paths (--security-opt "
             "systempaths=unconfined sends it), which exposes the host's kernel memory, keys and sysctls; leave it "
             "unset.";
    }
  }
  return std::nullopt;
}

}  // namespace rgpu::admission
