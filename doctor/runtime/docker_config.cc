// Layer 3, Docker as installed and configured: its package's version, each daemon's configuration
// (runtimes, CDI on or off), and the spec directories it reads besides /etc/cdi.

#include <set>

#include "core/joined.h"
#include "core/machine_paths.h"
#include "core/structured_text.h"
#include "core/version.h"
#include "docker/cdi_spec_dirs.h"
#include "doctor/runtime/runtime_checks.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::runtime};

// One daemon configuration's word on runtimes: the nvidia runtime injects GPUs from environment
// variables (an image's own ENV included), which no request shows the gate.
std::optional<std::string> runtime_problem(const nlohmann::json& c, const std::string& path) {
  const bool nvidia = c.contains("runtimes") && c["runtimes"].is_object() && c["runtimes"].contains("nvidia");
  const std::string fallback = c.value("default-runtime", std::string());
  if (!fallback.empty() && fallback != "runc") return path + " makes \"" + fallback + "\" the default runtime";
  if (nvidia) return path + " configures an nvidia runtime";
  return std::nullopt;
}

// Names that a spec in a directory Docker also reads (and prefers) defines a second time.
std::vector<std::string> shadowing_specs(const Facts& f) {
  std::set<std::string> ours;
  for (const auto& d : f.specs.devices) ours.insert(d.qualified_name);
  if (f.grants) {
    for (const auto& g : f.grants->grants) ours.insert(g.device);
  }
  std::vector<std::string> found;
  for (const auto& spec : f.chain.docker.other_dir_specs) {
    std::string clash;
    for (const auto& name : spec.names) {
      if (ours.count(name)) clash += (clash.empty() ? "" : ", ") + name;
    }
    if (!clash.empty()) found.push_back(spec.path + " (" + clash + ")");
  }
  return found;
}

// A daemon configuration's JSON as read for this run; an empty one when the file is missing or
// unreadable (dockerd's defaults).
Result<nlohmann::json> config_json(const Facts& f, const std::string& path) {
  const auto& configs = f.chain.docker.configs;
  const auto text = configs.find(path);
  return text == configs.end() ? Result<nlohmann::json>(nlohmann::json()) : parse_json(text->second, path);
}

// Docker's major.minor from the installed package's version ("5:28.1.1-1~debian.12", "20.10.24+dfsg1-1"):
// its numbers alone, as a release candidate of 25.0 already reads CDI specs.
std::optional<Version> docker_release(const std::string& version) {
  const auto v = read_version(version);
  if (v.numbers.size() < 2) return std::nullopt;
  Version release;
  release.numbers = {v.numbers[0], v.numbers[1]};
  return release;
}

bool before(const Version& release, long major, long minor) {
  Version floor;
  floor.numbers = {major, minor};
  return compare(release, floor) < 0;
}

struct InstalledDocker {
  std::string seen;  ///< "docker.io 26.1.5+dfsg1-9", as the checks name it; empty when none is known
  std::string source;
  std::optional<Version> release;
};

// Which Docker the machine has, as its family installs it (facts::read_installed_docker).
InstalledDocker installed_docker(const Facts& f) {
  const auto& found = f.chain.installed_docker;
  if (!found) return {};
  return {found->name + " " + found->version, found->source, docker_release(found->version)};
}

// Docker 25+ reads /etc/cdi and /var/run/cdi unless cdi-spec-dirs says otherwise, and a spec in
// /var/run/cdi wins: whoever writes there redefines what a granted name reaches.
Check spec_dirs_of(const Facts& f, const std::optional<Version>& release) {
  if (!release || before(*release, 25, 0))
    return kCheck.skip("cdi-spec-dirs", "no Docker that reads CDI specs (25 or later) is installed");
  std::set<std::string> configs;
  for (const auto& d : f.daemons) configs.insert(d.config_path());
  if (configs.empty()) configs.insert(paths::kDockerDaemonConfig);
  std::vector<std::string> problems;
  for (const auto& path : configs) {
    const auto config = config_json(f, path);
    if (!config) continue;  // docker-daemon reports a file that does not parse
    const auto dirs = docker::configured_spec_dirs(*config);
    if (dirs.from == docker::SpecDirsFrom::defaults) {
      problems.push_back(path + " sets no cdi-spec-dirs, so dockerd also reads /var/run/cdi");
      continue;
    }
    if (const auto others = dirs.besides_etc_cdi(); !others.empty())
      problems.push_back(path + " lets dockerd read " + joined(others));
    if (!dirs.reads_etc_cdi())
      problems.push_back(path + " keeps dockerd from /etc/cdi, the specs grants are checked against");
  }
  const auto shadows = shadowing_specs(f);
  for (const auto& s : shadows) problems.push_back(s + " defines names /etc/cdi or a grant uses");
  if (problems.empty()) {
    return kCheck.ok("cdi-spec-dirs", "each daemon's configuration names /etc/cdi alone in cdi-spec-dirs",
                     Evidence(joined(std::vector<std::string>(configs.begin(), configs.end())) + ", " +
                              paths::kDockerRunCdiDir + ", " + paths::kPodmanRunCdiDir));
  }
  std::string seen;
  for (const auto& p : problems) seen += (seen.empty() ? "" : "; ") + p;
  return kCheck.fail(
      "cdi-spec-dirs", seen,
      "a spec in another directory dockerd reads (/var/run/cdi wins over /etc/cdi) redefines what a granted name "
      "reaches, and the gate never sees it",
      "set \"cdi-spec-dirs\": [\"/etc/cdi\"] in each repository daemon's daemon.json and restart it" +
          std::string(shadows.empty() ? "" : "; remove the specs named"));
}

}  // namespace

// Every configuration a daemon here runs with (/etc/docker/daemon.json and each repository
// daemon's --config-file), and what each daemon that answered says its default runtime is.
Check docker_daemon(const Facts& f) {
  const auto configs = docker::daemon_config_paths(f.daemons);
  std::vector<std::string> problems, read;
  for (const auto& path : configs) {
    const auto text = f.chain.docker.configs.find(path);
    if (text == f.chain.docker.configs.end()) continue;
    auto config = parse_json(text->second, path);
    if (!config || !config->is_object()) {
      return kCheck.fail("docker-daemon", path + " does not parse", "dockerd refuses to start with it",
                         "fix the file's JSON");
    }
    read.push_back(path);
    if (auto p = runtime_problem(*config, path)) problems.push_back(*p);
    if (docker::cdi_feature(*config) == false) {
      return kCheck.fail("docker-daemon", path + " turns CDI off (features.cdi: false)",
                         "dockerd cannot attach CDI devices: every granted request fails",
                         "set \"features\": {\"cdi\": true} (Docker 25.0 to 28.1 need it; 28.2 and later have it on)");
    }
  }
  for (const auto& a : f.answers) {
    if (!a.info.is_object() || !a.info.contains("DefaultRuntime") || !a.info["DefaultRuntime"].is_string()) continue;
    const auto runtime = a.info["DefaultRuntime"].get<std::string>();
    read.push_back("GET /info of " + a.label);
    if (runtime != "runc") problems.push_back(a.label + " runs \"" + runtime + "\" by default (GET /info)");
  }
  if (!problems.empty()) {
    return kCheck.fail(
        "docker-daemon", joined(problems, "; "),
        "the nvidia runtime injects GPUs from environment variables and annotations (an image's own ENV "
        "NVIDIA_VISIBLE_DEVICES=all included) that the gate never sees",
        "remove the nvidia runtime and default-runtime from the daemon's configuration and restart it; CDI names are "
        "the way to GPUs here");
  }
  if (read.empty()) {
    return kCheck.ok("docker-daemon", "no daemon configuration, so no nvidia runtime and runc by default",
                     Evidence("looked for " + joined(configs)));
  }
  return kCheck.ok("docker-daemon", "no configuration adds the nvidia runtime, and runc is the default runtime",
                   Evidence(joined(read)));
}

// Which Docker the machine has, and whether it attaches CDI devices: from 25.0 with
// "features": {"cdi": true}, on by default from 28.2.
Check docker_cdi(const Facts& f) {
  const auto docker = installed_docker(f);
  const auto& release = docker.release;
  if (!release) {
    return kCheck.skip("docker-cdi",
                       docker.seen.empty()
                           ? "no Docker package (dpkg, rpm) and no running dockerd says which Docker this is"
                           : docker.seen + " has no version to judge");
  }
  const std::string& seen = docker.seen;
  if (before(*release, 25, 0)) {
    return kCheck.fail("docker-cdi", seen + " predates CDI",
                       "dockerd cannot attach CDI devices: every granted request fails at create",
                       "install Docker 25 or later (28.2 or later has CDI on)");
  }
  if (before(*release, 28, 2)) {
    const auto config = config_json(f, paths::kDockerDaemonConfig);
    if (!config || !docker::cdi_feature(*config).value_or(false)) {
      return kCheck.fail(
          "docker-cdi", seen + " without \"features\": {\"cdi\": true}",
          "Docker 25.0 to 28.1 attach CDI devices only with the feature on",
          "add \"features\": {\"cdi\": true} to " + std::string(paths::kDockerDaemonConfig) + " and restart dockerd");
    }
  }
  // The package's version and daemon.json say it can; daemon-cdi asks the running daemons.
  return kCheck.ok("docker-cdi", seen + " attaches CDI devices, by its version and " + paths::kDockerDaemonConfig,
                   Evidence(docker.source + ", " + paths::kDockerDaemonConfig));
}

Check spec_dirs(const Facts& f) { return spec_dirs_of(f, installed_docker(f).release); }

}  // namespace rgpu::doctor
