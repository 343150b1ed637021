#pragma once
// What dockerd makes of a bind or a mount, read as its Linux parser reads it (moby's
// volume/mounts/linux_parser.go, the same in Docker 26 and 28.5), so the gate judges the path the
// daemon will mount and not the text of the request. The parser checks that a source is absolute
// after turning '\' into '/', then mounts path.Clean of the source as written: "\/../../run" passes
// the check and mounts "../../run", relative to runc's working directory. tests/oracle/mount_oracle.go
// is dockerd's own parser, and a test holds this one to it over generated sources.

#include <string>
#include <string_view>

namespace rgpu::admission {

/// Go's path.Clean, exactly: a relative path stays relative ("" is "."), a rooted one stays rooted.
std::string go_path_clean(std::string_view path);

/// One mount as dockerd will make it.
struct MountSpec {
  enum class Kind {
    invalid,  ///< dockerd refuses the mount (why says how)
    bind,     ///< a host path: source is what dockerd mounts
    volume,   ///< a named volume (source is its name) or an anonymous one (source is "")
    other,    ///< tmpfs, an image, a named pipe, a cluster volume: no host path
  };
  Kind kind = Kind::invalid;
  /// bind: path.Clean of the source as written, which dockerd mounts (relative when the source was
  /// not absolute as written); volume: the name.
  std::string source = {};
  bool read_only = false;
  std::string why = {};          ///< invalid: what dockerd's parser says is wrong
  std::string target = {};       ///< where in the container, cleaned as dockerd cleans it
  std::string propagation = {};  ///< a bind's propagation as asked ("" for dockerd's default, rprivate)
};

/// A HostConfig.Binds entry, "SOURCE:TARGET[:MODE]" or "TARGET" (ParseMountRaw).
MountSpec parse_bind(std::string_view raw);

/// The fields of a HostConfig.Mounts object that decide what is mounted from where, as dockerd
/// decoded them (an options object that is present and not null counts as set).
struct MountFields {
  std::string_view type = {};
  std::string_view source = {};
  std::string_view target = {};
  bool read_only = false;
  bool bind_options = false;
  std::string_view propagation = {};  ///< BindOptions.Propagation
  bool volume_options = false;
  std::string_view volume_subpath = {};  ///< VolumeOptions.Subpath
  bool image_options = false;
  std::string_view image_subpath = {};  ///< ImageOptions.Subpath
  bool tmpfs_options = false;
};

/// A HostConfig.Mounts object (ParseMountSpec), leaving out the one check that reads the machine:
/// whether a bind's source exists (BindOptions.CreateMountpoint lifts it anyway).
MountSpec parse_mount(const MountFields& mount);

}  // namespace rgpu::admission
