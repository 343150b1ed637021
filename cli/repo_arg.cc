#include "cli/repo_arg.h"

#include "grants/grant_set.h"
#include "probe/probe.h"

namespace rgpu::cli {

Result<std::string> repo_of(const RootFs& fs, const std::string& written) {
  return grants::parse_repo(written, probe::machine_hostname(fs).value_or(""));
}

}  // namespace rgpu::cli
