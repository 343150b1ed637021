#pragma once
// The verifier in front of runc. Setup puts a `runc` that is this binary first on each guarded
// daemon's PATH (before the machine's runc), so every runc its containerd shims and its BuildKit
// run is this one. A command that makes a container (create, run, restore) has the bundle's
// config.json judged by the gate's rules in the gate's world, its bind sources opened and staged,
// and runc is then run with that config; a refusal's sentence goes where runc's errors go (the
// log the shim reads, which docker start and docker run print). Every other command is runc's own.

#include <string>
#include <vector>

namespace rgpu::runtime {

/// The runc to run behind the verifier: the first executable `runc` on `path` (a PATH value) that
/// is not the one that ran as `argv0` (when argv0 names no directory, the first one on PATH, which
/// is how it was found); empty when there is none.
std::string real_runc(const std::string& argv0, const std::string& path);

/// runc's entry point: `argv` as runc was started (argv[0] first). Replaces this process with
/// runc, or returns the exit status to end with (1 when refused).
int run_as_runc(const std::vector<std::string>& argv);

}  // namespace rgpu::runtime
