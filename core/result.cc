#include "core/result.h"

#include <cerrno>

namespace rgpu {

bool is_not_found(const Error& error) { return error.sys_errno == ENOENT || error.sys_errno == ENOTDIR; }

}  // namespace rgpu
