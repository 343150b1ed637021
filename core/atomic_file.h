#pragma once
// Files we own are replaced whole or not at all: temp file in the same directory, fsync,
// rename, fsync of the directory. A reader never sees half a file.

#include <sys/types.h>
#include <optional>
#include <string>
#include <string_view>

#include "core/change.h"
#include "core/result.h"
#include "core/root_fs.h"

namespace rgpu {

/// Writes `content` to the machine path, creating missing parent directories (0755).
/// Identical content is left alone (same bytes, same mtime) and reported `unchanged`.
/// Refuses to write through a symlink at the target.
Result<Change> write_file_atomic(const RootFs& fs, std::string_view machine_path, std::string_view content,
                                 mode_t mode = 0644);

/// Makes the machine path a symbolic link to `target` (kept as written: a relative target is read
/// from the link's directory), creating missing parent directories (0755); a link to elsewhere is
/// replaced in one rename, one already pointing there is `unchanged`. Refuses to replace anything
/// that is not a symbolic link.
Result<Change> write_link_atomic(const RootFs& fs, std::string_view machine_path, std::string_view target);

/// The target of the symbolic link at the machine path (its last component not followed); absent
/// when it is not a link.
std::optional<std::string> read_link(const RootFs& fs, std::string_view machine_path);

/// Removes the machine path if it exists; `unchanged` when it did not.
Result<Change> remove_file(const RootFs& fs, std::string_view machine_path);

}  // namespace rgpu
