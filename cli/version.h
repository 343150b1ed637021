#pragma once
// The version --version prints. Its own file, the one compiled with the commit in it, so a new
// commit recompiles this line alone.

namespace rgpu::cli {

/// "0.1.0 (commit 0123456789ab)" in a git checkout, else "0.1.0".
const char* version_text();

}  // namespace rgpu::cli
