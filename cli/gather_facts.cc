#include "cli/gather_facts.h"

#include <utility>

#include "facts/gather.h"
#include "probe/machine_probe.h"
#include "usage/grant_use.h"

namespace rgpu::cli {
namespace {

// grant-idle reads a write that failed as the record it cannot read, and metrics leaves the
// last-used series out, as when the file does not parse.
void record_grant_use(FileSink& sink, facts::Facts& f) {
  if (!f.last_use_changed || !f.last_use || !*f.last_use) return;
  if (auto written = usage::write_use_record(sink, **f.last_use); !written)
    f.last_use = tl::unexpected(written.error());
}

}  // namespace

Result<facts::Facts> gather_facts(const RootFs& fs, CommandRunner& runner, FileSink& sink, const FactsWanted& wanted) {
  RGPU_TRY_ASSIGN(auto report, probe::probe_machine(fs));
  auto gathered = facts::gather({.fs = fs,
                                 .runner = runner,
                                 .probe = std::move(report),
                                 .docker_host = wanted.docker_host,
                                 .usage = wanted.usage});
  record_grant_use(sink, gathered);
  return gathered;
}

}  // namespace rgpu::cli
