// A grant is the only door for containers that already exist too, through Docker 26 and Compose:
// a container made while its repository held a name is refused at every route that runs it once
// the name is revoked, and a fork (a copied data-root behind another repository's plugin) starts
// none of its parent's device containers. What a container sees is read from its own command.

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/cdi_docker.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu::test;

namespace {

const std::string kShow = "stat -c '%t:%T' /dev/dri/renderD128";

void tool(const std::vector<std::string>& args) {
  const auto r = run_tool(args);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
}

}  // namespace

TEST_CASE(
    "cdi docker: after a revoke, start, restart, rename, update --restart, exec and Compose of containers made while "
    "granted are refused",
    "[e2e][cdi-docker]") {
  FixtureRoot machine;
  two_amd_instinct(machine);
  tool({"cdi", "generate", "--root", machine.str()});
  CdiDocker docker(machine, "web");
  docker.import_busybox("img");
  tool({"grant", "web", "--device", kRenderD128Name, "--root", machine.str()});

  ran(docker, docker.docker({"create", "--name", "held", "--device", kRenderD128Name, "img", "sh", "-c", kShow}));
  const auto first = docker.start_and_read("held");
  ran(docker, first);
  CHECK(first.out == "e2:80\n");  // 226:128, seen by the container's own command
  ran(docker, docker.docker({"run", "-d", "--name", "busy", "--device", kRenderD128Name, "img", "sleep", "600"}));
  ran(docker, docker.docker({"exec", "busy", "true"}));
  FixtureRoot project;
  project.write("/compose.yaml", "services:\n  gpu:\n    image: img\n    command: [\"sh\", \"-c\", \"" + kShow +
                                     "\"]\n    network_mode: none\n    devices: [\"" + kRenderD128Name + "\"]\n");
  ran(docker, docker.docker({"compose", "-p", "rgpu", "up", "-d"}, project.str()));

  // The revoke names what already holds the name, from the repository's own daemon.
  const std::string host = "unix://" + docker.root() + "/run/docker.sock";
  const auto revoke =
      run_tool({"revoke", "web", "--device", kRenderD128Name, "--root", machine.str(), "--docker-host", host});
  INFO(revoke.out << revoke.err);
  REQUIRE(revoke.exit_code == 0);
  CHECK_THAT(revoke.out,
             Catch::Contains("container /held (") &&
                 Catch::Contains(") uses " + kRenderD128Name + ", stopped; it is refused at its next start.") &&
                 Catch::Contains("container /busy (") &&
                 Catch::Contains("running: it keeps the device until it stops") &&
                 Catch::Contains("container /rgpu-gpu-1 ("));
  const std::string lacks = "has no grant for " + kRenderD128Name +
                            "; an operator can grant it with: rediacc-gpu grant web --device " + kRenderD128Name +
                            "; or recreate the container without it";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"start", "held"}, {"restart", "held"}, {"exec", "busy", "true"}}) {
    INFO(args.front());
    const auto r = docker.docker(args);
    refused_by_gate(docker, r, "of repository \"web\" was made with what a new container would be refused now");
    CHECK_THAT(r.err, Catch::Contains(lacks));
  }
  refused_by_gate(docker, docker.docker({"start", "held"}), "container \"/held\"");
  ran(docker, docker.docker({"rename", "held", "renamed"}));
  refused_by_gate(docker, docker.docker({"start", "renamed"}), "container \"/renamed\"");
  refused_by_gate(docker, docker.docker({"update", "--restart", "always", "renamed"}), lacks);
  ran(docker, docker.docker({"update", "--restart", "no", "renamed"}));  // stopping nothing from starting is no door
  refused_by_gate(docker, docker.docker({"compose", "-p", "rgpu", "restart"}, project.str()), lacks);
  refused_by_gate(docker, docker.docker({"compose", "-p", "rgpu", "up", "-d"}, project.str()), lacks);
  // doctor asks the daemon its plugin's environment file names, and lists what still holds the name.
  machine.write("/etc/rediacc/gpu/plugins/web.env", "REDIACC_GPU_DOCKER_HOST=" + CdiDocker::machine_host() + "\n");
  const auto checked = run_tool({"doctor", "-o", "json", "--root", machine.str()});
  nlohmann::json stale;
  const auto doctor_doc = nlohmann::json::parse(checked.out);

  for (const auto& c : doctor_doc["checks"]) {
    if (c["id"] == "stale-device-containers") stale = c;
  }
  INFO(checked.out);
  REQUIRE_FALSE(stale.is_null());
  CHECK(stale["status"] == "fail");
  CHECK(stale["layer"] == 5);
  CHECK_THAT(stale["observed"].get<std::string>(), Catch::Contains("web: /busy (") &&
                                                       Catch::Contains(", running) uses " + kRenderD128Name) &&
                                                       Catch::Contains("web: /renamed ("));
  // A running container keeps the device cgroup it started with until it stops (docs/gate-limits.md);
  // once stopped it does not come back.
  ran(docker, docker.docker({"stop", "-t", "0", "busy"}));
  refused_by_gate(docker, docker.docker({"start", "busy"}), lacks);

  // Granted again, the same containers start: the grant in force decides, not the one at create.
  tool({"grant", "web", "--device", kRenderD128Name, "--root", machine.str()});
  const auto again = docker.start_and_read("renamed");
  ran(docker, again);
  CHECK(again.out == "e2:80\n");

  // revoke --stop stops a running holder and keeps it from coming back on its restart policy.
  ran(docker, docker.docker({"run", "-d", "--restart", "always", "--name", "daemon", "--device", kRenderD128Name, "img",
                             "sleep", "600"}));
  const auto stopping = run_tool(
      {"revoke", "web", "--device", kRenderD128Name, "--root", machine.str(), "--docker-host", host, "--stop"});
  INFO(stopping.out << stopping.err);
  CHECK(stopping.exit_code == 0);
  CHECK_THAT(stopping.out, Catch::Contains("container /daemon (") && Catch::Contains("stopped now, restart policy no"));
  const auto state =
      docker.docker({"inspect", "-f", "{{.State.Running}} {{.HostConfig.RestartPolicy.Name}}", "daemon"});
  CHECK(state.out == "false no\n");
}

TEST_CASE(
    "cdi docker: a fork, a copied data-root behind another repository's plugin, starts none of its parent's devices",
    "[e2e][cdi-docker]") {
  FixtureRoot machine;
  two_amd_instinct(machine);
  tool({"cdi", "generate", "--root", machine.str()});
  tool({"grant", "alpha", "--device", kRenderD128Name, "--root", machine.str()});
  FixtureRoot copy;
  {
    CdiDockerOptions alpha_options;
    alpha_options.repo = "alpha";
    CdiDocker alpha(machine, alpha_options);
    alpha.import_busybox("img");
    ran(alpha, alpha.docker({"create", "--name", "held", "--device", kRenderD128Name, "img", "sh", "-c", kShow}));
    ran(alpha, alpha.docker({"create", "--name", "plain", "img", "true"}));
    ran(alpha, alpha.docker({"start", "-a", "held"}));
    const auto copied = run_program("/bin/cp", {"-a", alpha.data_root() + "/.", copy.str()});
    REQUIRE(copied.exit_code == 0);
  }
  CdiDockerOptions beta_options;
  beta_options.repo = "beta";
  beta_options.data_from = copy.str();
  CdiDocker beta(machine, beta_options);
  for (const char* verb : {"start", "restart"}) {
    refused_by_gate(beta, beta.docker({verb, "held"}), "container \"/held\" (");
    refused_by_gate(beta, beta.docker({verb, "held"}), "repository \"beta\" has no grant for " + kRenderD128Name);
  }
  ran(beta, beta.docker({"start", "plain"}));  // what attaches nothing still runs in the fork
  // The route as the CLI sends it: API 1.45 from Docker 26's, 1.51 from 28.5's.
  CHECK_THAT(beta.plugin_log(),
             Catch::Matches(R"([\s\S]*refused repo=beta route="POST /v1\.(45|51)/containers/held/start"[\s\S]*)"));
}

// The second layer alone: a daemon with no plugin whose /etc/cdi is the repository's view, as
// the drop-in setup writes binds it. dockerd itself resolves only the names the repository holds.
TEST_CASE("cdi docker: a daemon reading its repository's view resolves only held names, following grants as it runs",
          "[e2e][cdi-docker]") {
  FixtureRoot machine;
  two_amd_instinct(machine);
  tool({"cdi", "generate", "--root", machine.str()});
  tool({"grant", "web", "--device", kRenderD128Name, "--root", machine.str()});
  CdiDockerOptions options;
  options.plugin = false;
  options.cdi_dir = machine.host("/var/lib/rediacc/gpu/cdi/web").string();
  CdiDocker docker(machine, options);
  docker.import_busybox("img");

  const auto seen = docker.docker({"run", "--rm", "--device", kRenderD128Name, "img", "sh", "-c", kShow});
  ran(docker, seen);
  CHECK(seen.out == "e2:80\n");
  const std::string other = "rediacc.io/dri=renderD129";
  const auto unresolved = docker.docker({"run", "--rm", "--device", other, "img", "true"});
  INFO(unresolved.err);
  CHECK(unresolved.exit_code != 0);
  CHECK_THAT(unresolved.err, Catch::Contains("unresolvable CDI devices " + other));
  ran(docker, docker.docker({"create", "--name", "held", "--device", kRenderD128Name, "img", "sh", "-c", kShow}));
  // Docker 28.2 and later list what the daemon can inject in GET /info: the view's names alone.
  const auto info = docker.docker({"info", "--format", "{{json .}}"});
  ran(docker, info);
  const auto discovered = nlohmann::json::parse(info.out).value("DiscoveredDevices", nlohmann::json());
  INFO(discovered.dump());
  if (cdi_docker_major() >= 28) {
    CHECK(discovered == nlohmann::json::parse(R"([{"Source":"cdi","ID":")" + kRenderD128Name + R"("}])"));
  } else {
    CHECK(discovered.is_null());  // 26 has no such field
  }

  // Grants change while the daemon runs: the view's files are rewritten inside the bound directory.
  tool({"grant", "web", "--device", other, "--root", machine.str()});
  ran(docker, docker.docker({"run", "--rm", "--device", other, "img", "true"}));
  tool({"revoke", "web", "--device", kRenderD128Name, "--root", machine.str()});
  const auto revoked = docker.docker({"start", "-a", "held"});
  INFO(revoked.out << revoked.err);
  CHECK(revoked.exit_code != 0);
  CHECK_THAT(revoked.err, Catch::Contains("unresolvable CDI devices " + kRenderD128Name));
}

TEST_CASE(
    "cdi docker: grants apply --prune names the containers still using what it revokes, and the gate refuses them",
    "[e2e][cdi-docker]") {
  FixtureRoot machine;
  two_amd_instinct(machine);
  tool({"cdi", "generate", "--root", machine.str()});
  CdiDocker docker(machine, "web");
  docker.import_busybox("img");
  const std::string desired = machine.host("/desired.json").string();
  machine.write("/desired.json",
                R"({"schema": 1, "repositories": [{"name": "web", "grants": [")" + kRenderD128Name + R"("]}]})");
  tool({"grants", "apply", desired, "--root", machine.str()});
  ran(docker, docker.docker({"create", "--name", "held", "--device", kRenderD128Name, "img", "sh", "-c", kShow}));
  const auto first = docker.start_and_read("held");
  ran(docker, first);
  CHECK(first.out == "e2:80\n");
  // The repository's daemon as setup records it for the plugin: where apply lists its containers.
  machine.write("/etc/rediacc/gpu/plugins/web.env", "REDIACC_GPU_DOCKER_HOST=" + CdiDocker::machine_host() + "\n");
  machine.write("/desired.json", R"({"schema": 1, "repositories": [{"name": "web", "grants": []}]})");
  const auto pruned = run_tool({"grants", "apply", desired, "--prune", "-o", "json", "--root", machine.str()});
  INFO(pruned.out << pruned.err);
  REQUIRE(pruned.exit_code == 0);
  const auto doc = nlohmann::json::parse(pruned.out);
  CHECK(doc["changed"] == true);
  CHECK(doc["revoked"] ==
        nlohmann::json::parse(R"([{"repo": "web", "device": ")" + kRenderD128Name + R"(", "exclusive": false}])"));
  REQUIRE(doc["containers_using_revoked"].size() == 1);
  CHECK(doc["containers_using_revoked"][0]["container"] == "/held");
  CHECK(doc["containers_using_revoked"][0]["device"] == kRenderD128Name);
  CHECK(doc["containers_using_revoked"][0]["running"] == false);
  CHECK(doc["warnings"].empty());
  refused_by_gate(docker, docker.docker({"start", "held"}), "container \"/held\"");
  // And a second apply of the same file changes nothing.
  const auto again = run_tool({"grants", "apply", desired, "--prune", "-o", "json", "--root", machine.str()});
  CHECK(nlohmann::json::parse(again.out)["changed"] == false);
}

// The cards trade render numbers (another slot, another boot): through the real daemon, the
// numbered name is refused for a new container and for one made before, and the name keyed by
// the card follows it to its new node.
TEST_CASE(
    "cdi docker: after the cards trade numbers, the numbered grant is refused at run and at start, the keyed one "
    "follows its card",
    "[e2e][cdi-docker]") {
  FixtureRoot machine;
  workstation_numbered(machine, {128, 129, 130});
  tool({"cdi", "generate", "--root", machine.str()});
  CdiDocker docker(machine, "alpha");
  docker.import_busybox("img");
  tool({"grant", "alpha", "--device", "rediacc.io/dri=renderD129", "--root", machine.str()});
  tool({"grant", "alpha", "--device", "rediacc.io/dri=pci-0000-01-00.0", "--root", machine.str()});
  const std::string show = "ls /dev/dri";
  ran(docker,
      docker.docker({"create", "--name", "before", "--device", "rediacc.io/dri=renderD129", "img", "sh", "-c", show}));
  workstation_numbered(machine, {128, 130, 129});  // no restart of the plugin or the daemon
  tool({"cdi", "generate", "--root", machine.str()});
  const std::string moved = "now reaches other hardware than was granted";
  refused_by_gate(docker, docker.docker({"run", "--rm", "--device", "rediacc.io/dri=renderD129", "img", "true"}),
                  moved);
  refused_by_gate(docker, docker.docker({"start", "-a", "before"}), moved);
  // Made, then started and read from its log: a `run --rm` whose command exits at once can lose its
  // output on a loaded machine (the CLI's attach against the container's exit), which once failed
  // this case.
  ran(docker, docker.docker({"create", "--name", "keyed", "--device", "rediacc.io/dri=pci-0000-01-00.0", "img", "sh",
                             "-c", show}));
  const auto keyed = docker.start_and_read("keyed");
  ran(docker, keyed);
  CHECK(keyed.out == "renderD130\n");
}
