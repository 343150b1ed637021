#pragma once
// A Docker that injects CDI devices, for end-to-end tests: Debian 13's dockerd 26 or unstable's
// 28.5 (RGPU_CDI_DOCKER=26 or 28, as ctest sets it for each copy of the [cdi-docker] tests) running
// in the chroot scripts/docker-root.sh makes, with features.cdi, vfs, no iptables or bridge, and
// --authorization-plugin naming our plugin, which runs on the host. Both sides read the /etc/cdi of
// the test's fixture machine (bound over the chroot's), so a grant made with `rediacc-gpu grant
// --root FIXTURE` is what the plugin reads and what dockerd injects. The chroot gets its own /run,
// /dev (a tmpfs holding the basic nodes and copies of the fixture's GPU nodes) and /var/lib/docker;
// everything mounted is unmounted and dockerd is stopped by its pid when the object goes.

#include <boost/process.hpp>
#include <map>
#include <string>
#include <vector>

#include "tests/support/docker_daemon.h"
#include "tests/support/fixture_root.h"
#include "tests/support/run_binary.h"

namespace rgpu::test {

struct CdiDockerOptions {
  std::string repo = "web";
  /// false: a dockerd with no authorization plugin (the CDI view alone; a renet-style one started
  /// without the dockerd shim, so behind no plugin, and the verifier alone judges what it makes)
  bool plugin = true;
  std::string cdi_dir;            ///< host directory bound over the chroot's /etc/cdi; empty: the machine's /etc/cdi
  std::string data_from;          ///< a data root copied in (cp -a) before dockerd starts: a fork of its containers
  std::string daemon_json_extra;  ///< members added to its daemon.json: R"("builder": {...})"
  /// Its socket is made and held by another process that hands it to dockerd -H fd://, as
  /// systemd's socket activation does: the socket's peer is then not dockerd.
  bool socket_activated = false;
  /// Run it as renet runs repository `rediacc_id`'s daemon (repo is then that network id): its
  /// socket /run/rediacc/docker-ID.sock, its data root and daemon.json inside the repository's mount
  /// (kRediaccMount in the chroot), bridge none, iptables off, experimental; started through the
  /// dockerd shim setup writes, which adds --authorization-plugin=rediacc-gpu-ID (daemon.json names
  /// no plugin: renet rewrites it at every start). The plugin reads `machine`'s
  /// /run/rediacc/docker-ID.sock, a link to the daemon's socket, as its --docker-host.
  std::string rediacc_id;
  /// The daemon's data root is also the fixture machine's /var/lib/docker (bound there), where the
  /// plugin looks for what the daemon names in GET /info (its volumes' stored options).
  bool machine_sees_data_root = false;
  /// The verifier setup puts in front of runc (the built rediacc-gpu, run as `runc` with this
  /// machine's own loader and libraries) is first on the daemon's PATH after the dockerd shim, as
  /// setup's drop-in puts it; it reads the fixture machine's /etc/rediacc and /var/lib/rediacc,
  /// bound at those paths in the chroot. Only for a rediacc_id daemon.
  bool runtime_verifier = false;
  /// The repository's mount (kRediaccMount) in the chroot is the fixture machine's own directory
  /// of that path: the plugin, the daemon and runc see the same files. Only for a rediacc_id daemon.
  bool mount_from_machine = false;
};

/// The repository's mount a renet-style daemon's data root and daemon.json lie in, in the chroot.
inline constexpr const char* kRediaccMount = "/mnt/rediacc/mounts/aaaa-web";
/// Where the chroot holds the runc the verifier runs behind it (the chroot's own).
inline constexpr const char* kVerifierDir = "/run/rgpu/runtime";

class CdiDocker {
 public:
  /// Starts the plugin for `repo` (reading `machine`'s grants and specs, and the daemon's stored
  /// containers through its socket) and the chosen dockerd behind it; fails the test when the root is
  /// missing or the daemon does not answer within 60 s.
  CdiDocker(const FixtureRoot& machine, const std::string& repo);
  CdiDocker(const FixtureRoot& machine, const CdiDockerOptions& options);
  ~CdiDocker();
  CdiDocker(const CdiDocker&) = delete;
  CdiDocker& operator=(const CdiDocker&) = delete;

  /// Runs the root's docker CLI (inside the chroot) against this daemon; `dir`, when given, is a host
  /// directory made visible in the chroot at /work, and the command runs there.
  RunResult docker(const std::vector<std::string>& args, const std::string& dir = "",
                   const std::map<std::string, std::string>& env = {}) const;
  /// Starts the stored container `name` and waits for it to end: its exit status, and what it
  /// wrote this time as `docker logs` keeps it; a start that fails is returned as it is (the
  /// gate's refusal). Not `start -a`: under load the CLI's attach can miss all that a container
  /// exiting at once wrote (Docker 26 lost it twice in from-nothing runs). Nor is the log itself
  /// sure: Docker 26's daemon once logged "stream copy error: reading from a closed fifo" and kept
  /// nothing of such a container's output, so a run that ends 0 having logged nothing is started
  /// again, up to three times (the callers' commands only read).
  RunResult start_and_read(const std::string& name) const;
  /// Loads a busybox-static image as `name` (/etc/group names video and render).
  void import_busybox(const std::string& name) const;
  /// Loads an image as `name` holding only the host program `program`, as /ENTRYPOINT's target:
  /// a BuildKit frontend built from source, which a `# syntax=` line can then name with no registry.
  void import_program(const std::string& name, const std::string& program) const;
  /// The plugin's name, as dockerd's refusals quote it.
  const std::string& plugin_name() const { return plugin_name_; }
  std::string plugin_log() const;
  /// Writes `text` to `path` inside the chroot, whose /run is this daemon's own tmpfs.
  void write_file(const std::string& path, const std::string& text) const;
  std::string daemon_log() const;
  /// The daemon's version as it answers GET /version ("26.1.5", "28.5.2+dfsg4").
  std::string server_version() const;
  /// The chroot's root, where /run/docker.sock is the daemon's socket.
  const std::string& root() const { return root_; }
  /// renet's restart of a repository daemon: stopped, its daemon.json rewritten to `daemon_json`,
  /// started again through the shim (only for a rediacc_id daemon).
  void restart_as_renet(const std::string& daemon_json);
  /// The daemon.json renet writes for the daemon a rediacc_id CdiDocker starts with.
  static std::string renet_daemon_json();
  /// Where the chroot's CLI reaches the daemon (DOCKER_HOST).
  std::string docker_host() const;
  /// The daemon's second socket as the fixture machine names it, in the machine's own
  /// /run/cdi-docker (bound into the chroot): what a plugin's environment file holds, read under
  /// --root. Only a daemon neither socket-activated nor renet's listens there.
  static std::string machine_host() { return "unix:///run/cdi-docker/docker.sock"; }
  /// The daemon's socket as a host path, for requests no CLI sends (raw_http).
  std::string socket_path() const;
  /// The daemon's pid on the host.
  int daemon_pid() const { return daemon_.id(); }
  /// The daemon's data root on the host (containers/<id>/hostconfig.json), for a fork to copy.
  std::string data_root() const { return (scratch_.path() / "data").string(); }

 private:
  void mount_all(const FixtureRoot& machine, const CdiDockerOptions& options);
  /// runtime_verifier's mounts and the runc the chroot finds first.
  void mount_verifier(const FixtureRoot& machine);

  /// `docker load` of an image archive (the gate refuses `docker import`).
  void load(const std::string& archive) const;

  /// Unmounts everything under the root when it goes, also when the constructor fails half-way;
  /// declared before the processes, so they are stopped first.
  struct Mounts {
    std::string root;
    std::vector<std::string> others;  ///< outside the root: unmounted too
    ~Mounts();
  };

  std::string root_;
  std::string plugin_name_;
  CdiDockerOptions options_;
  FixtureRoot scratch_;
  Mounts mounts_;
  boost::process::child plugin_;
  boost::process::child daemon_;
};

/// Checks that `r` failed with the plugin's refusal, and that the refusal says `words`.
void refused_by_gate(const CdiDocker& docker, const RunResult& r, const std::string& words);

/// Checks that `r` succeeded (showing the plugin's and the daemon's logs when it did not).
void ran(const CdiDocker& docker, const RunResult& r);

/// Which Docker the chain runs: 26 (RGPU_CDI_DOCKER unset or 26) or 28.
int cdi_docker_major();

/// The chroot made by scripts/docker-root.sh for that Docker, from the build's RGPU_DOCKER26_ROOT or
/// RGPU_DOCKER28_ROOT; fails the test with the README's test command when it is not there.
std::string cdi_docker_root();

}  // namespace rgpu::test
