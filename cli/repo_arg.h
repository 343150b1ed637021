#pragma once
// The repository a command's --repo names.

#include <string>

#include "core/result.h"
#include "core/root_fs.h"

namespace rgpu::cli {

/// The repository a command names, as "name" or "name@machine" (the machine being this one).
Result<std::string> repo_of(const RootFs& fs, const std::string& written);

}  // namespace rgpu::cli
