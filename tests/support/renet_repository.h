#pragma once
// Repository 2816 laid out as renet lays it out, on a fixture machine with a second repository
// (2880), and its daemon (Docker 26 or 28.5) started as renet starts it, behind its plugin, with a
// busybox image "img". For the e2e tests of a Rediacc host.

#include <string>

#include "tests/support/cdi_docker.h"
#include "tests/support/fixture_root.h"

namespace rgpu::test {

/// The other repository's mount, whose daemon the fixture names as running (pid 910002).
inline constexpr const char* kOtherRediaccMount = "/mnt/rediacc/mounts/bbbb-other";

/// Two repositories laid out as renet lays them out, 2816 (the daemon under test) and 2880, with
/// the rediacc host policy and each one's secret DB_PASSWORD; /proc names their daemons running.
void rediacc_machine(const FixtureRoot& machine);

/// Grants `name` to repository 2816 (fails the test when refused).
void grant_web(const FixtureRoot& machine, const std::string& name);

struct RenetOptions {
  std::string granted;   ///< a name granted to 2816 first; empty: none
  bool on_view = false;  ///< the daemon's /etc/cdi is the repository's view, as setup's drop-in binds it
  /// The verifier setup puts in front of runc is first on the daemon's PATH (CdiDockerOptions), as
  /// setup wires every renet daemon.
  bool runtime_verifier = true;
  /// The repository's mount in the chroot is the fixture machine's own directory, so what the
  /// plugin resolves on the machine is what the daemon and runc find (a tenant's link included).
  bool mount_from_machine = false;
};

struct RenetRepository {
  explicit RenetRepository(const std::string& granted, bool on_view = false)
      : RenetRepository(RenetOptions{
            .granted = granted, .on_view = on_view, .runtime_verifier = false, .mount_from_machine = false}) {}
  explicit RenetRepository(const RenetOptions& options);
  FixtureRoot machine;
  CdiDocker docker;
};

}  // namespace rgpu::test
