#include "admission/body_checks.h"
#include "cdi-gen/reach_rules.h"

#include "core/edit_distance.h"
#include "core/joined.h"

#include <algorithm>
#include <array>

#include "admission/api_fields.h"
#include "admission/capabilities.h"
#include "admission/host_paths.h"
#include "admission/mount_spec.h"
#include "admission/security_options.h"
#include "cdi-gen/spec_index.h"
#include "core/edit_distance.h"
#include "core/joined.h"
#include "grants/hardware.h"
#include "grants/store.h"

namespace rgpu::admission {

using docker::go_fold_equal;
using docker::GoValue;
using docker::read_go_json;
namespace {

// The HostConfig fields the checks read, found in one pass over its keys.
enum Field : size_t {
  kPrivileged,
  kDeviceRequests,
  kRuntime,
  kAnnotations,
  kDevices,
  kDeviceCgroupRules,
  kCapAdd,
  kCapDrop,
  kSecurityOpt,
  kMaskedPaths,
  kReadonlyPaths,
  kPidMode,
  kIpcMode,
  kNetworkMode,
  kUsernsMode,
  kCgroupParent,
  kBinds,
  kMounts,
  kVolumeDriver,
  kVolumesFrom,
  kCgroupnsMode,
  kOomScoreAdj,
  kLogConfig,
  kFieldCount,
  // A create body's own fields, read in the same pass as the HostConfig fields at its top level.
  kWorkingDir = kFieldCount,
  kHostConfig,
  kCreateFieldCount
};
constexpr std::string_view kFieldNames[kCreateFieldCount] = {
    "Privileged",        "DeviceRequests", "Runtime",   "Annotations",  "Devices",
    "DeviceCgroupRules", "CapAdd",         "CapDrop",   "SecurityOpt",  "MaskedPaths",
    "ReadonlyPaths",     "PidMode",        "IpcMode",   "NetworkMode",  "UsernsMode",
    "CgroupParent",      "Binds",          "Mounts",    "VolumeDriver", "VolumesFrom",
    "CgroupnsMode",      "OomScoreAdj",    "LogConfig", "WorkingDir",   "HostConfig"};
using Fields = std::array<std::optional<GoValue>, kCreateFieldCount>;

bool qualified_cdi_name(const std::string& name) {
  const auto eq = name.find('=');
  const auto slash = name.find('/');
  if (eq == std::string::npos || slash == std::string::npos || slash > eq) return false;
  return cdi::valid_vendor(name.substr(0, slash)) && cdi::valid_class(name.substr(slash + 1, eq - slash - 1)) &&
         cdi::valid_device_name(name.substr(eq + 1));
}

// A name whose spec now runs a hook or moves a net device its grant did not review: the spec
// changed after the grant (or the grant predates the review).
Refusal check_reviewed(const grants::Grant& grant, CheckContext& context) {
  const auto now = context.world.review_items(grant.device);
  if (now.empty()) return std::nullopt;
  // The views leave such a name out by the same rule (grants::unreviewed).
  std::string added;
  bool net = false, hook = false;
  for (const auto& item : grants::unreviewed(grant, now)) {
    added += (added.empty() ? "" : ", ") + item;
    (item.starts_with("net device") ? net : hook) = true;
  }
  if (added.empty()) return std::nullopt;
  return "refused: the spec of " + grant.device + " changed after it was granted to repository \"" + grant.repo +
         "\": it now carries " + added +
         ", which the grant did not review; an operator can review it and grant it "
         "again: rediacc-gpu grant " +
         grant.repo + " --device " + grant.device + (hook ? " --allow-hooks" : "") +
         (net ? " --allow-net-devices" : "");
}

// A granted name must still reach the hardware its grant recorded (a renumbering moves numbered
// names onto other cards), and nothing another repository reserved, whatever name it holds.
Refusal check_hardware(const grants::Grant& grant, const grants::GrantSet& set, CheckContext& context) {
  const auto known = context.world.reach(grant.device);
  if (!known) return std::nullopt;
  const auto& reach = *known;
  // Judged as doctor and the views judge a grant (grants::grant_move); only the words are the gate's.
  const auto move = grants::grant_move(grant, reach);
  if (move && !move->unreadable.empty()) {
    context.detail = move->unreadable;
    return "refused: the gate cannot tell which hardware " + grant.device +
           " reaches now, so it gives it to no container; ask an operator (rediacc-gpu doctor names what is wrong).";
  }
  // Left to dockerd, a name no spec defines fails with the daemon's own words, and a view or spec
  // that comes back later would hand out whatever it maps then, unjudged by this request.
  if (move && move->stale_kind == grants::GrantMove::Stale::undefined) {
    return "refused: no CDI spec on this machine defines " + grant.device + ", which repository \"" + grant.repo +
           "\" was granted; the device is gone or " + std::string(grants::kStaleSpecs) +
           " (an operator; rediacc-gpu doctor names what is wrong).";
  }
  if (move && move->stale_kind == grants::GrantMove::Stale::key_elsewhere) {
    context.detail = move->stale;
    return "refused: " + move->stale + "; " + std::string(grants::kStaleSpecs) + " (an operator).";
  }
  const auto& now = (*reach)->identities;
  const grants::Grant* holder = grants::reserved_by_other(set, grant.repo, now);
  if (move) {
    // Re-granting accepts the move: never the advice when the card is another repository's now.
    const std::string way_out =
        holder
            ? "; the card it reaches now is reserved by another repository, so an operator grants the name keyed "
              "by the card it should have (rediacc-gpu list) instead"
            : "; an operator re-grants it to accept that (rediacc-gpu grant " + grant.repo + " --device " +
                  grant.device + ")" +
                  (cdi::is_hardware_keyed(grant.device) ? ""
                                                        : " or grants the name keyed by the card (rediacc-gpu list)");
    if (holder) context.detail = "reserved by repository \"" + holder->repo + "\" through " + holder->device;
    return "refused: " + grant.device + " now reaches other hardware than was granted to repository \"" + grant.repo +
           "\" (" + grants::move_clause(*grant.hardware, now) + ")" + way_out + ".";
  }
  if (holder) {
    context.detail = "reserved by repository \"" + holder->repo + "\" through " + holder->device;
    return "refused: " + grant.device + " now reaches " + grants::shared_hardware(*holder->hardware, now) +
           ", which another repository reserved; ask an operator (rediacc-gpu doctor names the grants).";
  }
  return std::nullopt;
}

// What a world that does not know the machine's names gives held_names: no filter.
const std::vector<std::string> kNoNames;

// The names the repository holds that this machine still defines, sorted.
std::vector<std::string> held_names(const grants::GrantSet& set, const std::string& repo,
                                    const std::vector<std::string>& defined) {
  std::vector<std::string> out;
  for (const auto& g : set.grants) {
    if (g.repo == repo && (defined.empty() || std::binary_search(defined.begin(), defined.end(), g.device)))
      out.push_back(g.device);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A name the repository does not hold: suggest only names this machine defines, the
// repository's own first; never a grant command for a name no spec defines.
std::string no_grant(const std::string& name, const grants::GrantSet& set, CheckContext& context) {
  const auto known = context.world.defined_names();
  const std::vector<std::string>& defined = known ? *known : kNoNames;
  const auto held = held_names(set, context.repo, defined);
  const std::string repo = "repository \"" + context.repo + "\"";
  const std::string holds = held.empty() ? "" : "; " + repo + " holds " + joined(held);
  if (known && !std::binary_search(defined.begin(), defined.end(), name)) {
    // The closest names only when the repository holds none to name instead: edit distances over
    // every defined name were a tenth of a refused CDI request's time, for a list never shown.
    const auto near = held.empty() ? closest(name, defined, 3) : std::vector<std::string>{};
    return "refused: no CDI spec on this machine defines " + name +
           (!held.empty()   ? holds
            : !near.empty() ? "; names this machine defines: " + joined(near) + " (an operator can grant one)"
                            : "; this machine defines no CDI names") +
           ".";
  }
  return "refused: " + repo + " has no grant for " + name + (held.empty() ? "" : "; it holds " + joined(held)) +
         "; an operator can grant it with: rediacc-gpu grant " + context.repo + " --device " + name;
}

Refusal check_cdi_request(const GoValue& req, CheckContext& context) {
  LazyGrants& grants = context.grants;
  const std::string& repo = context.repo;
  const auto count = req.field("Count");
  const auto options = req.field("Options");
  const auto ids = req.field("DeviceIDs");
  if (count && !count->is_empty())
    return "refused: a CDI device request with a Count; name the devices instead: --device VENDOR/CLASS=NAME.";
  if (options && !options->is_empty()) return "refused: a CDI device request with Options, which CDI does not take.";
  if (!ids || ids->kind() != GoValue::Kind::array || ids->items().empty())
    return "refused: a CDI device request that names no device.";
  for (const GoValue id : ids->items()) {
    const std::string name(id.text());
    if (id.kind() != GoValue::Kind::string || !qualified_cdi_name(name)) {
      return "refused: \"" + name + "\" is not a qualified CDI name (vendor.com/class=name).";
    }
    // CDI kinds are matched exactly, so this prefix is the management spec's every spelling.
    if (name.starts_with("management.")) {
      return "refused: " + name +
             " is a management device (every GPU's capability nodes); it is never given to a "
             "tenant, whatever the grants say.";
    }
    const auto& set = grants.get();
    if (!set) {
      // The tenant learns what to do; the path and the parser's words go to the plugin's log.
      context.detail = set.error().message;
      return std::string(
          "refused: this machine's grants cannot be read, so no CDI name can be given; ask an "
          "operator (rediacc-gpu doctor names what is wrong).");
    }
    const grants::Grant* grant = (*set)->find(repo, name);
    if (!grant) return no_grant(name, **set, context);
    if (auto bad = check_reviewed(*grant, context)) return bad;
    if (auto bad = check_hardware(*grant, **set, context)) return bad;
  }
  return std::nullopt;
}

// What a tenant that asked for devices another way is told to do: ask by a name its repository
// holds, or, holding none, have an operator grant one. Never a name it does not hold.
std::string cdi_form(CheckContext& context) {
  const auto& set = context.grants.get();
  const auto known = context.world.defined_names();
  const auto held = set ? held_names(**set, context.repo, known ? *known : kNoNames) : std::vector<std::string>{};
  const std::string repo = "repository \"" + context.repo + "\"";
  if (held.empty())
    return "devices are asked for by CDI name, and " + repo +
           " holds none: an operator grants one with rediacc-gpu grant " + context.repo +
           " --device NAME (rediacc-gpu cdi list names them)";
  return "ask for devices by CDI name: docker run --device " + held.front() + " (Compose: devices: [" + held.front() +
         "]); " + repo + " holds " + joined(held);
}

// Docker 29.2 and later turn an NVIDIA --gpus into CDI names by number (29.3 an AMD one too),
// names no grant keys to one card; the tenant reads why, and the names it can ask for instead.
std::string driver_refusal(const std::string& driver, CheckContext& context) {
  std::string out = "refused: a device request with driver \"" + driver +
                    "\" (docker run --gpus, Compose gpus: or deploy.resources.reservations.devices); Docker 29.2 "
                    "and later turn --gpus into numbered names (--gpus 2 is nvidia.com/gpu=0 and nvidia.com/gpu=1), "
                    "and a number can name another card after a reboot; ";
  return out + cdi_form(context) + ".";
}

Refusal check_device_requests(const Fields& hc, CheckContext& context) {
  const auto& requests = hc[kDeviceRequests];
  if (!requests || requests->is_null()) return std::nullopt;
  if (requests->kind() != GoValue::Kind::array) return "refused: DeviceRequests is not a list.";
  for (const GoValue req : requests->items()) {
    const auto driver = req.field("Driver");
    if (req.kind() != GoValue::Kind::object || !driver || driver->kind() != GoValue::Kind::string ||
        driver->text() != "cdi")
      return driver_refusal(driver ? std::string(driver->text()) : std::string(), context);
    if (auto bad = check_cdi_request(req, context)) return bad;
    if (auto bad = check_known_fields(req, ApiObject::device_request)) return bad;
  }
  return std::nullopt;
}

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

// On the host's network namespace, which every repository's services share, CAP_NET_RAW (Docker
// gives it by default) opens packet and raw sockets that read every repository's loopback traffic;
// Rediacc's eBPF hooks confine bind and connect, not those. A container there drops it. dockerd
// has no flag for its containers' default capabilities, and a filter under the daemon would stop
// CRIU, which may not trace a checkpointed container from under one (docs/decisions.md).
Refusal check_shared_network_raw(const Fields& hc, CheckContext& context) {
  const auto& mode = hc[kNetworkMode];
  if (!mode) return std::nullopt;
  const auto shared = on_host_network(*mode, context);
  if (!shared)
    return "refused: the gate could not tell whether --network " + std::string(mode->text()) +
           " shares the host's network: " + shared.error().message + ".";
  if (!*shared || !keeps_capability(hc[kCapAdd], hc[kCapDrop], "CAP_NET_RAW")) return std::nullopt;
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

// One bind or mount as dockerd will make it (mount_spec.h): a host path is judged where the
// daemon will mount it, and allowed only under the roots the host policy gives the repository.
// `source` is the source as the request wrote it.
// A named volume is judged by what the local driver mounts for it when a container starts (its
// stored options), not by the request that made it: made before the gate, or copied in by a fork,
// it can bind any host path.
Refusal check_named_volume(std::string_view name, CheckContext& context) {
  if (name.empty()) return std::nullopt;
  auto known = context.world.volume_mount(name);
  if (!known) return std::nullopt;
  const std::string volume = "volume \"" + std::string(name) + "\"";
  if (!*known) return "refused: the gate could not read what " + volume + " mounts: " + known->error().message + ".";
  if ((*known)->empty()) return std::nullopt;
  return "refused: " + volume + " mounts " + **known +
         " from the host when a container starts (options stored when it was made, whoever made it); remove it "
         "(docker volume rm " +
         std::string(name) + ") and use a volume made without options.";
}

Refusal check_mount_spec(const MountSpec& spec, std::string_view source, std::string_view what, CheckContext& context) {
  using Kind = MountSpec::Kind;
  if (spec.kind == Kind::invalid)
    return "refused: " + std::string(what) + " of \"" + std::string(source) +
           "\" that dockerd would not take either (" + spec.why + ").";
  // What dockerd mounts at these it hands to every container that joins this one's network
  // (--network container:NAME), by the source path, resolved again at that container's start.
  for (const char* managed : {"/etc/hosts", "/etc/resolv.conf", "/etc/hostname"}) {
    if (spec.target == managed)
      return "refused: " + std::string(what) + " of \"" + std::string(source) + "\" at " + managed +
             ", which dockerd manages and hands on to every container joining this one's network; use --add-host, "
             "--dns or --hostname instead.";
  }
  if (spec.propagation == "shared" || spec.propagation == "rshared")
    return "refused: " + std::string(what) + " of \"" + std::string(source) + "\" with " + spec.propagation +
           " propagation: mounts made under it in the container (dockerd's own binds among them) appear on the "
           "host, out of the gate's sight; leave the propagation unset, or use rslave.";
  if (spec.kind == Kind::volume) return check_named_volume(spec.source, context);
  if (spec.kind != Kind::bind) return std::nullopt;
  if (source.find('\\') != std::string_view::npos)
    return "refused: " + std::string(what) + " of \"" + std::string(source) +
           "\": dockerd reads a backslash as '/' when it checks that a source is absolute, and mounts the source as "
           "written; write the path with '/' alone.";
  if (!spec.source.starts_with('/'))
    return "refused: " + std::string(what) + " of \"" + std::string(source) + "\": dockerd would mount \"" +
           spec.source + "\", a path relative to its own working directory; write an absolute path.";
  const BindScope scope{.roots = *context.policy.bind_roots, .repo = context.repo};
  return context.world.judge_host_path(
      {.path = spec.source, .written = source, .what = what, .read_only = spec.read_only}, scope);
}

// Binds are "source:target[:mode]", read as dockerd's Linux parser reads them (parse_bind).
Refusal check_binds(const std::optional<GoValue>& binds, CheckContext& context) {
  if (!binds) return std::nullopt;
  for (const GoValue b : binds->items()) {
    if (b.kind() != GoValue::Kind::string) return std::string("refused: Binds holds a value that is not a string.");
    const std::string_view bind = b.text();
    if (auto bad = check_mount_spec(parse_bind(bind), bind.substr(0, bind.find(':')), "a bind", context)) return bad;
  }
  return std::nullopt;
}

// A Mounts object as dockerd decoded it, for parse_mount.
MountFields mount_fields(const GoValue& m) {
  const auto text = [](const std::optional<GoValue>& v) { return v ? v->text() : std::string_view(); };
  const auto set = [](const std::optional<GoValue>& v) { return v && !v->is_null(); };
  MountFields f{.type = text(m.field("Type")), .source = text(m.field("Source")), .target = text(m.field("Target"))};
  const auto read_only = m.field("ReadOnly");
  f.read_only = read_only && read_only->kind() == GoValue::Kind::boolean && read_only->boolean();
  if (const auto o = m.field("BindOptions"); set(o)) {
    f.bind_options = true;
    f.propagation = text(o->field("Propagation"));
  }
  if (const auto o = m.field("VolumeOptions"); set(o)) {
    f.volume_options = true;
    f.volume_subpath = text(o->field("Subpath"));
  }
  if (const auto o = m.field("ImageOptions"); set(o)) {
    f.image_options = true;
    f.image_subpath = text(o->field("Subpath"));
  }
  f.tmpfs_options = set(m.field("TmpfsOptions"));
  return f;
}

// Every object of a mount, its options and their driver, against the fields Docker defines.
Refusal check_mount_fields(const GoValue& mount) {
  if (auto bad = check_known_fields(mount, ApiObject::mount)) return bad;
  static constexpr std::pair<std::string_view, ApiObject> kOptions[] = {{"BindOptions", ApiObject::bind_options},
                                                                        {"VolumeOptions", ApiObject::volume_options},
                                                                        {"TmpfsOptions", ApiObject::tmpfs_options},
                                                                        {"ImageOptions", ApiObject::image_options}};
  for (const auto& [name, object] : kOptions) {
    const auto options = mount.field(name);
    if (!options) continue;
    if (auto bad = check_known_fields(*options, object)) return bad;
    if (object != ApiObject::volume_options) continue;
    if (const auto driver = options->field("DriverConfig")) {
      if (auto bad = check_known_fields(*driver, ApiObject::volume_driver)) return bad;
    }
  }
  return std::nullopt;
}

Refusal check_mounts(const std::optional<GoValue>& mounts, CheckContext& context) {
  if (!mounts) return std::nullopt;
  for (const GoValue m : mounts->items()) {
    if (m.kind() != GoValue::Kind::object) return std::string("refused: Mounts holds a value that is not an object.");
    if (auto bad = check_mount_fields(m)) return bad;
    const auto volume = m.field("VolumeOptions");
    const auto driver = volume ? volume->field("DriverConfig") : std::nullopt;
    if (driver) {
      if (auto bad = check_volume(driver->field("Name"), driver->field("Options"))) return bad;
    }
    const auto fields = mount_fields(m);
    if (auto bad = check_mount_spec(parse_mount(fields), fields.source, "a mount", context)) return bad;
  }
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

// The TUN device a WireGuard container opens, where the policy allows it: the host path must be
// /dev/net/tun once cleaned and, on the machine, resolve to itself and be the TUN character device
// (10:200), never a link or a node renamed there.
bool allowed_tun(const GoValue& device, GateWorld& world, const PolicyRules& policy) {
  if (!policy.tun_device) return false;
  const auto host = device.field("PathOnHost");
  if (!host || host->kind() != GoValue::Kind::string || clean_path(host->text()) != kTunDevice) return false;
  return world.is_tun_device(kTunDevice);
}

Refusal check_devices(const Fields& hc, GateWorld& world, const PolicyRules& policy) {
  const auto& devices = hc[kDevices];
  if (!devices || devices->is_empty()) return std::nullopt;
  std::string path = "a device";
  bool refused = false;
  for (const GoValue d : devices->items()) {
    if (allowed_tun(d, world, policy)) continue;
    refused = true;
    const auto host = d.field("PathOnHost");
    const std::string written(host ? host->text() : "");
    if (qualified_cdi_name(written)) {
      return "refused: \"" + written +
             "\" came as a raw device path, which is how Compose before 2.30 sends devices: [" + written +
             "]; upgrade Docker Compose to 2.30 or later (docker compose version), which asks for it as a CDI device "
             "the gate checks against your grants.";
    }
    if (path == "a device" && host) path = written;
  }
  if (!refused) return std::nullopt;
  return "refused: raw device \"" + path + "\"; ask for it by CDI name: " + world.cdi_form(path) + ".";
}

// A container's mount points as the daemon lists them (GET /containers/{name}/json, Mounts):
// what dockerd mounts at a start, whatever the HostConfig says (a copied or edited data root can
// make them differ), and what --volumes-from copies. A bind's Source is the path it mounts (already
// cleaned); a named volume is judged by what its driver mounts; an entry of any other kind that
// names a host path is judged as a bind of it. Read-only as the daemon says, or when `read_only_all`.
Refusal check_mount_points(const GoValue& mounts, const std::string& what, bool read_only_all, CheckContext& context) {
  for (const GoValue m : mounts.items()) {
    const auto text = [&](const char* field) {
      const auto v = m.field(field);
      return v ? v->text() : std::string_view();
    };
    const auto type = text("Type"), source = text("Source"), name = text("Name");
    const auto rw = m.field("RW");
    const bool read_only = read_only_all || !(rw && rw->kind() == GoValue::Kind::boolean && rw->boolean());
    if (type == "volume") {
      if (auto bad = check_volume(m.field("Driver"), std::nullopt)) return bad;
      if (!name.empty()) {
        if (auto bad = check_named_volume(name, context)) return bad;
        continue;
      }
    }
    if (source.empty() || (type == "image" && !source.starts_with('/'))) continue;  // tmpfs, an image by name
    const MountSpec bind{.kind = MountSpec::Kind::bind,
                         .source = go_path_clean(source),
                         .read_only = read_only,
                         .target = go_path_clean(text("Destination")),
                         .propagation = std::string(text("Propagation"))};
    if (auto bad = check_mount_spec(bind, source, what, context)) return bad;
  }
  return std::nullopt;
}

// --volumes-from copies every mount point of the named container, binds included, into the new
// one; that container may have been made before the gate, or its stored configuration edited.
// Its mount points as the daemon lists them (GET /containers/{name}/json, Mounts) are judged as
// if the new container bound them itself.
Refusal check_volumes_from(const std::optional<GoValue>& from, CheckContext& context) {
  if (!from || from->is_empty()) return std::nullopt;
  for (const GoValue item : from->items()) {
    const std::string_view spec = item.text();
    const std::string_view name = spec.substr(0, spec.find(':'));
    auto known = context.world.stored_container(name);
    if (!known) return std::nullopt;  // a world without the daemon's containers judges the names alone
    auto& text = *known;
    if (!text) {
      return "refused: --volumes-from " + std::string(name) +
             ": the gate could not read that container from the daemon: " + text.error().message;
    }
    auto doc = read_go_json(*text);
    const auto mounts = doc && doc->root().kind() == GoValue::Kind::object ? doc->root().field("Mounts") : std::nullopt;
    if (!doc || (mounts && !mounts->is_null() && mounts->kind() != GoValue::Kind::array))
      return "refused: --volumes-from " + std::string(name) +
             ": the daemon described that container in a form the gate cannot read.";
    if (!mounts) continue;
    const std::string what = "a mount of container \"" + std::string(name) + "\" (--volumes-from)";
    const bool read_only_all = spec.find(':') != std::string_view::npos && spec.substr(spec.find(':') + 1) == "ro";
    if (auto bad = check_mount_points(*mounts, what, read_only_all, context)) return bad;
  }
  return std::nullopt;
}

Refusal check_host_config_fields(const Fields& hc, CheckContext& context) {
  if (const auto& p = hc[kPrivileged]; p && !p->is_empty()) {
    return "refused: --privileged gives every host device; " + cdi_form(context) + ".";
  }
  if (auto bad = check_device_requests(hc, context)) return bad;
  if (auto bad = check_runtime_and_annotations(hc, context)) return bad;
  if (auto bad = check_devices(hc, context.world, context.policy)) return bad;
  if (auto bad = check_strings(
          hc[kDeviceCgroupRules],
          "device cgroup rules; a CDI grant is the way to a device: --device rediacc.io/dri=renderD128.")) {
    return bad;
  }
  if (auto bad = check_capabilities(hc[kCapAdd], hc[kCapDrop], context.policy)) return bad;
  if (auto bad = check_security_options(hc[kSecurityOpt], context.policy)) return bad;
  if (auto bad = check_system_paths(hc[kMaskedPaths], hc[kReadonlyPaths])) return bad;
  if (auto bad = check_namespaces(hc, context.policy)) return bad;
  if (auto bad = check_shared_network_raw(hc, context)) return bad;
  if (auto bad = check_cgroup_and_oom(hc, context.world)) return bad;
  if (auto bad = check_log_driver(hc[kLogConfig])) return bad;
  if (auto bad = check_binds(hc[kBinds], context)) return bad;
  if (auto bad = check_mounts(hc[kMounts], context)) return bad;
  if (auto bad = check_volumes_from(hc[kVolumesFrom], context)) return bad;
  return check_volume(hc[kVolumeDriver], std::nullopt);
}

}  // namespace

const Result<std::shared_ptr<const grants::GrantSet>>& LazyGrants::get() {
  if (!got_) got_ = source_();
  return *got_;
}

Refusal check_volume(const std::optional<GoValue>& driver, const std::optional<GoValue>& options) {
  if (driver && !driver->text().empty() && driver->text() != "local") {
    return "refused: volume driver \"" + std::string(driver->text()) + "\"; only the local driver is allowed.";
  }
  if (options) {
    for (const auto [key, value] : options->fields()) {
      if (go_fold_equal(key, "DEVICE") || go_fold_equal(key, "TYPE") || go_fold_equal(key, "O")) {
        return "refused: a volume with option \"" + std::string(key) + "\", which can bind or mount a host device.";
      }
    }
  }
  return std::nullopt;
}

Refusal check_network_create(const GoValue& body) {
  const auto text = [&](const char* field) {
    const auto v = body.field(field);
    return v ? std::string(v->text()) : std::string();
  };
  const std::string driver = text("Driver");
  if (!driver.empty() && driver != "bridge")
    return "refused: network driver \"" + driver +
           "\": a repository's network is a bridge of its own; macvlan and ipvlan put containers on the host's "
           "interfaces, and any other name is a plugin dockerd looks up by path.";
  // The bridge's own switches; a bridge.name picks an existing one of the host's (another
  // repository's), and anything else names a host interface or is not known.
  static constexpr std::string_view kBridgeOptions[] = {
      "com.docker.network.bridge.enable_icc", "com.docker.network.bridge.enable_ip_masquerade",
      "com.docker.network.driver.mtu", "com.docker.network.container_iface_prefix",
      "com.docker.network.bridge.host_binding_ipv4"};
  if (const auto options = body.field("Options")) {
    for (const auto [key, value] : options->fields()) {
      if (std::find(std::begin(kBridgeOptions), std::end(kBridgeOptions), key) != std::end(kBridgeOptions)) continue;
      return "refused: network option \"" + std::string(key) +
             "\": only a bridge's own switches (ICC, masquerading, MTU) may be set; it could name a host interface "
             "or another network's bridge.";
    }
  }
  if (const auto ipam = body.field("IPAM"); ipam && ipam->kind() == GoValue::Kind::object) {
    const auto ipam_driver = ipam->field("Driver");
    if (ipam_driver && !ipam_driver->is_empty() && ipam_driver->text() != "default")
      return "refused: IPAM driver \"" + std::string(ipam_driver->text()) + "\": only the default one.";
    if (const auto o = ipam->field("Options"); o && !o->is_empty())
      return std::string("refused: IPAM options: only the default address management.");
  }
  for (const char* field : {"ConfigFrom", "ConfigOnly", "Ingress"}) {
    if (const auto v = body.field(field); v && !v->is_empty())
      return "refused: network " + std::string(field) +
             ": a network of another's configuration, or swarm's, may reach the host's interfaces.";
  }
  if (const auto scope = body.field("Scope"); scope && !scope->is_empty() && scope->text() != "local")
    return std::string("refused: a network of swarm or global scope; a repository's networks are local.");
  return std::nullopt;
}

Refusal check_working_dir(const std::optional<GoValue>& dir) {
  if (!dir || dir->text().empty()) return std::nullopt;
  const std::string cleaned = clean_path(dir->text());
  if (cleaned == "/proc" || cleaned.rfind("/proc/", 0) == 0)
    return "refused: a working directory under /proc (\"" + std::string(dir->text()) +
           "\") can leak into the host's namespaces; use a directory of the image.";
  return std::nullopt;
}

namespace {

// HostConfig, or an update body (which shares its Resources and RestartPolicy): the checks of
// the fields that attach hardware, then the fields `object` defines.
Refusal check_config_object(const GoValue& value, ApiObject object, CheckContext& context) {
  if (value.kind() != GoValue::Kind::object) return std::nullopt;
  Fields hc;
  value.pick(std::span(kFieldNames).first<kFieldCount>(), std::span(hc).first<kFieldCount>());
  if (auto bad = check_host_config_fields(hc, context)) return bad;
  return check_known_fields(value, object);
}

}  // namespace

Refusal check_host_config(const GoValue& host_config, CheckContext& context) {
  return check_config_object(host_config, ApiObject::host_config, context);
}

Refusal check_update(const GoValue& body, CheckContext& context) {
  // A container's devices are fixed when it is made; say so rather than judge them as new ones.
  for (const char* field : {"Devices", "DeviceRequests", "DeviceCgroupRules"}) {
    if (const auto v = body.field(field); v && !v->is_empty()) {
      return std::string("refused: docker update sets ") + field +
             ", but devices cannot be changed on an existing container; make a new container with --device "
             "VENDOR/CLASS=NAME (a name the repository was granted).";
    }
  }
  return check_config_object(body, ApiObject::update, context);
}

Refusal check_stored_container(const GoValue& inspect, CheckContext& context) {
  const auto config = inspect.kind() == GoValue::Kind::object ? inspect.field("Config") : std::nullopt;
  if (config && config->kind() == GoValue::Kind::object) {
    if (auto bad = check_working_dir(config->field("WorkingDir"))) return bad;
  }
  const auto host_config = inspect.kind() == GoValue::Kind::object ? inspect.field("HostConfig") : std::nullopt;
  if (!host_config || host_config->kind() != GoValue::Kind::object)
    return "refused: the daemon's description of the container holds no HostConfig to judge.";
  Fields hc;
  host_config->pick(std::span(kFieldNames).first<kFieldCount>(), std::span(hc).first<kFieldCount>());
  if (auto bad = check_stored_system_paths(hc[kMaskedPaths], hc[kReadonlyPaths])) return bad;
  hc[kMaskedPaths].reset();
  hc[kReadonlyPaths].reset();
  if (auto bad = check_host_config_fields(hc, context)) return bad;
  // What dockerd mounts at the start are the container's stored mount points.
  if (const auto mounts = inspect.field("Mounts"); mounts && mounts->kind() == GoValue::Kind::array) {
    if (auto bad = check_mount_points(*mounts, "a mount of the container", false, context)) return bad;
  }
  return check_known_fields(*host_config, ApiObject::host_config);
}

Refusal check_create(const GoValue& body, CheckContext& context) {
  Fields top;
  body.pick(kFieldNames, top);
  if (auto bad = check_working_dir(top[kWorkingDir])) return bad;
  if (const auto& hc = top[kHostConfig]) {
    if (auto bad = check_host_config(*hc, context)) return bad;
  }
  // Engines up to 26.1 read HostConfig fields at the top level of a create body too.
  if (auto bad = check_host_config_fields(top, context)) return bad;
  return check_known_fields(body, ApiObject::create);
}

}  // namespace rgpu::admission
