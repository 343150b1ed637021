#include "core/result.h"

#include <cerrno>

namespace rgpu {

bool is_not_found_errno(int e) { return e == ENOENT || e == ENOTDIR; }

bool is_not_found(const Error& error) { return is_not_found_errno(error.sys_errno); }

}  // namespace rgpu
