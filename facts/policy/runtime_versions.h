#pragma once
// What the known-escapes checks judge: the runtime each daemon runs by default as its own
// `--version` says, and the distribution's changelog of each package whose version is judged (a
// patch the distribution backported keeps the upstream number; its changelog names the CVE).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/command_runner.h"
#include "core/result.h"
#include "core/root_fs.h"
#include "facts/daemon_answers.h"

namespace rgpu::facts {

/// One runtime the daemons run by default.
struct RuntimeVersion {
  /// The daemons that run it (their labels); {"this machine"} for the machine's runc when no
  /// daemon answered.
  std::vector<std::string> users;
  /// It is a file on the machine where those daemons find it (machine_program for a bare name).
  bool found = false;
  /// `PROGRAM --version`, run only when found.
  std::optional<Result<CommandResult>> ran;
  /// The version it said, the distribution's package version when the commit line carries one
  /// ("1.1.5+ds1-1+deb12u1"); empty when it ran and did not say.
  std::string version;
};

struct RuntimeVersions {
  /// Programs were run for this run's facts; false when nothing below was asked.
  bool programs_run = false;
  /// By the runtime's path (or bare name) as GET /info names it, else "runc".
  std::map<std::string, RuntimeVersion> runtimes;
  /// By package ("runc", "docker.io"): /usr/share/doc/PACKAGE/changelog.Debian.gz as `gzip -dc`
  /// reads it, only for a package a version of was said (a runtime's, a daemon's GET /version);
  /// absent when there is no such file or it does not read.
  std::map<std::string, std::optional<std::string>> changelogs;
};

/// The runtimes `answers`' daemons run by default, each run once with --version, and the changelogs
/// of the packages whose versions were said.
RuntimeVersions read_runtime_versions(const RootFs& fs, CommandRunner& runner,
                                      const std::vector<DaemonAnswer>& answers);

/// The version `runc --version` printed ("runc version 1.1.5+ds1\ncommit: 1.1.5+ds1-1+deb12u1"):
/// the commit line's when it carries the distribution's package version. Pure.
std::string runc_version(const std::string& output);

}  // namespace rgpu::facts
