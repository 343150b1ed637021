#include "cli/gather_facts.h"

#include "docker/images.h"
#include "grants/store.h"
#include "probe/inventory_file.h"
#include "setup/machine_probe.h"

namespace rgpu::cli {

Result<doctor::Facts> gather_facts(const RootFs& fs, CommandRunner& runner, const std::string& docker_host,
                                   const std::optional<usage::UsageOptions>& usage) {
  RGPU_TRY_ASSIGN(auto report, setup::probe_machine(fs));
  auto recorded = probe::read_inventory(fs);
  std::optional<probe::Inventory> inventory;
  std::optional<std::string> inventory_error;
  if (recorded && *recorded) inventory = (*recorded)->inventory;
  if (!recorded) inventory_error = recorded.error().message;
  doctor::Facts facts{fs,
                      report.inventory,
                      inventory,
                      inventory_error,
                      cdi::read_spec_index(fs),
                      grants::load_grants(fs),
                      docker::running_docker_daemons(fs),
                      report.warnings,
                      &runner};
  // The daemon named with --docker-host is asked too: layer 3 can then tell a Docker without CDI.
  std::vector<std::pair<std::string, std::string>> also;
  if (!docker_host.empty()) {
    if (auto socket = docker::docker_socket(docker_host)) also.emplace_back("the daemon at " + docker_host, *socket);
  }
  facts.answers = doctor::ask_daemons(fs, facts.daemons, also);
  doctor::gather_nvml(facts);
  if (usage) doctor::gather_usage(facts, std::chrono::system_clock::now(), *usage);
  return facts;
}

}  // namespace rgpu::cli
