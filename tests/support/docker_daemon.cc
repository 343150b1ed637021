#include "tests/support/docker_daemon.h"
#include "tests/support/image_archive.h"

#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace bp = boost::process;
namespace fs = std::filesystem;

namespace rgpu::test {
namespace {

// Debian 12's own CLI (docker.io 20.10), which the README's test command installs: never one a
// build machine happens to carry elsewhere.
std::string docker_cli() { return "/usr/bin/docker"; }

}  // namespace

void refused_by_plugin(const RunResult& r, const std::string& plugin, const std::string& words) {
  INFO(r.out << r.err);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, Catch::Contains("authorization denied by plugin " + plugin + ": refused: "));
  CHECK_THAT(r.err, Catch::Contains(words));
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Polls running(): Boost 1.74's wait_for misses fast exits.
void stop(bp::child& child) {
  if (!child.valid() || !child.running()) return;
  ::kill(child.id(), SIGTERM);
  for (int i = 0; i < 300 && child.running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::error_code ec;
  if (child.running(ec)) ::kill(child.id(), SIGKILL);  // not terminate(): Boost 1.74's does not wait
  child.wait(ec);
}

std::string unique_name(const std::string& prefix) { return prefix + "-" + std::to_string(::getpid()); }

PluginProcess::PluginProcess(const std::string& name, const std::string& repo, const std::string& root,
                             const std::string& docker_host)
    : name_(name), socket_("/run/docker/plugins/" + name + ".sock") {
  const std::string log_path = (dir_.path() / "plugin.log").string();
  std::vector<std::string> args = {"authz-plugin", "--repo", repo, "--socket", socket_, "--root", root};
  if (!docker_host.empty()) args.insert(args.end(), {"--docker-host", docker_host});
  // Only --docker-host names the daemon here, never the caller's environment. (Boost 1.74's
  // bp::env[...] reads past a shorter variable's name: AddressSanitizer stops it.)
  ::unsetenv("REDIACC_GPU_DOCKER_HOST");
  child_ = bp::child(tool_path(), bp::args(args), bp::std_out > bp::null, bp::std_err > log_path);
  for (int i = 0; i < 100 && !fs::exists(socket_); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  INFO(log());
  REQUIRE(fs::exists(socket_));
}

PluginProcess::~PluginProcess() { stop(child_); }

std::string PluginProcess::log() const { return slurp(dir_.path() / "plugin.log"); }

std::string DockerDaemon::host_in(const fs::path& dir) { return "unix://" + (dir / "docker.sock").string(); }

DockerDaemon::DockerDaemon(const std::vector<std::string>& extra_args, const fs::path& dir)
    : dir_(dir.empty() ? own_.path() : dir) {
  require_program("/usr/sbin/dockerd");  // installed by the README's test command: never skipped
  require_program(docker_cli());
  const auto d = dir_;
  std::vector<std::string> args = {"--data-root",
                                   (d / "data").string(),
                                   "--exec-root",
                                   (d / "exec").string(),
                                   "--host",
                                   "unix://" + (d / "docker.sock").string(),
                                   "--pidfile",
                                   (d / "docker.pid").string(),
                                   "--iptables=false",
                                   "--bridge=none",
                                   "--storage-driver=vfs"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  child_ = bp::child("/usr/sbin/dockerd", bp::args(args), bp::std_out > bp::null,
                     bp::std_err > (d / "dockerd.log").string());
  for (int i = 0; i < 300; ++i) {
    if (!child_.running()) break;
    if (fs::exists(d / "docker.sock") && docker({"version"}).exit_code == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  INFO(log());
  FAIL("dockerd did not answer within 60 s");
}

DockerDaemon::~DockerDaemon() { stop(child_); }

RunResult DockerDaemon::docker(const std::vector<std::string>& args, const std::string& input,
                               const std::map<std::string, std::string>& env) const {
  auto all = env;
  all["DOCKER_HOST"] = host();
  return run_program(docker_cli(), args, input, all);
}

void DockerDaemon::import_busybox(const std::string& name) const {
  FixtureRoot rootfs;
  rootfs.mkdir("/bin");
  fs::copy_file("/bin/busybox", rootfs.host("/bin/busybox"));
  for (const char* applet : {"sh", "true", "ls", "cat", "ln", "sleep"})
    fs::create_symlink("busybox", rootfs.host("/bin/" + std::string(applet)));
  rootfs.write("/etc/group", "root:x:0:\nvideo:x:44:\n");
  const auto loaded = docker({"load"}, image_archive(rootfs, name));
  INFO(loaded.err);
  REQUIRE(loaded.exit_code == 0);
}

std::string DockerDaemon::log() const { return slurp(dir_ / "dockerd.log"); }

}  // namespace rgpu::test
