#pragma once
// Real Docker for end-to-end tests: a private dockerd (Debian's docker.io) with its own data,
// exec and socket directories, no iptables, no bridge and the vfs driver, stopped by its pid;
// and our authorization plugin serving it. Debian 12's docker CLI (docker.io's 20.10) talks to
// that daemon only; the CDI chain runs through Docker 26 and 28.5 (tests/support/cdi_docker.h).

#include <boost/process.hpp>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tests/support/fixture_root.h"
#include "tests/support/run_binary.h"

namespace rgpu::test {

/// Our plugin, listening where dockerd discovers plugin `name` (/run/docker/plugins/NAME.sock).
class PluginProcess {
 public:
  /// `docker_host`: the repository daemon it reads stored containers from (--docker-host); empty
  /// runs it without one, so starts of existing containers are refused.
  PluginProcess(const std::string& name, const std::string& repo, const std::string& root,
                const std::string& docker_host);
  ~PluginProcess();
  /// What it wrote on stderr so far.
  std::string log() const;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::string socket_;
  FixtureRoot dir_;
  boost::process::child child_;
};

class DockerDaemon {
 public:
  /// Starts dockerd with `extra_args` and waits until it answers (fails the test after 60 s). It
  /// keeps its data root (data/), exec root, socket (docker.sock) and log in `dir`, a directory
  /// of its own when empty: a daemon started again on the same `dir` finds its containers.
  explicit DockerDaemon(const std::vector<std::string>& extra_args = {}, const std::filesystem::path& dir = {});
  ~DockerDaemon();
  /// Runs the docker CLI against this daemon, with `env` added to its environment.
  RunResult docker(const std::vector<std::string>& args, const std::string& input = "",
                   const std::map<std::string, std::string>& env = {}) const;
  /// Imports a busybox-static root filesystem as image `name` (with /etc/group naming video).
  void import_busybox(const std::string& name) const;
  std::string log() const;
  /// The daemon's address, for DOCKER_HOST or docker -H.
  std::string host() const { return host_in(dir_); }
  /// The address of a daemon started with `dir`, known before it starts (for its plugin).
  static std::string host_in(const std::filesystem::path& dir);
  /// Its data root: containers/<id>/hostconfig.json, as a fork would copy it.
  std::filesystem::path data_root() const { return dir_ / "data"; }

 private:
  FixtureRoot own_;
  std::filesystem::path dir_;
  boost::process::child child_;
};

/// Checks that `r` failed with plugin `plugin`'s refusal, and that the refusal says `words`.
void refused_by_plugin(const RunResult& r, const std::string& plugin, const std::string& words);

/// A file's whole contents ("" when it cannot be read).
std::string slurp(const std::filesystem::path& path);

/// SIGTERM, then up to 30 s for a clean exit (dockerd stops its containerd), then SIGKILL; the
/// child is reaped either way.
void stop(boost::process::child& child);

/// A name no other test process uses at the same time: prefix-PID.
std::string unique_name(const std::string& prefix);

}  // namespace rgpu::test
