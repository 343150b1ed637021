#include "cli/repo_arg.h"

#include "admission/grants.h"
#include "probe/probe.h"

namespace rgpu::cli {

Result<std::string> repo_of(const RootFs& fs, const std::string& written) {
  return admission::parse_repo(written, probe::machine_hostname(fs).value_or(""));
}

}  // namespace rgpu::cli
