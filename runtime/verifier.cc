#include "runtime/verifier.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>

#include "core/host_policy.h"
#include "core/split.h"
#include "core/state_paths.h"
#include "docker/engine_paths.h"
#include "docker/repo_plugin.h"
#include "docker/running_daemons.h"
#include "gate/live_world.h"
#include "runtime/bind_sources.h"
#include "runtime/container_daemon.h"
#include "runtime/exec_bounds.h"
#include "runtime/granted_edits.h"
#include "runtime/oci_config.h"
#include "runtime/runc_command.h"

namespace rgpu::runtime {
namespace {

namespace fs = std::filesystem;

bool executable(const std::string& p) {
  struct ::stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

// Where runc's errors go: the log it was given (containerd's shim reads the last error there and
// dockerd prints it), else standard error.
void say(const RuncCommand& c, const std::string& message) {
  if (!c.log.empty()) {
    char stamp[64];
    const std::time_t now = std::time(nullptr);
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    const std::string line = c.json_log
                                 ? nlohmann::json{{"level", "error"}, {"msg", message}, {"time", stamp}}.dump() + "\n"
                                 : "level=error msg=" + nlohmann::json(message).dump() + "\n";
    UniqueFd log(::open(c.log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
    if (log && ::write(log.get(), line.data(), line.size()) == static_cast<ssize_t>(line.size())) return;
  }
  const std::string line = "rediacc-gpu runc: " + message + "\n";
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, line.data(), line.size());
}

std::string refusal_of(const Error& e) { return "refused: " + e.message + "."; }

// OCI's namespace names as /proc/PID/ns names them.
std::string proc_ns_name(const std::string& type) {
  if (type == "network") return "net";
  if (type == "mount") return "mnt";
  return type;
}

struct Judged {
  std::optional<std::string> refusal;
  std::optional<Staging> staging;
};

// Joined namespaces: each opened now, judged by what it is (the daemon's own, the host's, or not),
// and handed to runc as the held descriptor.
std::optional<std::string> hold_namespaces(OciConfig& config, Staging& staging) {
  auto& list = config.document["linux"]["namespaces"];
  for (size_t i = 0; i < config.model.namespaces.size(); ++i) {
    auto& n = config.model.namespaces[i];
    if (!n.path) continue;
    UniqueFd fd(::open(n.path->c_str(), O_RDONLY | O_CLOEXEC));
    struct ::stat theirs {
    }, ours{};
    if (!fd || ::fstat(fd.get(), &theirs) != 0)
      return "refused: the " + n.type + " namespace at " + *n.path +
             " the container would join is gone; start it again.";
    const std::string own = "/proc/self/ns/" + proc_ns_name(n.type);
    n.joins_host = ::stat(own.c_str(), &ours) != 0 || (theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino);
    if (i < list.size()) list[i]["path"] = staging.hold(std::move(fd));
  }
  return std::nullopt;
}

// On the host's network, which every repository's services share, CAP_NET_RAW's packet and raw
// sockets read every repository's loopback traffic: taken from the container where it is made.
void drop_raw_sockets(OciConfig& config) {
  if (!admission::on_host_network(config.model)) return;
  auto& caps = config.document["process"]["capabilities"];
  if (!caps.is_object()) return;
  for (auto& [set, list] : caps.items()) {
    if (!list.is_array()) continue;
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& cap : list) {
      if (cap != "CAP_NET_RAW") kept.push_back(cap);
    }
    list = std::move(kept);
  }
}

// A checkpoint's images (containerd unpacks them into a directory of its own) are read by CRIU as
// root: only a directory nobody but root could have written.
std::optional<std::string> judge_images(const RuncCommand& c) {
  for (const auto* dir : {&c.image_path, &c.work_path}) {
    if (dir->empty()) continue;
    for (fs::path p = *dir; !p.empty(); p = p.parent_path()) {
      struct ::stat st {};
      const bool sticky_parent = p != fs::path(*dir);  // /tmp may hold a root-owned directory
      if (::lstat(p.c_str(), &st) != 0 || S_ISLNK(st.st_mode) || st.st_uid != 0 ||
          ((st.st_mode & 022) != 0 && !(sticky_parent && (st.st_mode & S_ISVTX))))
        return "refused: the checkpoint at " + *dir + " lies where others than root could have written (" + p.string() +
               "); restore only the daemon's own checkpoints.";
      if (p == p.parent_path()) break;
    }
  }
  return std::nullopt;
}

// The bundle's config.json replaced whole (a temporary file renamed over it), without the fsyncs of
// the files we own: a bundle lives as long as its container and is made anew at every start.
Result<void> replace_config(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".rediacc-gpu";
  UniqueFd out(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!out || ::write(out.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()) ||
      ::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(temporary.c_str());
    return fail("cannot write " + path + " for runc: " + why);
  }
  return {};
}

std::optional<std::string> repository_of(const RootFs& fs, const ContainerDaemon& d, std::string& repo) {
  const auto served = docker::plugin_repo(fs, d.daemon);
  const char* env = std::getenv("REDIACC_GPU_REPO");
  if (served && env && *env && *served != env)
    return "refused: the daemon runs behind the plugin of repository \"" + *served +
           "\" but the verifier was started for \"" + env + "\"; setup wires both (rediacc-gpu setup).";
  if (!served && !(env && *env))
    return std::string("refused: dockerd ") + d.daemon.pid +
           " runs behind no rediacc-gpu plugin, so the verifier cannot tell whose container this is; start it behind "
           "its repository's plugin (rediacc-gpu setup wires renet's daemons).";
  repo = served ? *served : env;
  return std::nullopt;
}

bool apparmor_enabled(const RootFs& fs) {
  const auto text = fs.read_optional("/sys/module/apparmor/parameters/enabled");
  return text && *text && (**text == "Y" || **text == "y");
}

Judged judge(const RootFs& fs, const RuncCommand& c) {
  auto daemon = container_daemon(fs, c);
  if (!daemon) return {refusal_of(daemon.error()), {}};
  std::string repo;
  if (auto bad = repository_of(fs, *daemon, repo)) return {bad, {}};
  const auto recorded = read_host_policy(fs);
  if (!recorded) return {refusal_of(recorded.error()), {}};
  admission::ContainerAllowance allowance{
      .policy = effective_rules(recorded),
      .daemon_hook_path = "/proc/" + daemon->daemon.pid + "/exe",
      .daemon_exec_root = daemon->exec_root,
      .apparmor_enabled = apparmor_enabled(fs),
      .private_cgroupns_default = docker::default_cgroupns_mode(fs, daemon->daemon) == "private"};
  if (auto added = add_granted_edits(fs, repo, allowance); !added) return {refusal_of(added.error()), {}};
  const std::string bundle = c.bundle.empty() ? fs::current_path().string() : c.bundle;
  const auto text = fs.read_file(bundle + "/config.json");
  if (!text) return {refusal_of(text.error()), {}};
  auto config = read_oci_config(*text, c.id);
  if (!config) return {refusal_of(config.error()), {}};
  auto staging = Staging::open(state::kRuntimeStagingDir, c.id);
  if (!staging) return {refusal_of(staging.error()), {}};
  if (auto bad = hold_namespaces(*config, *staging)) return {bad, {}};
  if (auto bad = admission::judge_container(config->model, allowance)) return {bad, {}};
  if (auto bad = judge_images(c)) return {bad, {}};
  // The gate's world, for the binds of host directories: made only when the container has one (it
  // reads every engine running on the machine).
  std::optional<gate::LiveWorld> world;
  const admission::BindScope scope{.roots = *allowance.policy.bind_roots, .repo = repo};
  const auto open_world = [&]() -> Result<gate::LiveWorld*> {
    if (world) return &*world;
    std::string host = docker::configured_docker_host(fs, repo);
    if (host.empty()) {
      if (const auto socket = docker::unix_host(fs, daemon->daemon)) host = "unix://" + *socket;
    }
    RGPU_TRY_ASSIGN(auto containers, gate::daemon_containers(host, "the verifier reads no stored container"));
    world.emplace(fs, repo, host, std::move(containers));
    return &*world;
  };
  const BindPlaces places{.daemon = *daemon,
                          .allowance = allowance,
                          .judge = [&](const admission::HostBind& b) -> admission::Refusal {
                            auto w = open_world();
                            if (!w) return refusal_of(w.error());
                            return (*w)->judge_host_path(b, scope);
                          },
                          .roots = [&]() -> std::vector<admission::FilledRoot> {
                            auto w = open_world();
                            return w ? (*w)->bind_roots(scope) : std::vector<admission::FilledRoot>{};
                          }};
  const auto placed = place_binds(config->model, places, *staging);
  if (placed.refusal) return {placed.refusal, {}};
  for (const auto& [index, source] : placed.staged) config->document["mounts"][index]["source"] = source;
  drop_raw_sockets(*config);
  if (auto written = replace_config(bundle + "/config.json", config->document.dump()); !written)
    return {refusal_of(written.error()), {}};
  return {std::nullopt, std::move(*staging)};
}

std::vector<char*> c_args(std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (auto& a : argv) out.push_back(a.data());
  out.push_back(nullptr);
  return out;
}

// runc run as a child and waited for (what the verifier staged stays until runc is done with it):
// runc's exit status.
int run_and_wait(const RuncCommand& c, const std::string& runc, std::vector<std::string>& argv) {
  auto c_argv = c_args(argv);
  const pid_t child = ::fork();
  if (child == 0) {
    ::execv(runc.c_str(), c_argv.data());
    _exit(127);
  }
  int status = 0;
  while (child > 0 && ::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (child < 0) {
    say(c, std::string("refused: cannot start runc: ") + std::strerror(errno) + ".");
    return 1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// argv with exec's --process naming `path` instead (every spelling runc reads).
void name_process(std::vector<std::string>& argv, const std::string& path) {
  for (size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] == "--process" || argv[i] == "-p") {
      if (i + 1 < argv.size()) argv[i + 1] = path;
      return;
    }
    if (argv[i].starts_with("--process=")) {
      argv[i] = "--process=" + path;
      return;
    }
  }
}

// runc exec: the process bounded by what its container was made with, then runc's own.
int exec_bounded(const RuncCommand& c, const std::string& runc, std::vector<std::string>& argv) {
  const RootFs fs("/");
  const auto bounding = container_bounding_set(fs, c);
  const auto spec = bounding ? bounded_process(fs, c, *bounding)
                             : Result<std::optional<std::string>>(tl::unexpected(bounding.error()));
  if (!spec) {
    say(c, refusal_of(spec.error()));
    return 1;
  }
  if (!*spec) {
    auto c_argv = c_args(argv);
    ::execv(runc.c_str(), c_argv.data());
    say(c, std::string("refused: cannot run ") + runc + ": " + std::strerror(errno) + ".");
    return 1;
  }
  // The bounded copy lies where only root can go until runc has read it.
  auto staging = Staging::open(state::kRuntimeStagingDir, c.id + "-exec");
  auto copy = staging ? staging->write(**spec) : Result<std::string>(tl::unexpected(staging.error()));
  if (!copy) {
    say(c, refusal_of(copy.error()));
    return 1;
  }
  name_process(argv, *copy);
  return run_and_wait(c, runc, argv);
}

}  // namespace

std::string real_runc(const std::string& argv0, const std::string& path) {
  const std::string own_dir = argv0.find('/') == std::string::npos ? "" : fs::path(argv0).parent_path().string();
  bool skipped_first = !own_dir.empty();
  for (const auto& dir : split(path, ':', EmptyFields::drop)) {
    const std::string candidate = dir + "/runc";
    if (!executable(candidate)) continue;
    if (!skipped_first) {
      skipped_first = true;
      continue;
    }
    std::error_code ec;
    if (!own_dir.empty() && fs::equivalent(dir, own_dir, ec)) continue;
    return candidate;
  }
  return {};
}

int run_as_runc(const std::vector<std::string>& argv) {
  std::vector<std::string> args(argv.begin() + (argv.empty() ? 0 : 1), argv.end());
  auto command = parse_runc_command(args);
  RuncCommand none;
  const char* path = std::getenv("PATH");
  const std::string runc = real_runc(argv.empty() ? "runc" : argv.front(), path ? path : "");
  if (runc.empty()) {
    say(command ? *command : none,
        "refused: no runc follows the verifier on PATH, so nothing can run the container; install runc.");
    return 1;
  }
  if (!command) {
    say(none, refusal_of(command.error()));
    return 1;
  }
  std::vector<std::string> exec_argv = argv;
  if (exec_argv.empty()) exec_argv.push_back("runc");
  exec_argv.front() = "runc";
  if (execs_in_a_container(*command)) return exec_bounded(*command, runc, exec_argv);
  auto c_argv = c_args(exec_argv);
  if (!makes_a_container(*command)) {
    ::execv(runc.c_str(), c_argv.data());
    say(*command, std::string("refused: cannot run ") + runc + ": " + std::strerror(errno) + ".");
    return 1;
  }
  const RootFs fs("/");
  auto judged = judge(fs, *command);
  if (judged.refusal) {
    say(*command, *judged.refusal);
    return 1;
  }
  // The staged sources stay mounted until runc has made the container.
  return run_and_wait(*command, runc, exec_argv);
}

}  // namespace rgpu::runtime
