// Layer 3: what joins the driver to containers: the toolkit (only for the NVIDIA spec), the
// NVIDIA spec itself, and the Docker daemon's configuration.

#include <regex>
#include <set>
#include <sstream>

#include "cdi-gen/spec_index.h"
#include "core/joined.h"
#include "core/machine_paths.h"
#include "core/machine_program.h"
#include "core/structured_text.h"
#include "doctor/doctor.h"
#include "installers/dpkg_status.h"
#include "installers/nvidia_toolkit.h"
#include "installers/os_release.h"
#include "installers/package_manager.h"
#include "probe/hardware_identity.h"
#include "probe/sysfs_parsers.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::runtime};

std::optional<std::string> loaded_nvidia_version(const Facts& f) {
  const auto text = f.fs.read_optional("/proc/driver/nvidia/version");
  if (text && *text) return probe::parse_nvidia_version(**text);
  return std::nullopt;
}

std::optional<std::string> dpkg_version(const Facts& f, const std::string& package) {
  const auto& status = f.files.read(installers::kDpkgStatus);
  if (!status || !*status) return std::nullopt;
  return installers::dpkg_installed_version_in(**status, package);
}

// The toolkit as setup sees it: the machine's own package database (dpkg's status file, or rpm
// --root), so setup's "already installed" and this check never disagree.
std::optional<std::string> installed_toolkit(const Facts& f) {
  const auto& os_text = f.files.read("/etc/os-release");
  std::optional<installers::PackageFamily> family;
  if (os_text && *os_text) {
    if (auto known = installers::package_family(installers::parse_os_release(**os_text), "/etc/os-release"))
      family = *known;
  }
  if (!family || *family == installers::PackageFamily::apt || !f.runner)
    return dpkg_version(f, installers::kToolkitPackage);
  const auto pm = installers::make_package_manager(*family, f.fs.root().string());
  return installers::installed_toolkit(f.fs, *pm, *f.runner);
}

Check toolkit(const Facts& f) {
  if (!has_vendor(f.fresh, probe::Vendor::nvidia))
    return kCheck.skip("toolkit", no_gpu_observed(f, probe::Vendor::nvidia, "NVIDIA"));
  const auto version = installed_toolkit(f);
  const auto ctk = machine_program(f.fs, "nvidia-ctk");
  const std::string package = installers::kToolkitPackage;
  if (version && !installers::check_toolkit_version(version->substr(0, version->find_first_of("-~")))) {
    return kCheck.fail("toolkit",
                       package + " " + *version + " is installed, below " + installers::kMinimumToolkitVersion,
                       "older toolkits generate specs that miss devices or hooks this product relies on",
                       "run rediacc-gpu setup (it installs " + std::string(installers::kDefaultToolkitVersion) + ")");
  }
  if (ctk) {
    return kCheck
        .ok("toolkit", *ctk + " is installed" + (version ? " (" + *version + ")" : std::string()),
            Evidence(*ctk + (version ? ", the package database" : "")))
        .because("it generates the NVIDIA CDI spec", "");
  }
  if (version) {
    return kCheck.fail(
        "toolkit", package + " " + *version + " is recorded as installed, but nvidia-ctk is not on the machine",
        "nothing can generate or refresh the NVIDIA CDI spec", "reinstall " + package + ", then run rediacc-gpu setup");
  }
  return kCheck.fail("toolkit", "an NVIDIA GPU, but neither " + package + " nor nvidia-ctk is installed",
                     "nothing can generate or refresh the NVIDIA CDI spec",
                     "run rediacc-gpu setup (it installs the toolkit)");
}

// The driver versions in the spec's library paths (libcuda.so.550.54.15): the driver it was made for.
std::set<std::string> spec_driver_versions(const std::string& spec) {
  static const std::regex kLib(R"(lib(?:cuda|nvidia-ml)\.so\.(\d+\.\d+(?:\.\d+)?))");
  std::set<std::string> found;
  for (auto it = std::sregex_iterator(spec.begin(), spec.end(), kLib); it != std::sregex_iterator(); ++it) {
    found.insert((*it)[1]);
  }
  return found;
}

// Each node nvidia.yaml maps must reach an NVIDIA GPU now: after a card change that regenerated
// only our specs (the hot-plug rule), a stale nvidia.yaml can map another vendor's render node.
std::optional<Check> nvidia_spec_nodes(const Facts& f) {
  const probe::HardwareReader reader(f.fs);
  for (const auto& d : f.specs.devices) {
    if (d.spec_path != paths::kNvidiaSpec) continue;
    for (const auto& node : d.device_nodes) {
      if (!node.starts_with("/dev/dri/") && !(node.starts_with("/dev/nvidia") && !node.starts_with("/dev/nvidia-")))
        continue;
      if (node == "/dev/nvidiactl") continue;
      const auto id = reader.identity(node);
      if (id && (id->starts_with("GPU-") || id->starts_with("MIG-"))) continue;
      return kCheck.fail(check_id::kNvidiaSpec,
                         std::string(paths::kNvidiaSpec) + " maps " + node + " under " + d.qualified_name + ", which " +
                             (id ? "is " + *id + " now, no NVIDIA GPU" : "reaches no GPU now"),
                         "the spec is older than the last change of hardware: a container given that name gets "
                         "another card's node (the gate refuses grants whose hardware moved, not this spec)",
                         "regenerate it: systemctl start nvidia-cdi-refresh.service, or rediacc-gpu setup");
    }
  }
  return std::nullopt;
}

Check nvidia_spec(const Facts& f) {
  if (!has_vendor(f.fresh, probe::Vendor::nvidia))
    return kCheck.skip(check_id::kNvidiaSpec, no_gpu_observed(f, probe::Vendor::nvidia, "NVIDIA"));
  const auto spec = f.fs.read_optional(paths::kNvidiaSpec);
  if (!spec || !*spec) {
    return kCheck.fail(check_id::kNvidiaSpec, std::string(paths::kNvidiaSpec) + " is missing",
                       "no nvidia.com/gpu name exists: NVIDIA GPUs cannot be granted or requested",
                       "run rediacc-gpu setup (it generates the spec)");
  }
  const auto versions = spec_driver_versions(**spec);
  const auto loaded = loaded_nvidia_version(f);
  if (loaded && !versions.empty() && !versions.count(*loaded)) {
    return kCheck.fail(
        check_id::kNvidiaSpec,
        std::string(paths::kNvidiaSpec) + " was generated for driver " + *versions.begin() + ", the driver now is " +
            *loaded,
        "drift: containers get the old driver's libraries, which do not match the kernel module (CUDA fails with "
        "a driver/library version mismatch)",
        "run rediacc-gpu setup (it regenerates the spec for the driver now loaded)");
  }
  if (auto nodes = nvidia_spec_nodes(f)) return *nodes;
  if (versions.empty()) {
    return kCheck.warn(check_id::kNvidiaSpec,
                       std::string(paths::kNvidiaSpec) +
                           " maps NVIDIA GPUs' nodes, but names no versioned driver library (libcuda.so.N), so which "
                           "driver it was made for cannot be told",
                       "nvidia-ctk writes those paths: this spec was made otherwise, or by hand",
                       "regenerate it with rediacc-gpu setup");
  }
  return kCheck.ok(check_id::kNvidiaSpec,
                   std::string(paths::kNvidiaSpec) +
                       (loaded ? " names driver " + *loaded + "'s libraries, as loaded,"
                               : " names driver " + *versions.begin() + "'s libraries,") +
                       " and its nodes reach NVIDIA GPUs",
                   Evidence(std::string(paths::kNvidiaSpec) + (loaded ? ", /proc/driver/nvidia/version" : "") +
                            ", each node's device in /sys"));
}

Check shadowing_spec(const Facts& f) {
  if (f.fs.kind("/var/run/cdi/nvidia.yaml") != NodeKind::file) {
    return kCheck.ok("var-run-cdi", "no /var/run/cdi/nvidia.yaml", Evidence("/var/run/cdi"));
  }
  return kCheck.warn(
      "var-run-cdi", "/var/run/cdi/nvidia.yaml exists",
      "/var/run/cdi takes precedence over /etc/cdi: that spec, not ours, decides what nvidia.com/gpu names reach",
      "run rediacc-gpu setup (it points nvidia-cdi-refresh at /etc/cdi and removes that file)");
}

Check refresh_wired(const Facts& f) {
  if (!machine_program(f.fs, "nvidia-ctk")) {
    return kCheck.skip("refresh-wired", "the toolkit is not installed");
  }
  // The drop-in names an environment file; that file is what says where the refresh writes.
  const std::string dropin = "/etc/systemd/system/nvidia-cdi-refresh.service.d/50-rediacc-gpu.conf";
  const auto unit = f.fs.read_optional(dropin);
  std::string env_file;
  if (unit && *unit) {
    std::istringstream lines(**unit);
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with("EnvironmentFile=")) env_file = line.substr(16);
    }
    if (!env_file.empty() && env_file.front() == '-') env_file.erase(0, 1);
  }
  // The file's last assignment is the one systemd keeps.
  const std::string variable = "NVIDIA_CTK_CDI_OUTPUT_FILE_PATH=";
  const std::string wanted = variable + paths::kNvidiaSpec;
  const auto env = env_file.empty() ? std::nullopt : f.fs.read_optional(env_file).value_or(std::nullopt);
  std::string set;
  std::istringstream env_lines(env.value_or(""));
  for (std::string line; std::getline(env_lines, line);) {
    if (line.starts_with(variable)) set = line;
  }
  if (set == wanted) {
    return kCheck.ok("refresh-wired", std::string("nvidia-cdi-refresh writes ") + paths::kNvidiaSpec,
                     Evidence(dropin + " and the " + env_file + " it names"));
  }
  return kCheck.warn("refresh-wired",
                     !unit || !*unit    ? "nvidia-cdi-refresh is not redirected to /etc/cdi (no " + dropin + ")"
                     : env_file.empty() ? dropin + " names no EnvironmentFile"
                                        : env_file + " does not set " + wanted,
                     "the package's refresh writes /var/run/cdi/nvidia.yaml, which shadows ours",
                     "run rediacc-gpu setup");
}

// One daemon configuration's word on runtimes: the nvidia runtime injects GPUs from environment
// variables (an image's own ENV included), which no request shows the gate.
std::optional<std::string> runtime_problem(const nlohmann::json& c, const std::string& path) {
  const bool nvidia = c.contains("runtimes") && c["runtimes"].is_object() && c["runtimes"].contains("nvidia");
  const std::string fallback = c.value("default-runtime", std::string());
  if (!fallback.empty() && fallback != "runc") return path + " makes \"" + fallback + "\" the default runtime";
  if (nvidia) return path + " configures an nvidia runtime";
  return std::nullopt;
}

// Every configuration a daemon here runs with (/etc/docker/daemon.json and each repository
// daemon's --config-file), and what each daemon that answered says its default runtime is.
Check docker_daemon(const Facts& f) {
  const auto configs = docker::daemon_config_paths(f.daemons);
  std::vector<std::string> problems, read;
  for (const auto& path : configs) {
    const auto& text = f.files.read(path);
    if (!text || !*text) continue;
    auto config = parse_json(**text, path);
    if (!config || !config->is_object()) {
      return kCheck.fail("docker-daemon", path + " does not parse", "dockerd refuses to start with it",
                         "fix the file's JSON");
    }
    read.push_back(path);
    if (auto p = runtime_problem(*config, path)) problems.push_back(*p);
    const auto& c = *config;
    if (c.contains("features") && c["features"].is_object() && c["features"].value("cdi", true) == false) {
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

// Names that a spec in a directory Docker also reads (and prefers) defines a second time.
std::vector<std::string> shadowing_specs(const Facts& f) {
  std::set<std::string> ours;
  for (const auto& d : f.specs.devices) ours.insert(d.qualified_name);
  if (f.grants) {
    for (const auto& g : f.grants->grants) ours.insert(g.device);
  }
  std::vector<std::string> found;
  std::set<std::string> seen_dirs;
  for (const char* dir : {paths::kDockerRunCdiDir, paths::kPodmanRunCdiDir}) {
    const auto real = f.fs.resolve(dir);
    if (!real || !seen_dirs.insert(*real).second) continue;
    const auto names = f.fs.list_dir(dir);
    if (!names) continue;
    for (const auto& name : *names) {
      const auto ext = name.substr(name.find_last_of('.') + 1);
      if (name.find('.') == std::string::npos || (ext != "json" && ext != "yaml")) continue;
      const std::string path = join_path(dir, name);
      const auto devices =
          f.fs.read_file(path).and_then([&](const std::string& text) { return cdi::parse_spec(text, path); });
      if (!devices) continue;
      std::string clash;
      for (const auto& d : *devices) {
        if (ours.count(d.qualified_name)) clash += (clash.empty() ? "" : ", ") + d.qualified_name;
      }
      if (!clash.empty()) found.push_back(path + " (" + clash + ")");
    }
  }
  return found;
}

// Docker 25+ reads /etc/cdi and /var/run/cdi unless cdi-spec-dirs says otherwise, and a spec in
// /var/run/cdi wins: whoever writes there redefines what a granted name reaches.
Check spec_dirs(const Facts& f, const std::optional<std::pair<int, int>>& release) {
  if (!release || *release < std::make_pair(25, 0))
    return kCheck.skip("cdi-spec-dirs", "no Docker that reads CDI specs (25 or later) is installed");
  std::set<std::string> configs;
  for (const auto& d : f.daemons) configs.insert(d.config_path());
  if (configs.empty()) configs.insert("/etc/docker/daemon.json");
  std::vector<std::string> problems;
  for (const auto& path : configs) {
    const auto& text = f.files.read(path);
    const auto config = text && *text ? parse_json(**text, path) : Result<nlohmann::json>(nlohmann::json());
    if (!config) continue;  // docker-daemon reports a file that does not parse
    const auto dirs =
        config->is_object() && config->contains("cdi-spec-dirs") ? (*config)["cdi-spec-dirs"] : nlohmann::json();
    if (!dirs.is_array()) {
      problems.push_back(path + " sets no cdi-spec-dirs, so dockerd also reads /var/run/cdi");
      continue;
    }
    std::string others;
    bool etc_cdi = false;
    for (const auto& d : dirs) {
      const std::string dir = d.is_string() ? d.get<std::string>() : d.dump();
      if (dir == paths::kCdiSpecDir) {
        etc_cdi = true;
      } else {
        others += (others.empty() ? "" : ", ") + dir;
      }
    }
    if (!others.empty()) problems.push_back(path + " lets dockerd read " + others);
    if (!etc_cdi) problems.push_back(path + " keeps dockerd from /etc/cdi, the specs grants are checked against");
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

// Docker's major.minor from the installed package's version ("5:28.1.1-1~debian.12", "20.10.24+dfsg1-1").
std::optional<std::pair<int, int>> docker_release(const std::string& version) {
  static const std::regex kRelease(R"(^(?:\d+:)?(\d+)\.(\d+))");
  std::smatch m;
  if (!std::regex_search(version, m, kRelease)) return std::nullopt;
  return std::make_pair(std::stoi(m[1]), std::stoi(m[2]));
}

struct InstalledDocker {
  std::string package;  ///< empty when none is
  std::string version;
  std::optional<std::pair<int, int>> release;
};

// Which Docker package dpkg records as installed.
InstalledDocker installed_docker(const Facts& f) {
  for (const char* candidate : {"docker-ce", "docker.io", "moby-engine"}) {
    if (auto version = dpkg_version(f, candidate)) return {candidate, *version, docker_release(*version)};
  }
  return {};
}

// Which Docker the machine has, from dpkg, and whether it attaches CDI devices: from 25.0 with
// "features": {"cdi": true}, on by default from 28.2.
Check docker_cdi(const Facts& f) {
  const auto docker = installed_docker(f);
  const auto& release = docker.release;
  if (!release) return kCheck.skip("docker-cdi", "no Docker package recorded by dpkg");
  const std::string seen = docker.package + " " + docker.version;
  if (*release < std::make_pair(25, 0)) {
    return kCheck.fail("docker-cdi", seen + " predates CDI",
                       "dockerd cannot attach CDI devices: every granted request fails at create",
                       "install Docker 25 or later (28.2 or later has CDI on)");
  }
  if (*release < std::make_pair(28, 2)) {
    const auto& text = f.files.read("/etc/docker/daemon.json");
    auto config =
        text && *text ? parse_json(**text, "/etc/docker/daemon.json") : Result<nlohmann::json>(nlohmann::json());
    const bool on = config && config->is_object() && config->contains("features") &&
                    (*config)["features"].is_object() && (*config)["features"].value("cdi", false);
    if (!on) {
      return kCheck.fail("docker-cdi", seen + " without \"features\": {\"cdi\": true}",
                         "Docker 25.0 to 28.1 attach CDI devices only with the feature on",
                         "add \"features\": {\"cdi\": true} to /etc/docker/daemon.json and restart dockerd");
    }
  }
  // The package's version and daemon.json say it can; daemon-cdi asks the running daemons.
  return kCheck.ok("docker-cdi", seen + " attaches CDI devices, by its version and /etc/docker/daemon.json",
                   Evidence("dpkg's status, /etc/docker/daemon.json"));
}

}  // namespace

std::vector<Check> runtime_checks(const Facts& f) {
  return {toolkit(f),         nvidia_spec(f), shadowing_spec(f), refresh_wired(f),
          docker_daemon(f),   docker_cdi(f),  daemon_cdi(f),     spec_dirs(f, installed_docker(f).release),
          daemon_spec_dirs(f)};
}

}  // namespace rgpu::doctor
