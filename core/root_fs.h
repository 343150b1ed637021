#pragma once
// Every machine path the tool reads or writes goes through RootFs, so the same code runs on
// the real machine (--root /) and on a fixture tree built by a test.

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/in_root_open.h"
#include "core/result.h"

namespace rgpu {

/// What a machine path is, after following its links inside the root.
enum class NodeKind { missing, file, directory, char_device, block_device, other };

/// Major and minor numbers of a device node.
struct DeviceNumber {
  unsigned major = 0;
  unsigned minor = 0;
};

class RootDir;

/// Machine paths are resolved by the kernel beneath a directory fd of the root (openat2 with
/// RESOLVE_IN_ROOT) and, where it cannot (an older kernel, a loop, a /proc magic link, a missing
/// component), by walking the path in user space with the same rules.
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

  /// Host path of a unix socket the machine names (its daemon's, a plugin's), to connect to or to
  /// bind: a socket is reached by its path, never through the root's fd, so the path given the
  /// kernel is the one `resolve` finds (links followed inside the root; under --root DIR it lies
  /// in DIR, never on the host). On the host's own root it is the path as written, whose links
  /// the kernel follows itself (/proc's magic ones included).
  std::filesystem::path socket_path(std::string_view machine_path) const;

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

  /// The node's status (owner, mode, inode, times), links followed inside the root; absent when it
  /// cannot be reached. host_path is for messages and writes, never for a stat.
  std::optional<struct ::stat> stat(std::string_view machine_path) const;

  /// The node's own status, its last component not followed (Go's os.Lstat: what the CDI library
  /// reads a spec's device node with); the directories above it are followed inside the root.
  /// Absent when it cannot be reached.
  std::optional<struct ::stat> lstat(std::string_view machine_path) const;

  /// Device numbers of a character device; absent when the path is not one.
  std::optional<DeviceNumber> char_device(std::string_view machine_path) const;

  /// A directory held open, to read the files in it by name without resolving its path again
  /// (a PCI device's attributes). The error says why it cannot be opened; ENOENT when absent.
  Result<RootDir> open_dir(std::string_view machine_path) const;

  /// A directory opened O_PATH, to stat names in it again without resolving its path (fstatat).
  Result<UniqueFd> open_dir_fd(std::string_view machine_path) const;

  /// A file opened for reading, to be read again with pread (sysfs and procfs make their text anew
  /// at each read from offset 0); the error names the host path.
  Result<UniqueFd> open_read(std::string_view machine_path) const;

  /// The walk in user space that `resolve` falls back on; public so a test can hold the
  /// kernel's answer against it.
  Result<std::string> walk(std::string_view machine_path, std::vector<std::string>* links = nullptr) const;

 private:
  friend class RootDir;
  /// Opens a machine path with `flags`; the error is errno's sentence about `verb` the host path.
  Result<UniqueFd> open(std::string_view machine_path, int flags, const char* verb) const;
  /// Reads an opened file whole; the error names the host path of `machine_path`.
  Result<std::string> read_opened(const UniqueFd& fd, std::string_view machine_path) const;
  /// The machine path of what an open fd beneath the root is, read back from /proc/self/fd.
  std::optional<std::string> machine_path_of(int fd) const;

  std::filesystem::path root_;
  bool host_root_ = false;
  std::shared_ptr<const UniqueFd> root_fd_;  // shared: a RootFs is copied freely
  std::string canonical_root_;               // the root's host path with its links resolved
};

/// A directory of the machine, open; its files are read by name relative to it. A name that is
/// itself a link is followed from the root like any machine path.
class RootDir {
 public:
  /// The machine path it was opened by.
  const std::string& path() const { return path_; }

  /// The machine path it is, every link followed; absent when the kernel cannot say (no /proc).
  std::optional<std::string> resolved_path() const;

  /// Whole contents of the file `name` in this directory.
  Result<std::string> read_file(std::string_view name) const;

  /// As RootFs::read_optional, for the file `name` in this directory.
  Result<std::optional<std::string>> read_optional(std::string_view name) const;

  /// Last component of where the link `name` points ("amdgpu" for driver ->
  /// ../../../bus/pci/drivers/amdgpu); absent when `name` is missing or no link.
  std::optional<std::string> link_base_name(std::string_view name) const;

 private:
  friend class RootFs;
  RootDir(const RootFs& fs, std::string path, UniqueFd fd) : fs_(&fs), path_(std::move(path)), fd_(std::move(fd)) {}
  const RootFs* fs_;
  std::string path_;
  UniqueFd fd_;
};

/// A file's text with surrounding white space trimmed, absent when it does not exist.
Result<std::optional<std::string>> trimmed_if_present(Result<std::string> data);

/// "/a/b" + "c" with exactly one slash between.
std::string join_path(std::string_view dir, std::string_view name);

/// Last component of a path ("renderD128" for "/dev/dri/renderD128").
std::string base_name(std::string_view path);

}  // namespace rgpu
