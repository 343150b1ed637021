#pragma once
// Every machine path the tool reads or writes goes through RootFs, so the same code runs on
// the real machine (--root /) and on a fixture tree built by a test.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace rgpu {

/// What a machine path is, after following its links inside the root.
enum class NodeKind { missing, file, directory, char_device, block_device, other };

/// Major and minor numbers of a device node.
struct DeviceNumber {
  unsigned major = 0;
  unsigned minor = 0;
};

class RootFs {
 public:
  /// `root` is a host directory; machine paths ("/sys/...") are resolved beneath it.
  explicit RootFs(std::filesystem::path root);

  /// The host directory that stands for "/".
  const std::filesystem::path& root() const { return root_; }

  /// True when the root is the host's own "/": only then may adapters open real devices.
  bool is_host_root() const { return host_root_; }

  /// Host path of a machine path joined lexically, links not followed (for messages and writes).
  std::filesystem::path host_path(std::string_view machine_path) const;

  /// The machine path with every symlink followed inside the root: an absolute link target
  /// restarts at the root and ".." never climbs above it. Missing components are kept as written.
  /// Fails on a link loop (more than 40 links). `links`, when given, receives the machine path of
  /// every link followed, in order (a caller can tell that a walk passed through /proc).
  Result<std::string> resolve(std::string_view machine_path, std::vector<std::string>* links = nullptr) const;

  /// Whole contents of a file, links followed inside the root.
  Result<std::string> read_file(std::string_view machine_path) const;

  /// Contents with surrounding white space trimmed; absent when the file does not exist.
  /// Other failures (a directory, a loop) are errors.
  Result<std::optional<std::string>> read_optional(std::string_view machine_path) const;

  /// Names in a directory, sorted; an absent directory has no names.
  Result<std::vector<std::string>> list_dir(std::string_view machine_path) const;

  /// Kind of the node, links followed inside the root; a loop reads as `other`.
  NodeKind kind(std::string_view machine_path) const;

  /// Device numbers of a character device; absent when the path is not one.
  std::optional<DeviceNumber> char_device(std::string_view machine_path) const;

 private:
  std::filesystem::path root_;
  bool host_root_ = false;
};

/// "/a/b" + "c" with exactly one slash between.
std::string join_path(std::string_view dir, std::string_view name);

/// Last component of a path ("renderD128" for "/dev/dri/renderD128").
std::string base_name(std::string_view path);

}  // namespace rgpu
