#pragma once
// What runc is handed to bind is what the verifier checked: each source is opened beneath the
// directory it may come from without following a link anywhere on the way (openat2), cloned as a
// detached mount of that very directory (open_tree), and moved into a directory of the verifier's
// own, which only root can enter; the config names that mount, so a rename or a link swapped in
// after the check changes nothing runc mounts. Namespaces joined by path are held open the same way.

#include <string>
#include <string_view>
#include <vector>

#include "core/in_root_open.h"
#include "core/result.h"

namespace rgpu::runtime {

/// How a path beneath an anchor is opened.
struct Beneath {
  bool same_mount = false;  ///< refuse to cross into another mount on the way (a volume's _data)
};

/// `relative` opened O_PATH beneath the directory `dir`, no component a link and no ".." climbing
/// out; a directory, a file, a socket or a FIFO, never a device node; errno's sentence on failure
/// (ELOOP for a link on the way, EXDEV for a mount crossed, ENODEV for a device node).
Result<UniqueFd> open_beneath(int dir, std::string_view relative, Beneath how = {});

/// The absolute host path `path` opened O_PATH with no component a link: a place binds come from,
/// as the machine resolves it (a link swapped in since, a tenant's renamed directory, fails).
Result<UniqueFd> open_no_links(const std::string& path);

/// True when the object `fd` is, contains or lies inside the directory `dir` (a host path): a
/// directory renamed into a checked name after the check is still known by what it is.
bool same_or_related(int fd, const std::string& dir);

/// The staged mounts and held namespaces of one runc command; undone when it goes (the container
/// holds its own copies by then).
class Staging {
 public:
  /// A directory of its own for container `id` under `staging_root` (a host path: made a private
  /// tmpfs only root may enter when it is not one yet); the leftovers of verifiers that are gone
  /// are removed first.
  static Result<Staging> open(const std::string& staging_root, const std::string& id);
  Staging(Staging&&) noexcept;
  Staging& operator=(Staging&&) = delete;
  Staging(const Staging&) = delete;
  ~Staging();

  /// Mounts a detached clone of `source` (an O_PATH fd; its submounts too when `recursive`) in
  /// the directory and returns the path runc binds it from.
  Result<std::string> stage(const UniqueFd& source, bool recursive);
  /// Holds `ns` (an open namespace file) while this process lives: the path runc joins it by,
  /// /proc/PID/fd/N, which no process ID reused after the check can change.
  std::string hold(UniqueFd ns);
  /// Writes `text` to a file of the directory only root can enter, for runc to read in place of a
  /// file it was named (exec's process spec, bounded); its path.
  Result<std::string> write(const std::string& text);

 private:
  explicit Staging(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
  std::vector<std::string> mounted_;
  std::vector<std::string> written_;
  std::vector<UniqueFd> held_;
};

}  // namespace rgpu::runtime
