#include "tests/support/cdi_docker.h"
#include "tests/support/build_paths.h"
#include "tests/support/image_archive.h"

#include "docker/repo_plugin.h"
#include "units/unit_files.h"

#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace bp = boost::process;
namespace fs = std::filesystem;

namespace rgpu::test {
namespace {

void must_mount(const std::string& source, const std::string& target, const char* type, unsigned long flags,
                const char* data = nullptr) {
  fs::create_directories(target);
  INFO("mount " << source << " on " << target << ": " << std::strerror(errno));
  REQUIRE(::mount(source.c_str(), target.c_str(), type, flags, data) == 0);
}

void node(const fs::path& path, mode_t type, dev_t number) {
  fs::create_directories(path.parent_path());
  ::mknod(path.c_str(), type | 0666, number);
}

// Mount points at or under `dir`, deepest first, from this process's mountinfo.
std::vector<std::string> mounts_under(const std::string& dir) {
  std::vector<std::string> out;
  std::ifstream in("/proc/self/mountinfo");
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string id, parent, numbers, root, point;
    fields >> id >> parent >> numbers >> root >> point;
    if (point == dir || point.rfind(dir + "/", 0) == 0) out.push_back(point);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  return out;
}

}  // namespace

int cdi_docker_major() {
  const char* which = std::getenv("RGPU_CDI_DOCKER");
  return which && std::string(which) == "28" ? 28 : 26;
}

std::string cdi_docker_root() {
  const int major = cdi_docker_major();
  const std::string root = major == 28 ? docker28_root_setting() : docker26_root_setting();
  INFO("the root with Docker " << major << " is missing (RGPU_DOCKER" << major << "_ROOT=\"" << root
                               << "\"): run bash scripts/setup.sh test");
  REQUIRE((!root.empty() && fs::exists(fs::path(root) / "usr/sbin/dockerd")));
  return root;
}

CdiDocker::CdiDocker(const FixtureRoot& machine, const std::string& repo)
    : CdiDocker(machine, [&] {
        CdiDockerOptions o;
        o.repo = repo;
        return o;
      }()) {}

CdiDocker::CdiDocker(const FixtureRoot& machine, const CdiDockerOptions& options)
    : root_(cdi_docker_root()),
      plugin_name_(options.rediacc_id.empty() ? unique_name("rgpu-docker" + std::to_string(cdi_docker_major()))
                                              : docker::plugin_name(options.rediacc_id)),
      options_(options) {
  // One daemon at a time uses the root's mount points.
  INFO("mount points are left under " << root_
                                      << " by a test killed before it stopped its daemon: stop what runs there "
                                         "(dockerd, containerd, shims) and unmount them (umount -R)");
  REQUIRE(mounts_under(root_).empty());
  mounts_.root = root_;
  if (!options.data_from.empty()) {
    fs::create_directories(scratch_.path() / "data");
    REQUIRE(run_program("/bin/cp", {"-a", options.data_from + "/.", (scratch_.path() / "data").string()}).exit_code ==
            0);
  }
  mount_all(machine, options);
  std::string plugins_json;
  if (options.plugin) {
    const std::string socket = (scratch_.path() / "plugins" / (plugin_name_ + ".sock")).string();
    // The plugin reads stored containers from this daemon's socket, as seen from the host; a
    // renet-style one through the machine's own /run/rediacc/docker-ID.sock, which says its id.
    std::string host = "unix://" + root_ + "/run/docker.sock";
    if (!options.rediacc_id.empty()) {
      const std::string at = "/run/rediacc/docker-" + options.rediacc_id + ".sock";
      fs::remove(machine.host(at));
      machine.link(at, root_ + at);
      host = "unix://" + machine.host(at).string();
    }
    plugin_ =
        bp::child(tool_path(), "authz-plugin", "--repo", options.rediacc_id.empty() ? options.repo : options.rediacc_id,
                  "--socket", socket, "--root", machine.str(), "--docker-host", host, bp::std_out > bp::null,
                  bp::std_err > (scratch_.path() / "plugin.log").string());
    for (int i = 0; i < 100 && !fs::exists(socket); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    INFO(plugin_log());
    REQUIRE(fs::exists(socket));
    plugins_json = R"(, "authorization-plugins": [")" + plugin_name_ + R"("])";
  }
  if (!options.rediacc_id.empty()) {
    restart_as_renet(renet_daemon_json());
    return;
  }
  std::ofstream(root_ + "/run/rgpu/daemon.json")
      // Docker 26 injects CDI devices only with the feature on; 28.2 and later by default, so the
      // 28.5 daemon runs without it and every test through it proves the default.
      << (cdi_docker_major() == 28 ? R"({"cdi-spec-dirs": ["/etc/cdi"])"
                                   : R"({"features": {"cdi": true}, "cdi-spec-dirs": ["/etc/cdi"])")
      << plugins_json << (options.daemon_json_extra.empty() ? "" : ", " + options.daemon_json_extra) << "}";
  const std::vector<std::string> flags = {"--config-file",       "/run/rgpu/daemon.json", "--pidfile",
                                          "/run/docker.pid",     "--iptables=false",      "--bridge=none",
                                          "--storage-driver=vfs"};
  if (options.socket_activated) {
    std::vector<std::string> args = {source_path("/tests/support/socket_activate.py"),
                                     root_ + "/run/docker.sock",
                                     root_,
                                     "/usr/sbin/dockerd",
                                     "--host",
                                     "fd://"};
    args.insert(args.end(), flags.begin(), flags.end());
    daemon_ = bp::child("/usr/bin/python3", args, bp::std_out > bp::null,
                        bp::std_err > (scratch_.path() / "dockerd.log").string());
  } else {
    std::vector<std::string> args = {root_,    "/usr/sbin/dockerd", "--host", "unix:///run/docker.sock",
                                     "--host", machine_host()};
    args.insert(args.end(), flags.begin(), flags.end());
    daemon_ = bp::child("/usr/sbin/chroot", args, bp::std_out > bp::null,
                        bp::std_err > (scratch_.path() / "dockerd.log").string());
  }
  for (int i = 0; i < 300; ++i) {
    if (!daemon_.running()) break;
    if (fs::exists(root_ + "/run/docker.sock") && docker({"version"}).exit_code == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  INFO(daemon_log());
  FAIL("dockerd " << cdi_docker_major() << " did not answer within 60 s");
}

std::string CdiDocker::renet_daemon_json() {
  return R"({"bridge": "none", "iptables": false, "experimental": true, "storage-driver": "vfs",)"
         R"( "cdi-spec-dirs": ["/etc/cdi"], "data-root": ")" +
         std::string(kRediaccMount) + R"(/.rediacc/docker/data")" +
         (cdi_docker_major() == 28 ? "" : R"(, "features": {"cdi": true})") + "}";
}

std::string CdiDocker::socket_path() const { return root_ + docker_host().substr(7); }

std::string CdiDocker::docker_host() const {
  return options_.rediacc_id.empty() ? "unix:///run/docker.sock"
                                     : "unix:///run/rediacc/docker-" + options_.rediacc_id + ".sock";
}

void CdiDocker::restart_as_renet(const std::string& daemon_json) {
  REQUIRE(!options_.rediacc_id.empty());
  if (daemon_.valid()) stop(daemon_);
  const std::string config = std::string(kRediaccMount) + "/.rediacc/docker/config/daemon.json";
  std::ofstream(root_ + config) << daemon_json;
  const std::string socket = "/run/rediacc/docker-" + options_.rediacc_id + ".sock";
  fs::remove(root_ + socket);
  // The shim first on PATH, as the drop-in puts it; renet starts dockerd by name. In a mount
  // namespace of its own whose root the chroot's root is (pivot_root), as a machine's daemon sees
  // its root: CRIU refuses to checkpoint a task whose root is a chroot inside its namespace.
  std::vector<std::string> args = {
      "--mount",
      "--propagation",
      "slave",
      "/bin/sh",
      "-c",
      "cd \"$1\" && mkdir -p run/rgpu/oldroot && /usr/sbin/pivot_root . run/rgpu/oldroot && "
      "cd / && umount -l /run/rgpu/oldroot && shift && exec \"$@\"",
      "sh",
      root_,
      "/usr/bin/env",
      std::string("PATH=") + (options_.plugin ? "/run/rgpu/shim:" : "") +
          (options_.runtime_verifier ? kVerifierDir + std::string(":") : "") + "/usr/sbin:/usr/bin:/sbin:/bin",
      "REDIACC_GPU_REPO=" + options_.rediacc_id,
      "dockerd",
      "--config-file",
      config,
      "--host",
      "unix://" + socket,
      "--pidfile",
      "/run/docker.pid"};
  daemon_ = bp::child("/usr/bin/unshare", args, bp::std_out > bp::null,
                      bp::std_err > (scratch_.path() / "dockerd.log").string());
  for (int i = 0; i < 300; ++i) {
    if (!daemon_.running()) break;
    if (fs::exists(root_ + socket) && docker({"version"}).exit_code == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  INFO(daemon_log());
  FAIL("dockerd " << cdi_docker_major() << " started as renet starts it did not answer within 60 s");
}

CdiDocker::~CdiDocker() {
  stop(daemon_);
  stop(plugin_);
}

CdiDocker::Mounts::~Mounts() {
  for (const auto& point : others) ::umount2(point.c_str(), MNT_DETACH);
  if (root.empty()) return;
  for (const auto& point : mounts_under(root)) {
    if (::umount2(point.c_str(), 0) != 0) ::umount2(point.c_str(), MNT_DETACH);
  }
}

void CdiDocker::mount_all(const FixtureRoot& machine, const CdiDockerOptions& options) {
  // The chroot's root must be a mount point, or dockerd cannot remount it for image layers.
  must_mount(root_, root_, nullptr, MS_BIND);
  must_mount("proc", root_ + "/proc", "proc", 0);
  must_mount("/sys", root_ + "/sys", nullptr, MS_BIND | MS_REC);
  REQUIRE(::mount(nullptr, (root_ + "/sys").c_str(), nullptr, MS_SLAVE | MS_REC, nullptr) == 0);
  must_mount("tmpfs", root_ + "/run", "tmpfs", 0, "mode=755");
  fs::create_directories(root_ + "/run/rgpu");
  // Its own /dev: the basic nodes, and copies of the fixture machine's device nodes, so nothing is
  // ever made in the host's /dev.
  const std::string dev = root_ + "/dev";
  must_mount("tmpfs", dev, "tmpfs", 0, "mode=755");
  for (const auto& [name, major, minor] : std::vector<std::tuple<const char*, unsigned, unsigned>>{
           {"null", 1, 3}, {"zero", 1, 5}, {"full", 1, 7}, {"random", 1, 8}, {"urandom", 1, 9}, {"tty", 5, 0}}) {
    node(dev + "/" + name, S_IFCHR, ::makedev(major, minor));
  }
  must_mount("devpts", dev + "/pts", "devpts", 0, "newinstance,ptmxmode=0666");
  fs::create_symlink("pts/ptmx", dev + "/ptmx");
  must_mount("tmpfs", dev + "/shm", "tmpfs", 0, "mode=1777");
  if (fs::exists(machine.host("/dev"))) {
    for (const auto& entry : fs::recursive_directory_iterator(machine.host("/dev"))) {
      struct stat st {};
      if (::lstat(entry.path().c_str(), &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) continue;
      node(fs::path(dev) / fs::relative(entry.path(), machine.host("/dev")), st.st_mode & S_IFMT, st.st_rdev);
    }
  }
  // The plugin's sockets, the daemon's data and the CLI's home live in the test's scratch
  // directory, the specs in the fixture machine's /etc/cdi; the cached root stays as it was made.
  for (const char* dir : {"plugins", "data", "home", "work"}) fs::create_directories(scratch_.path() / dir);
  machine.mkdir("/etc/cdi");
  must_mount((scratch_.path() / "plugins").string(), root_ + "/run/docker/plugins", nullptr, MS_BIND);
  must_mount((scratch_.path() / "data").string(), root_ + "/var/lib/docker", nullptr, MS_BIND);
  must_mount((scratch_.path() / "home").string(), root_ + "/root", nullptr, MS_BIND);
  const std::string cdi = options.cdi_dir.empty() ? machine.host("/etc/cdi").string() : options.cdi_dir;
  fs::create_directories(cdi);
  must_mount(cdi, root_ + "/etc/cdi", nullptr, MS_BIND);
  // The fixture's /run/cdi-docker, where the daemon's second socket is the machine's own: a
  // socket the machine names is reached under --root, never through a link out of it.
  machine.mkdir("/run/cdi-docker");
  must_mount(machine.host("/run/cdi-docker").string(), root_ + "/run/cdi-docker", nullptr, MS_BIND);
  if (options.machine_sees_data_root) {
    machine.mkdir("/var/lib/docker");
    must_mount((scratch_.path() / "data").string(), machine.host("/var/lib/docker").string(), nullptr, MS_BIND);
    mounts_.others.push_back(machine.host("/var/lib/docker").string());
  }
  if (options.rediacc_id.empty()) return;
  // renet's layout: the repository's mount on a tmpfs of the chroot's /mnt, its data root there the
  // test's scratch data, and the dockerd shim setup writes.
  must_mount("tmpfs", root_ + "/mnt", "tmpfs", 0, "mode=755");
  if (options.mount_from_machine) {
    machine.mkdir(kRediaccMount);
    must_mount(machine.host(kRediaccMount).string(), root_ + kRediaccMount, nullptr, MS_BIND);
  }
  fs::create_directories(root_ + kRediaccMount + "/.rediacc/docker/config");
  must_mount((scratch_.path() / "data").string(), root_ + kRediaccMount + "/.rediacc/docker/data", nullptr, MS_BIND);
  fs::create_directories(root_ + "/run/rediacc");
  fs::create_directories(root_ + "/run/rgpu/shim");
  std::ofstream(root_ + "/run/rgpu/shim/dockerd") << units::dockerd_shim(units::UnitOptions{});
  fs::permissions(root_ + "/run/rgpu/shim/dockerd",
                  fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  if (options.runtime_verifier) mount_verifier(machine);
}

void CdiDocker::mount_verifier(const FixtureRoot& machine) {
  // The chroot's userland is Debian 13's or unstable's, the tool this machine's: it runs with this
  // machine's loader and libraries, bound read-only. What it reads of the machine is the fixture's.
  const std::string host = root_ + "/run/rgpu/host";
  for (const auto& [from, to] : {std::pair{std::string("/usr"), host + "/usr"},
                                 std::pair{fs::path(tool_path()).parent_path().string(), host + "/tool"}}) {
    must_mount(from, to, nullptr, MS_BIND);
    REQUIRE(::mount(nullptr, to.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) == 0);
  }
  for (const char* dir : {"/etc/rediacc", "/var/lib/rediacc"}) {
    machine.mkdir(dir);
    must_mount(machine.host(dir).string(), root_ + dir, nullptr, MS_BIND);
  }
  fs::create_directories(root_ + kVerifierDir);
  const std::string libs = "/run/rgpu/host/usr/lib/x86_64-linux-gnu";
  std::ofstream(root_ + kVerifierDir + "/runc")
      << "#!/bin/sh\nexec " << libs << "/ld-linux-x86-64.so.2 --argv0 runc --library-path " << libs
      << " /run/rgpu/host/tool/" << fs::path(tool_path()).filename().string() << " \"$@\"\n";
  fs::permissions(root_ + kVerifierDir + "/runc",
                  fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
}

RunResult CdiDocker::docker(const std::vector<std::string>& args, const std::string& dir,
                            const std::map<std::string, std::string>& env) const {
  std::vector<std::string> argv = {root_, "/usr/bin/env"};
  if (!dir.empty()) {
    const std::string work = root_ + "/work";
    if (mounts_under(work).empty()) must_mount(dir, work, nullptr, MS_BIND);
    argv.insert(argv.end(), {"-C", "/work"});
  }
  argv.push_back("HOME=/root");
  argv.push_back("DOCKER_HOST=" + docker_host());
  for (const auto& [k, v] : env) argv.push_back(k + "=" + v);
  argv.push_back("docker");
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run_program("/usr/sbin/chroot", argv);
  if (!dir.empty()) ::umount2((root_ + "/work").c_str(), MNT_DETACH);
  return r;
}

void CdiDocker::import_busybox(const std::string& name) const {
  FixtureRoot rootfs;
  rootfs.mkdir("/bin");
  fs::copy_file("/bin/busybox", rootfs.host("/bin/busybox"));
  for (const char* applet : {"sh", "true", "ls", "cat", "stat", "test", "sleep"})
    fs::create_symlink("busybox", rootfs.host("/bin/" + std::string(applet)));
  rootfs.write("/etc/group", "root:x:0:\nvideo:x:44:\nrender:x:105:\n");
  load(image_archive(rootfs, name));
}

void CdiDocker::import_program(const std::string& name, const std::string& program) const {
  FixtureRoot rootfs;
  fs::copy_file(program, rootfs.host("/entrypoint"));
  // The label keeps the frontend's own container off the network, which this daemon (no bridge)
  // could not give it; BuildKit's published frontend images carry it too.
  load(image_archive(rootfs, name,
                     {.entrypoint = {"/entrypoint"}, .labels = {{"moby.buildkit.frontend.network.none", "true"}}}));
}

void CdiDocker::load(const std::string& archive) const {
  const auto loaded = run_program("/usr/sbin/chroot",
                                  {root_, "/usr/bin/env", "DOCKER_HOST=" + docker_host(), "docker", "load"}, archive);
  INFO(loaded.err << daemon_log());
  REQUIRE(loaded.exit_code == 0);
}

void CdiDocker::write_file(const std::string& path, const std::string& text) const {
  REQUIRE(path.rfind("/run/", 0) == 0);  // the cached root itself stays as it was made
  std::ofstream(root_ + path) << text;
}

void refused_by_gate(const CdiDocker& docker, const RunResult& r, const std::string& words) {
  INFO(r.out << r.err << docker.plugin_log());
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, Catch::Contains("authorization denied by plugin " + docker.plugin_name() + ": refused: "));
  CHECK_THAT(r.err, Catch::Contains(words));
}

RunResult CdiDocker::start_and_read(const std::string& name) const {
  const auto since = [](const std::string& all, const std::string& earlier) {
    return all.starts_with(earlier) ? all.substr(earlier.size()) : all;
  };
  RunResult out;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const auto before = docker({"logs", name});
    auto started = docker({"start", name});
    if (started.exit_code != 0) return started;
    const auto waited = docker({"wait", name});
    const auto after = docker({"logs", name});
    out.exit_code = waited.exit_code != 0 ? waited.exit_code : std::atoi(waited.out.c_str());
    out.out = since(after.out, before.out);
    out.err = since(after.err, before.err) + waited.err;
    if (out.exit_code != 0 || !out.out.empty() || !out.err.empty()) break;
  }
  return out;
}

void ran(const CdiDocker& docker, const RunResult& r) {
  INFO(r.out << r.err << docker.plugin_log() << docker.daemon_log());
  CHECK(r.exit_code == 0);
}

std::string CdiDocker::plugin_log() const { return slurp(scratch_.path() / "plugin.log"); }

std::string CdiDocker::daemon_log() const { return slurp(scratch_.path() / "dockerd.log"); }

std::string CdiDocker::server_version() const {
  auto r = docker({"version", "--format", "{{.Server.Version}}"});
  REQUIRE(r.exit_code == 0);
  while (!r.out.empty() && std::isspace(static_cast<unsigned char>(r.out.back()))) r.out.pop_back();
  return r.out;
}

}  // namespace rgpu::test
