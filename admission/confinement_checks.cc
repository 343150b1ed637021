#include "admission/confinement_checks.h"

#include <algorithm>
#include <array>

#include "admission/api_fields.h"
#include "admission/capabilities.h"
#include "admission/device_checks.h"
#include "admission/host_paths.h"
#include "admission/mount_checks.h"
#include "admission/mount_spec.h"
#include "admission/security_options.h"
#include "cdi/device_name.h"
#include "cdi/reach_rules.h"
#include "cdi/spec_index.h"
#include "core/edit_distance.h"
#include "core/joined.h"
#include "grants/hardware.h"
#include "grants/store.h"

namespace rgpu::admission {

using docker::go_fold_equal;
using docker::GoValue;
using docker::read_go_json;

Refusal check_strings(const std::optional<GoValue>& list, const std::string& what) {
  if (!list || list->is_empty()) return std::nullopt;
  return "refused: " + what;
}

// Modes that share one of the host's namespaces. "container:NAME" stays allowed: every name a
// repository's daemon knows is one of its own containers. The host's network and user namespace
// follow the machine's policy (Rediacc runs every service on the host's network, isolated by eBPF
// in the kernel; its checkpointed containers opt out of user-namespace remapping).
Refusal check_namespaces(const Fields& hc, const PolicyRules& policy) {
  struct Mode {
    Field field;
    const char* flag;
    const char* why;
    bool allowed;
  };
  const Mode kModes[] = {
      {kPidMode, "--pid host",
       "its /proc/1/root is the host's root and every host process is in reach; --pid container:NAME shares one of "
       "your own containers'",
       false},
      {kIpcMode, "--ipc host",
       "it shares the host's and other tenants' shared memory; use --shm-size for a larger /dev/shm", false},
      {kNetworkMode, "--network host",
       "it sniffs and binds the host's interfaces and loopback services; publish ports with -p instead",
       policy.host_network},
      {kUsernsMode, "--userns host", "it turns off the daemon's user-namespace remapping; leave it unset",
       policy.host_user_namespace},
  };
  for (const auto& m : kModes) {
    if (m.allowed) continue;
    const auto& value = hc[m.field];
    if (value && value->kind() == GoValue::Kind::string && value->text() == "host")
      return std::string("refused: ") + m.flag + ": " + m.why + ".";
  }
  if (const auto& parent = hc[kCgroupParent]; parent && !parent->is_empty())
    return "refused: CgroupParent places the container outside its repository's cgroup; leave it unset.";
  return std::nullopt;
}

namespace {

// Whether a NetworkMode shares the host's network namespace: "host", or "container:NAME" where that
// container (as the repository's daemon stores it) is on the host's; nothing when unknown to the
// world, an error saying why when it cannot be read.
Result<bool> on_host_network(const GoValue& mode, CheckContext& context) {
  if (mode.kind() != GoValue::Kind::string) return false;
  if (mode.text() == "host") return true;
  if (!mode.text().starts_with("container:")) return false;
  const auto name = mode.text().substr(10);
  auto known = context.world.stored_container(name);
  if (!known) return false;
  RGPU_TRY_ASSIGN(const auto text, std::move(*known));
  auto doc = read_go_json(text);
  if (!doc || doc->root().kind() != GoValue::Kind::object)
    return fail("the daemon described container \"" + std::string(name) + "\" in a form the gate cannot read");
  const auto host_config = doc->root().field("HostConfig");
  const auto its =
      host_config && host_config->kind() == GoValue::Kind::object ? host_config->field("NetworkMode") : std::nullopt;
  return its && its->kind() == GoValue::Kind::string && its->text() == "host";
}

}  // namespace

// On the host's network namespace, which every repository's services share, CAP_NET_RAW (Docker
// gives it by default) opens packet and raw sockets that read every repository's loopback traffic;
// Rediacc's eBPF hooks confine bind and connect, not those. A container there drops it. dockerd
// has no flag for its containers' default capabilities, and a filter under the daemon would stop
// CRIU, which may not trace a checkpointed container from under one (docs/decisions.md). Where
// the verifier in front of runc makes the repository's containers, it takes CAP_NET_RAW from each
// one on the host's network (and from each process exec'd into it), so the request stands as
// renet writes it.
Refusal check_shared_network_raw(const Fields& hc, CheckContext& context) {
  const auto& mode = hc[kNetworkMode];
  if (!mode) return std::nullopt;
  const auto shared = on_host_network(*mode, context);
  if (!shared)
    return "refused: the gate could not tell whether --network " + std::string(mode->text()) +
           " shares the host's network: " + shared.error().message + ".";
  if (!*shared || !keeps_capability(hc[kCapAdd], hc[kCapDrop], "CAP_NET_RAW")) return std::nullopt;
  if (context.world.runtime_verified().value_or(false)) return std::nullopt;
  return std::string(
      "refused: a container on the host's network keeps CAP_NET_RAW, whose packet and raw sockets read every "
      "repository's loopback traffic; drop it: --cap-drop NET_RAW (Compose: cap_drop: [NET_RAW]).");
}

// A log driver runs in the daemon: one that ships a container's output over the network does so
// from the daemon's network namespace, the host's on a Rediacc machine, to any address the request
// names (another repository's loopback service, the host's). Those that write on this machine
// stay allowed: the daemon's default, json-file, local, journald, none, and syslog to the host's
// own /dev/log.
Refusal check_log_driver(const std::optional<GoValue>& config) {
  if (!config || config->kind() != GoValue::Kind::object) return std::nullopt;
  const auto type = config->field("Type");
  const std::string_view driver = type ? type->text() : "";
  static constexpr std::string_view kLocal[] = {"", "json-file", "local", "journald", "none"};
  if (std::find(std::begin(kLocal), std::end(kLocal), driver) != std::end(kLocal)) return std::nullopt;
  if (driver == "syslog") {
    const auto options = config->field("Config");
    const auto address = options ? options->field("syslog-address") : std::nullopt;
    if (!address || address->is_empty()) return std::nullopt;
  }
  return "refused: log driver \"" + std::string(driver) +
         "\" sends the container's output from the daemon's network namespace to an address the request names; "
         "use the daemon's default, json-file, local or journald.";
}

// The host's cgroup namespace shows the whole cgroup tree (every repository's containers and what
// they use); where the daemon's default is a private one (cgroup v2, dockerd 20.10 and later) asking
// for it is a choice. On cgroup v1 the host's is the default, and every stored container carries it.
// A score below the daemon's default (0) shields one repository's container from the OOM killer at
// the others' expense.
Refusal check_cgroup_and_oom(const Fields& hc, GateWorld& world) {
  if (const auto& mode = hc[kCgroupnsMode]; mode && mode->kind() == GoValue::Kind::string && mode->text() == "host") {
    const auto default_mode = world.default_cgroupns_mode();
    if (!default_mode || *default_mode != "host")
      return std::string(
          "refused: --cgroupns host: the host's cgroup namespace shows every repository's containers and what they "
          "use; leave it unset (the daemon gives each container a private one).");
  }
  if (const auto& score = hc[kOomScoreAdj]; score && score->kind() == GoValue::Kind::number && score->is_negative())
    return std::string(
        "refused: --oom-score-adj below 0 shields this container from the OOM killer at other repositories' "
        "expense; leave it at 0 or raise it.");
  return std::nullopt;
}

Refusal check_runtime_and_annotations(const Fields& hc, CheckContext& context) {
  if (const auto& rt = hc[kRuntime];
      rt && !rt->is_empty() && !(rt->kind() == GoValue::Kind::string && rt->text() == "runc")) {
    return "refused: runtime \"" + std::string(rt->text()) + "\"; only runc runs here, and " + cdi_form(context) + ".";
  }
  // dockerd copies them into the OCI spec, where runc acts on some: org.systemd.property.* become
  // properties of the container's systemd scope (DeviceAllow, Delegate, BPFProgram), org.criu.config
  // names the file CRIU reads its options from at a checkpoint or restore (action-script runs a
  // program of its choosing on the host, as root), cdi.k8s.io/ injects devices. No key is one no
  // runtime will ever read: labels carry a container's metadata.
  if (const auto& ann = hc[kAnnotations]) {
    for (const auto [key, value] : ann->fields()) {
      if (key.substr(0, 11) == "cdi.k8s.io/") {
        return "refused: annotation \"" + std::string(key) + "\" injects devices; " + cdi_form(context) + ".";
      }
      return "refused: annotation \"" + std::string(key) +
             "\": annotations reach the runtime, which acts on some (runc turns org.systemd.property.* into "
             "settings of the container's cgroup, and runs CRIU with the options file org.criu.config names); use a "
             "label (--label) for a container's metadata.";
    }
  }
  return std::nullopt;
}

}  // namespace rgpu::admission
