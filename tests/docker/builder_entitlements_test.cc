// What a running dockerd's BuildKit grants its builds: daemon.json read as Go reads it, and only
// while the file is still what the daemon started with (dockerd reads the builder's entitlements
// once, at start: neither SIGHUP nor anything else reloads them).

#include <unistd.h>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "docker/builder_entitlements.h"
#include "docker/proc_tables.h"
#include "tests/support/fixture_root.h"

using namespace rgpu;
using namespace rgpu::docker;
using namespace rgpu::test;
using namespace std::chrono_literals;

TEST_CASE("builder entitlements: daemon.json is read as dockerd's Go decoder reads it, or not at all") {
  const auto defaults = builder_entitlements(std::nullopt);
  REQUIRE(defaults);
  CHECK(defaults->network_host);
  CHECK_FALSE(defaults->security_insecure);
  CHECK(defaults->device);
  CHECK(builder_entitlements(std::string(""))->network_host);
  CHECK(builder_entitlements(std::string(R"({"debug": true})"))->network_host);

  const auto folded =
      builder_entitlements(std::string(R"({"Builder": {"ENTITLEMENTS": {"network-host": false, "device": false}}})"));
  REQUIRE(folded);
  CHECK_FALSE(folded->network_host);
  CHECK_FALSE(folded->device);
  // Go folds U+017F (long s) to 's': dockerd reads this key as security-insecure.
  const auto long_s =
      builder_entitlements(std::string("{\"builder\": {\"entitlements\": {\"\xC5\xBF"
                                       "ecurity-in"
                                       "\xC5\xBF"
                                       "ecure\": true}}}"));
  REQUIRE(long_s);
  CHECK(long_s->security_insecure);

  // Two spellings of one key: Go merges them, the last winning; refused rather than guessed.
  const auto twice = builder_entitlements(
      std::string(R"({"builder": {"entitlements": {"network-host": false}, "Entitlements": {"network-host": true}}})"));
  REQUIRE_FALSE(twice);
  CHECK_THAT(twice.error().message, Catch::Contains("Entitlements"));
  const auto twice_inner = builder_entitlements(
      std::string(R"({"builder": {"entitlements": {"security-insecure": true, "Security-Insecure": false}}})"));
  CHECK_FALSE(twice_inner);
  // dockerd starts with neither text nor a value that is not an object.
  CHECK_FALSE(builder_entitlements(std::string("{ not json")));
  CHECK_FALSE(builder_entitlements(std::string("[]")));
}

TEST_CASE("builder entitlements: judged as the daemon runs with them only while its daemon.json is unchanged since") {
  const auto t = std::chrono::system_clock::time_point(std::chrono::seconds(1'700'000'000));
  const std::string insecure = R"({"builder": {"entitlements": {"security-insecure": true}}})";
  const ConfigFile file{"/etc/docker/daemon.json", insecure, t, false};

  const auto before = running_builder_entitlements(file, t + 1s);
  REQUIRE(before);
  CHECK(before->security_insecure);
  for (const auto started : {t, t - 10ms, t - 3600s}) {
    const auto after = running_builder_entitlements(file, started);
    REQUIRE_FALSE(after);
    CHECK_THAT(after.error().message, Catch::Contains("/etc/docker/daemon.json changed after the daemon started") &&
                                          Catch::Contains("restart the daemon"));
  }
  // A file that cannot be judged is refused whenever it was written.
  CHECK_FALSE(running_builder_entitlements(ConfigFile{"/etc/docker/daemon.json", "{", t, false}, t + 1s));

  // Gone now: a --config-file the daemon was started with existed then (dockerd refuses to start
  // without it); the default one may never have been there, unless its directory changed since.
  const auto removed = running_builder_entitlements(ConfigFile{"/srv/d.json", std::nullopt, t, true}, t + 1s);
  REQUIRE_FALSE(removed);
  CHECK_THAT(removed.error().message, Catch::Contains("/srv/d.json") && Catch::Contains("restart the daemon"));
  CHECK(running_builder_entitlements(ConfigFile{"/etc/docker/daemon.json", std::nullopt, t, false}, t + 1s));
  CHECK(running_builder_entitlements(ConfigFile{"/etc/docker/daemon.json", std::nullopt, std::nullopt, false}, t));
  const auto dir_changed =
      running_builder_entitlements(ConfigFile{"/etc/docker/daemon.json", std::nullopt, t, false}, t - 1s);
  REQUIRE_FALSE(dir_changed);
  CHECK_THAT(dir_changed.error().message, Catch::Contains("/etc/docker") && Catch::Contains("restart the daemon"));
}

TEST_CASE("builder entitlements: a daemon's daemon.json and its start are read from the machine") {
  FixtureRoot root;
  const RootFs fs(root.path());
  // The kernel's boot clock now, and the process's start in clock ticks after boot (field 22,
  // counted after the command name, which may hold spaces and parentheses).
  const long hz = ::sysconf(_SC_CLK_TCK);
  root.write("/proc/uptime", "1000.00 3000.00\n");
  root.write("/proc/42/stat", "42 (dock (er) d) S 1 42 42 0 -1 4194560 100 0 0 0 10 5 0 0 20 0 9 0 " +
                                  std::to_string(400 * hz) + " 1000 100 18446744073709551615\n");
  const auto started = process_started(fs, "42");
  REQUIRE(started);
  CHECK(started->ticks == static_cast<unsigned long long>(400 * hz));
  const auto age = std::chrono::system_clock::now() - started->by;
  CHECK(age > 599s);
  CHECK(age < 602s);
  CHECK_FALSE(process_started(fs, "43"));

  RunningDaemon daemon{"42", {"dockerd", "--config-file=/srv/d.json"}, true};
  root.write("/srv/d.json", R"({"builder": {"entitlements": {"network-host": false}}})");
  const auto config = read_config_file(fs, daemon);
  REQUIRE(config);
  CHECK(config->path == "/srv/d.json");
  CHECK(config->required);
  CHECK(config->text == R"({"builder": {"entitlements": {"network-host": false}}})");
  REQUIRE(config->changed);
  CHECK(std::chrono::system_clock::now() - *config->changed < 60s);
  // Written after the daemon started 600 s ago: what it runs with cannot be told.
  const auto now_judged = daemon_builder_entitlements(fs, fs, daemon);
  REQUIRE_FALSE(now_judged);
  CHECK_THAT(now_judged.error().message, Catch::Contains("/srv/d.json changed after the daemon started"));

  // The default file, absent, with no /etc/docker: the defaults.
  RunningDaemon plain{"42", {"dockerd"}, true};
  const auto absent = read_config_file(fs, plain);
  REQUIRE(absent);
  CHECK_FALSE(absent->required);
  CHECK_FALSE(absent->text);
  CHECK_FALSE(absent->changed);
  CHECK(daemon_builder_entitlements(fs, fs, plain));
}
