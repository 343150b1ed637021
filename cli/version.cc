#include "cli/version.h"

namespace rgpu::cli {

const char* version_text() { return RGPU_VERSION; }

}  // namespace rgpu::cli
