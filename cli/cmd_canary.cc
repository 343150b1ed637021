// rediacc-gpu canary: one short container per name through a repository's own daemon, judged
// from its own output, and the result kept for doctor, metrics and the next run.

#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "canary/canary.h"
#include "canary/record.h"
#include "cli/command.h"
#include "cli/output_format.h"
#include "cli/render.h"
#include "cli/repo_arg.h"
#include "docker/repo_plugin.h"
#include "docker/running_daemons.h"
#include "grants/store.h"

namespace rgpu::cli {
namespace {

/// The image a canary uses when --image is not given: the variable, else busybox.
constexpr const char* kImageVariable = "REDIACC_GPU_CANARY_IMAGE";

struct CanaryFlags {
  std::string repo;
  std::vector<std::string> devices;
  std::string image;
  std::string docker_host;
  OutputFormat output = OutputFormat::table;
  int timeout_s = 120;
};

Result<std::vector<std::string>> devices_of(const RootFs& fs, const CanaryFlags& f, const std::string& repo) {
  if (!f.devices.empty()) return f.devices;
  RGPU_TRY_ASSIGN(auto grants, grants::load_grants(fs));
  std::vector<std::string> out;
  for (const auto& g : grants.grants) {
    if (g.repo == repo) out.push_back(g.device);
  }
  if (out.empty())
    return fail("repository " + repo +
                " holds no grant, so there is nothing to run a canary with; grant it a name "
                "first (rediacc-gpu grant " +
                repo + " --device NAME), or name one with --device");
  return out;
}

Result<std::string> daemon_of(const RootFs& fs, const CanaryFlags& f, const std::string& repo) {
  if (!f.docker_host.empty()) return f.docker_host;
  const auto hosts = docker::repo_daemon_addresses(fs, docker::running_docker_daemons(fs));
  if (const auto found = hosts.find(repo); found != hosts.end()) return found->second;
  return fail("no daemon of repository " + repo + " is known: name it with --docker-host, or write " +
              fs.host_path(docker::plugin_environment_path(repo)).string() +
              " with REDIACC_GPU_DOCKER_HOST=unix:///path/to/its/docker.sock");
}

std::string seconds_text(double s) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << s << " s";
  return out.str();
}

void print(const std::vector<canary::CanaryResult>& results, OutputFormat output) {
  if (output == OutputFormat::json) {
    auto list = nlohmann::ordered_json::array();
    for (const auto& r : results) {
      nlohmann::ordered_json one = {{"repository", r.repo}};
      one.update(canary::canary_json(r));
      list.push_back(std::move(one));
    }
    std::cout << nlohmann::ordered_json{{"schema", 1}, {"results", list}}.dump(2) << "\n";
    return;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : results)
    rows.push_back({r.device, r.ok ? "ok" : "FAILED at " + r.stage, seconds_text(r.seconds), r.detail});
  std::cout << render_table({"DEVICE", "RESULT", "TOOK", "DETAIL"}, rows);
}

int run_canary(const GlobalOptions& global, const CanaryFlags& f) {
  RootFs fs(global.root);
  auto repo = repo_of(fs, f.repo);
  if (!repo) return report_usage(repo.error());
  auto devices = devices_of(fs, f, *repo);
  if (!devices) return report_failure(devices.error());
  auto host = daemon_of(fs, f, *repo);
  if (!host) return report_failure(host.error());
  const char* from_env = std::getenv(kImageVariable);
  const std::string image = !f.image.empty() ? f.image : from_env && *from_env ? from_env : "busybox";
  const auto specs = cdi::read_spec_index(fs);
  std::vector<canary::CanaryResult> results;
  for (const auto& device : *devices) {
    canary::CanaryRequest request{*repo, device, image, *host, std::chrono::seconds(f.timeout_s)};
    results.push_back(canary::run_canary(fs, specs, request));
  }
  MachineFileSink sink(fs);
  auto kept = canary::record_canary(sink, fs, *repo, results);
  if (!kept) print_warning("the result was not kept: " + kept.error().message);
  print(results, f.output);
  const bool all_ok = std::all_of(results.begin(), results.end(), [](const auto& r) { return r.ok; });
  return all_ok ? kExitOk : kExitFailure;
}

}  // namespace

Runner attach_canary(CLI::App& sub, GlobalOptions& global) {
  add_root_option(sub, global);
  auto f = std::make_shared<CanaryFlags>();
  sub.add_option("--repo", f->repo, "The repository whose daemon runs the canary")->required();
  sub.add_option("--device", f->devices, "A CDI name it holds (repeat for more); default: every name it holds");
  sub.add_option(
      "--image", f->image,
      std::string("An image its daemon has, with sh and ls; default: $") + kImageVariable + ", else busybox");
  add_docker_host_option(
      sub, f->docker_host,
      "the repository's; default: its plugin's environment file, or the daemon running behind its plugin");
  sub.add_option("--timeout", f->timeout_s, "Seconds each step may take")->check(CLI::Range(1, 3600));
  add_output_option(sub, f->output, {OutputFormat::table, OutputFormat::json}, "table or json");
  return [&global, f] { return run_canary(global, *f); };
}

}  // namespace rgpu::cli
