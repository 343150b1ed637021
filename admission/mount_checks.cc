#include "admission/mount_checks.h"

#include <algorithm>
#include <array>

#include "admission/api_fields.h"
#include "admission/capabilities.h"
#include "admission/confinement_checks.h"
#include "admission/device_checks.h"
#include "admission/host_paths.h"
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

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

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

}  // namespace rgpu::admission
