// The whole chain through a Docker that injects CDI devices: Debian 13's dockerd 26 in a chroot,
// our authorization plugin on the host, the specs `rediacc-gpu cdi generate` writes on a fixture
// machine. Grant, run, see the device inside; revoke, refused again; every other way refused.

#include <yaml-cpp/yaml.h>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "docker/client.h"
#include "tests/support/admit_on.h"
#include "tests/support/build_paths.h"
#include "tests/support/cdi_docker.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu::test;

namespace {

void grant(const FixtureRoot& machine, const std::string& name, const std::string& repo = "web") {
  const auto r = run_tool({"grant", repo, "--device", name, "--root", machine.str()});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
}

// A `docker run --rm`, made, started and read from its log (CdiDocker::start_and_read says why),
// then removed: a refusal comes back from whichever step the gate refused.
RunResult run_with(const CdiDocker& docker, const std::vector<std::string>& flags, const std::string& command) {
  std::vector<std::string> args = {"create"};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"img", "sh", "-c", command});
  const auto created = docker.docker(args);
  if (created.exit_code != 0) return created;
  const std::string id = created.out.substr(0, created.out.find_first_of(" \n"));
  auto ran = docker.start_and_read(id);
  docker.docker({"rm", "-f", id});
  return ran;
}

}  // namespace

TEST_CASE(
    "cdi docker: a granted CDI name runs and the container sees the node, and ungranted, revoked or other names are "
    "refused",
    "[e2e][cdi-docker]") {
  FixtureRoot machine;
  two_amd_instinct(machine);
  REQUIRE(run_tool({"cdi", "generate", "--root", machine.str()}).exit_code == 0);
  CdiDocker docker(machine, "web");
  docker.import_busybox("img");
  const std::vector<std::string> dri = {"--device", "rediacc.io/dri=renderD128"};
  const std::string show = "stat -c '%F %t:%T' /dev/dri/renderD128";

  refused_by_gate(docker, run_with(docker, dri, show),
                  "has no grant for rediacc.io/dri=renderD128; an operator can grant it with: rediacc-gpu grant web "
                  "--device rediacc.io/dri=renderD128");

  grant(machine, "rediacc.io/dri=renderD128");  // no restart of the plugin or the daemon
  const auto seen = run_with(docker, dri, show);
  ran(docker, seen);
  CHECK(seen.out == "character special file e2:80\n");  // 226, 128

  refused_by_gate(docker, run_with(docker, {"--device", "rediacc.io/dri=renderD129"}, "true"),
                  "has no grant for rediacc.io/dri=renderD129");

  REQUIRE(run_tool({"revoke", "web", "--device", "rediacc.io/dri=renderD128", "--root", machine.str()}).exit_code == 0);
  refused_by_gate(docker, run_with(docker, dri, show), "has no grant for rediacc.io/dri=renderD128");

  // An AMD card, by number and by PCI address (the name that stays on it when the kernel numbers
  // cards anew): /dev/kfd and that card's render node, not the other card's.
  const auto amd_card_seen = [&](const std::string& name, const std::string& render, const std::string& other) {
    grant(machine, name);
    const auto r = run_with(docker, {"--device", name},
                            "stat -c '%n %F' /dev/kfd /dev/dri/" + render + "; test ! -e /dev/dri/" + other);
    ran(docker, r);
    CHECK_THAT(r.out, Catch::Contains("/dev/kfd character special file") &&
                          Catch::Contains("/dev/dri/" + render + " character special file"));
  };
  amd_card_seen("rediacc.io/amd=gpu0", "renderD128", "renderD129");
  amd_card_seen("rediacc.io/amd=pci-0000-c3-00.0", "renderD129", "renderD128");
  grant(machine, "rediacc.io/dri=pci-0000-43-00.0");
  const auto keyed_dri = run_with(docker, {"--device", "rediacc.io/dri=pci-0000-43-00.0"}, show);
  ran(docker, keyed_dri);
  CHECK(keyed_dri.out == "character special file e2:80\n");

  // Every other way to a device is refused; the video group grants nothing and runs.
  const std::vector<std::pair<std::vector<std::string>, std::string>> refused = {
      {{"--gpus", "all"}, "a device request with driver"},
      {{"--device", "/dev/dri/renderD128"}, "raw device \"/dev/dri/renderD128\""},
      {{"--privileged"}, "--privileged"},
      {{"-v", "/dev:/x"}, "a bind of \"/dev\""},
      {{"--device-cgroup-rule", "c 226:* rmw"}, "device cgroup rules"},
      {{"--runtime", "nvidia"}, "runtime \"nvidia\""},
  };
  for (const auto& [flags, words] : refused) {
    INFO(flags.front());
    refused_by_gate(docker, run_with(docker, flags, "true"), words);
  }
  ran(docker, run_with(docker, {"--group-add", "video"}, "true"));
}

// On an MI300X in CPX mode each partition is grantable alone and the card's name gives all of it:
// Docker 26 injects exactly the nodes the gate let through.
TEST_CASE("cdi docker: a partition's name gives that partition alone, the card's name every partition",
          "[e2e][cdi-docker]") {
  FixtureRoot machine;
  amd_mi300x_partitioned(machine);
  REQUIRE(run_tool({"cdi", "generate", "--root", machine.str()}).exit_code == 0);
  CdiDocker docker(machine, "web");
  docker.import_busybox("img");
  const std::string list = "ls /dev/dri | tr '\\n' ' '; test -c /dev/kfd && echo kfd";
  refused_by_gate(docker, run_with(docker, {"--device", "rediacc.io/amd=gpu0-cpx3"}, list),
                  "has no grant for rediacc.io/amd=gpu0-cpx3");
  grant(machine, "rediacc.io/amd=gpu0-cpx3");
  const auto part = run_with(docker, {"--device", "rediacc.io/amd=gpu0-cpx3"}, list);
  ran(docker, part);
  CHECK(part.out == "renderD131 kfd\n");
  grant(machine, "rediacc.io/amd=gpu1");
  const auto card = run_with(docker, {"--device", "rediacc.io/amd=gpu1"}, list);
  ran(docker, card);
  CHECK(card.out == "renderD136 renderD137 renderD138 renderD139 renderD140 renderD141 renderD142 renderD143 kfd\n");
  refused_by_gate(docker, run_with(docker, {"--device", "rediacc.io/amd=gpu0-cpx4"}, list),
                  "has no grant for rediacc.io/amd=gpu0-cpx4");
}

TEST_CASE(
    "cdi docker: nvidia.com/gpu=all passes the gate only when granted, and then dockerd (not the gate) fails on the "
    "missing host files",
    "[e2e][cdi-docker]") {
  FixtureRoot machine;
  two_nvidia_datacenter(machine, true);  // a real-shaped nvidia.yaml, no NVIDIA driver here
  CdiDocker docker(machine, "web");
  docker.import_busybox("img");
  const std::vector<std::string> all = {"--device", "nvidia.com/gpu=all"};
  refused_by_gate(docker, run_with(docker, all, "true"), "has no grant for nvidia.com/gpu=all");
  grant(machine, "nvidia.com/gpu=all");
  const auto r = run_with(docker, all, "true");
  INFO(r.err << docker.plugin_log());
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, !Catch::Contains("authorization denied"));
  // The nodes are there (the fixture's); a file the spec mounts is not: dockerd says so, not the gate.
  CHECK_THAT(r.err, Catch::Contains("CDI device injection failed") || Catch::Contains("nvidia-persistenced/socket"));
}

TEST_CASE("cdi docker: doctor's container check sees a granted device inside, and tells the gate's refusal apart",
          "[e2e][cdi-docker]") {
  FixtureRoot machine;
  intel_discrete(machine);
  REQUIRE(run_tool({"cdi", "generate", "--root", machine.str()}).exit_code == 0);
  // The canary's engine asks the daemon itself, on its socket as seen from the machine.
  const auto container_check = [&] {
    const auto r = run_tool({"doctor", "-o", "json", "--root", machine.str(), "--repo", "web", "--image", "img",
                             "--docker-host", "unix://" + cdi_docker_root() + "/run/docker.sock"});
    INFO(r.out << r.err);
    nlohmann::json found;
    const auto doctor_doc = nlohmann::json::parse(r.out);

    for (const auto& c : doctor_doc["checks"]) {
      if (c["id"] == "container") found = c;
    }
    REQUIRE_FALSE(found.is_null());
    CHECK(found["layer"] == 6);
    return found;
  };
  {
    CdiDocker docker(machine, "web");
    docker.import_busybox("img");
    const auto none = container_check();
    CHECK(none["status"] == "fail");
    CHECK_THAT(none["decision"].get<std::string>(), Catch::Contains("rediacc-gpu grant web --device"));

    // What the daemon itself says: the spec directories it reads (API 1.44+) and its version.
    machine.write("/etc/rediacc/gpu/plugins/web.env", "REDIACC_GPU_DOCKER_HOST=" + CdiDocker::machine_host() + "\n");
    const auto checks =
        nlohmann::json::parse(run_tool({"doctor", "-o", "json", "--root", machine.str()}).out)["checks"];
    std::map<std::string, nlohmann::json> by_id;
    for (const auto& c : checks) by_id[c["id"].get<std::string>()] = c;
    INFO(checks.dump(2));
    CHECK_THAT(by_id["daemon-cdi-dirs"]["observed"].get<std::string>(),
               Catch::Contains("the daemon of repository web reads /"));
    CHECK(by_id["docker-escapes"]["status"] == "warn");
    CHECK_THAT(by_id["docker-escapes"]["observed"].get<std::string>(),
               Catch::Contains("the daemon of repository web " + docker.server_version()) &&
                   Catch::Contains("CVE-2026-34040") && !Catch::Contains("CVE-2024-41110 ("));
    std::filesystem::remove(machine.host("/etc/rediacc/gpu/plugins/web.env"));

    grant(machine, "rediacc.io/dri=renderD128");
    const auto seen = container_check();
    INFO(seen.dump() << docker.plugin_log());
    CHECK(seen["status"] == "ok");
    // Judged from the container's own listing, by device number.
    CHECK_THAT(seen["observed"].get<std::string>(), Catch::Contains("inside: /dev/dri/renderD128 (226:128)"));
    CHECK_THAT(seen["evidence"].get<std::string>(), Catch::Contains("its own ls -lR /dev"));
    CHECK(docker.docker({"ps", "-aq"}).out.empty());  // and removed after
  }
  // The daemon behind a plugin serving another repository: the refusal is the gate's, not a device fault.
  CdiDocker other(machine, "ci");
  other.import_busybox("img");
  const auto refused = container_check();
  INFO(refused.dump());
  CHECK(refused["status"] == "fail");
  CHECK(refused["meaning"] == "the gate refused the request");
  CHECK_THAT(refused["observed"].get<std::string>(), Catch::Contains("repository \"ci\" has no grant"));
}

TEST_CASE("cdi docker: Compose 2.30+ runs contrib/compose's CDI services when granted, and shows the gate's refusals",
          "[e2e][cdi-docker]") {
  FixtureRoot machine;
  two_nvidia_datacenter(machine, true);  // nvidia.yaml, and render nodes renderD128 and renderD129
  REQUIRE(run_tool({"cdi", "generate", "--root", machine.str()}).exit_code == 0);
  CdiDocker docker(machine, "team-a");
  docker.import_busybox("img");
  const std::filesystem::path compose = source_path("/contrib/compose");
  // Each file's service, run as `docker compose run` would from the file's directory, on the
  // busybox image tagged with the name the file uses (there is no registry here).
  // An override takes the service off every network: otherwise Compose creates the project's
  // default network, and whether dockerd finds a free address pool depends on the host's routes
  // (on some CI hosts every default pool overlaps one), which has nothing to do with the gate.
  const auto compose_run = [&](const std::filesystem::path& file) {
    const YAML::Node doc = YAML::LoadFile(file.string());
    const auto service = doc["services"].begin();
    const std::string name = service->first.as<std::string>();
    REQUIRE(docker.docker({"tag", "img", service->second["image"].as<std::string>()}).exit_code == 0);
    docker.write_file("/run/rgpu/no-network.yaml", "services:\n  " + name + ":\n    network_mode: none\n");
    auto r = docker.docker({"compose", "-p", "rgpu", "-f", file.filename().string(), "-f", "/run/rgpu/no-network.yaml",
                            "run", "--rm", name},
                           file.parent_path().string());
    CHECK_THAT(r.err, !Catch::Contains("Network rgpu_default"));
    return r;
  };
  const auto gate_says = [](const std::filesystem::path& file, const char* key) {
    return YAML::LoadFile(file.string())["x-rediacc-gate"][key].as<std::string>();
  };

  int refused_files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(compose / "refused")) {
    std::ifstream text(entry.path());
    const std::string body((std::istreambuf_iterator<char>(text)), std::istreambuf_iterator<char>());
    INFO(entry.path().filename());
    CHECK_THAT(body, Catch::Contains("\n# Use instead: "));  // every refused form names the CDI form
    const auto r = compose_run(entry.path());
    INFO(r.out << r.err << docker.plugin_log());
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Catch::Contains("authorization denied by plugin " + docker.plugin_name() + ": " +
                                      gate_says(entry.path(), "refused")));
    ++refused_files;
  }
  CHECK(refused_files >= 7);

  // Both asked while team-a holds nothing: what the files say of a repository without grants.
  const auto dri = compose_run(compose / "dri-cdi.yaml");
  CHECK_THAT(dri.err, Catch::Contains(gate_says(compose / "dri-cdi.yaml", "without-grant")));
  const auto nvidia = compose_run(compose / "nvidia-cdi.yaml");
  CHECK_THAT(nvidia.err, Catch::Contains(gate_says(compose / "nvidia-cdi.yaml", "without-grant")));
  // The file names the card by its PCI address (0000:41:00.0, whose render node is renderD128
  // here): Compose keeps the entry whole, and the gate and dockerd resolve it.
  grant(machine, "rediacc.io/dri=pci-0000-41-00.0", "team-a");
  const auto dri_granted = compose_run(compose / "dri-cdi.yaml");
  INFO(dri_granted.out << dri_granted.err << docker.plugin_log());
  CHECK(dri_granted.exit_code == 0);
  CHECK_THAT(dri_granted.out, Catch::Contains("renderD128"));

  grant(machine, "nvidia.com/gpu=all", "team-a");
  const auto nvidia_granted = compose_run(compose / "nvidia-cdi.yaml");
  INFO(nvidia_granted.err);
  CHECK_THAT(nvidia_granted.err, !Catch::Contains("authorization denied"));
  CHECK_THAT(nvidia_granted.err, Catch::Contains("CDI device injection failed") ||  // no NVIDIA driver here
                                     Catch::Contains("nvidia-persistenced/socket"));
}

namespace {

// POST /build as API clients other than the CLI send it (docker-py, the Go SDK's ImageBuild): the
// context a tar in the body, the builder picked by the query (version=2 is BuildKit's).
rgpu::docker::DockerReply raw_build(const CdiDocker& docker, const FixtureRoot& context, const std::string& query) {
  const auto tar = run_program("/usr/bin/tar", {"-C", context.str(), "-c", "Dockerfile"});
  REQUIRE(tar.exit_code == 0);
  const auto reply = rgpu::docker::docker_call(docker.root() + "/run/docker.sock", "POST", "/v1.43/build?" + query,
                                               tar.out, std::chrono::seconds(120));
  REQUIRE(reply);
  INFO(query << ": " << reply->status << " " << reply->body << docker.plugin_log());
  return *reply;
}

}  // namespace

TEST_CASE(
    "cdi docker: a daemon that reads the machine's whole /etc/cdi builds with the classic builder, and BuildKit's "
    "refusal says why and what to do",
    "[e2e][cdi-docker]") {
  FixtureRoot machine;
  intel_discrete(machine);
  CdiDocker docker(machine, "web");
  docker.import_busybox("img");
  FixtureRoot context;
  context.write("/Dockerfile", "FROM img\nRUN true\n");

  const auto classic = docker.docker({"build", "-q", "-t", "built", "."}, context.str(), {{"DOCKER_BUILDKIT", "0"}});
  INFO(classic.out << classic.err << docker.plugin_log());
  CHECK(classic.exit_code == 0);

  const auto buildkit = docker.docker({"build", "-t", "built", "."}, context.str());
  INFO(buildkit.out << buildkit.err << docker.plugin_log());
  CHECK(buildkit.exit_code != 0);
  CHECK_THAT(buildkit.err, Catch::Contains("reads CDI specs in /etc/cdi, which is not the repository's own view"));
  CHECK_THAT(buildkit.err, Catch::Contains("DOCKER_BUILDKIT=0 docker build"));

  // BuildKit asked for by /build's query, not by /session or /grpc: refused alike.
  const auto by_query = raw_build(docker, context, "t=raw&vers%69on=2&version=1");
  CHECK(by_query.status == 403);
  CHECK_THAT(by_query.body, Catch::Contains("reads CDI specs in /etc/cdi, which is not the repository's own view"));
  const auto classic_by_query = raw_build(docker, context, "t=raw&version=1&version=2");
  CHECK(classic_by_query.status == 200);
  CHECK_THAT(classic_by_query.body, Catch::Contains("Successfully built"));
}

namespace {

// What the builder may do without reaching past the gate: no step on the host's network (its
// network-host entitlement is on unless turned off), none privileged.
constexpr const char* kKeptBuilder = R"("builder": {"entitlements": {"network-host": false}})";

// A build context whose RUN step writes a file, and a Compose file that builds it and prints it;
// no network anywhere (the test daemon runs with --bridge=none: a step on the default bridge
// fails with "network bridge not found").
void build_context(FixtureRoot& context) {
  context.write("/Dockerfile", "FROM img\nRUN echo built > /built\n");
  context.write("/compose.yaml",
                "services:\n  app:\n    build: {context: ., network: none}\n    image: composed\n"
                "    network_mode: none\n    command: [\"cat\", \"/built\"]\n");
}

CdiDockerOptions on_view(const FixtureRoot& machine) {
  REQUIRE(tool_on(machine, {"cdi", "views"}).exit_code == 0);
  CdiDockerOptions options;
  options.cdi_dir = machine.host("/var/lib/rediacc/gpu/cdi/web").string();
  options.daemon_json_extra = kKeptBuilder;
  return options;
}

}  // namespace

TEST_CASE(
    "cdi docker: BuildKit builds and compose up --build pass for a repository with no grant whose daemon reads only "
    "its "
    "own view, and a step on the host's network is refused by the builder itself",
    "[e2e][cdi-docker]") {
  FixtureRoot machine;
  intel_discrete(machine);
  FixtureRoot context;
  build_context(context);
  CdiDocker docker(machine, on_view(machine));
  docker.import_busybox("img");
  ran(docker, docker.docker({"build", "--network", "none", "-t", "built", "."}, context.str()));
  // dockerd builds /build?version=2 with BuildKit (its progress comes as moby.buildkit.trace).
  const auto by_query = raw_build(docker, context, "t=raw&networkmode=none&version=2");
  CHECK(by_query.status == 200);
  CHECK_THAT(by_query.body, Catch::Contains("moby.buildkit.trace") && !Catch::Contains("errorDetail"));
  const auto up = docker.docker({"compose", "up", "--build", "--abort-on-container-exit"}, context.str());
  ran(docker, up);
  CHECK_THAT(up.out, Catch::Contains("built"));
  const auto host = docker.docker({"build", "--network", "host", "-t", "built", "."}, context.str());
  INFO(host.out << host.err);
  CHECK(host.exit_code != 0);
  CHECK_THAT(host.err, Catch::Contains("network.host"));
}

TEST_CASE(
    "cdi docker: BuildKit is refused, with the reason and the fix, while the builder may use the host's network or run "
    "steps privileged, even on the view",
    "[e2e][cdi-docker]") {
  FixtureRoot machine;
  intel_discrete(machine);
  FixtureRoot context;
  build_context(context);
  for (const auto& [extra, words] : std::vector<std::pair<std::string, std::string>>{
           {"", "lets builds use the host's network"},
           {R"("builder": {"entitlements": {"network-host": false, "security-insecure": true}})",
            "lets builds run privileged"},
           // Go's decoder lets the last of two spellings win; dockerd does not check keys under "builder".
           {R"("builder": {"entitlements": {"network-host": false}, "Entitlements": {"network-host": true}})",
            "cannot be judged"}}) {
    auto options = on_view(machine);
    options.daemon_json_extra = extra;
    CdiDocker docker(machine, options);
    docker.import_busybox("img");
    const auto build = docker.docker({"build", "--network", "none", "-t", "built", "."}, context.str());
    INFO(extra << "\n" << build.out << build.err << docker.plugin_log());
    CHECK(build.exit_code != 0);
    CHECK_THAT(build.err, Catch::Contains(words));
    CHECK_THAT(build.err, Catch::Contains("DOCKER_BUILDKIT=0 docker build"));
  }
}

// dockerd reads its builder's entitlements when it starts, never again (no SIGHUP reload, no flag):
// an edit of daemon.json before a restart is not what its builds run with.
TEST_CASE(
    "cdi docker: a builder edited out of security-insecure in daemon.json but not restarted still grants it, and "
    "BuildKit stays refused, saying to restart the daemon",
    "[e2e][cdi-docker]") {
  FixtureRoot machine;
  intel_discrete(machine);
  FixtureRoot context;
  build_context(context);
  auto options = on_view(machine);
  options.daemon_json_extra = R"("builder": {"entitlements": {"network-host": false, "security-insecure": true}})";
  CdiDocker docker(machine, options);
  docker.import_busybox("img");
  const std::vector<std::string> build = {"build", "--network", "none", "-t", "built", "."};
  refused_by_gate(docker, docker.docker(build, context.str()), "lets builds run privileged");

  const std::string config = docker.root() + "/run/rgpu/daemon.json";
  std::stringstream text;
  text << std::ifstream(config).rdbuf();
  const std::string insecure = R"(, "security-insecure": true)";
  std::string edited = text.str();
  REQUIRE(edited.find(insecure) != std::string::npos);
  edited.erase(edited.find(insecure), insecure.size());
  std::ofstream(config) << edited;
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));  // the gate keeps a build verdict 2 s
  const auto after_edit = docker.docker(build, context.str());
  refused_by_gate(docker, after_edit, "/run/rgpu/daemon.json changed after the daemon started");
  CHECK_THAT(after_edit.err, Catch::Contains("restart the daemon"));
}

TEST_CASE(
    "cdi docker: a socket-activated daemon, whose socket another process holds, is found behind its socket and builds "
    "on its view",
    "[e2e][cdi-docker]") {
  FixtureRoot machine;
  intel_discrete(machine);
  FixtureRoot context;
  build_context(context);
  auto options = on_view(machine);
  options.socket_activated = true;
  CdiDocker docker(machine, options);
  docker.import_busybox("img");
  ran(docker, docker.docker({"build", "--network", "none", "-t", "built", "."}, context.str()));
}

// BuildKit parses `RUN --device` only in its Dockerfile frontend built with the labs tag, which a
// tenant names with `# syntax=` (here the one built in the 28.5 root, imported as an image). 28.5's
// BuildKit injects the CDI devices a step asks for from the daemon's CDI cache: only the view's, each
// marked there for builds (without the mark 28.5 refuses every device: its builder has no `device`
// entitlement). 26's BuildKit (0.13) knows no CDI and drops the request: the step runs with none.
TEST_CASE(
    "cdi docker: a build step's RUN --device reaches a granted name where BuildKit injects CDI devices, and "
    "never one the repository does not hold",
    "[e2e][cdi-docker]") {
  FixtureRoot machine;
  two_amd_instinct(machine);
  REQUIRE(tool_on(machine, {"cdi", "generate"}).exit_code == 0);
  grant(machine, "rediacc.io/dri=renderD128");
  CdiDocker docker(machine, on_view(machine));
  docker.import_busybox("img");
  docker.import_program("rgpu/dockerfile-labs", dockerfile_labs_frontend());
  const auto build_with = [&](const std::string& device) {
    FixtureRoot context;
    context.write("/Dockerfile", "# syntax=rgpu/dockerfile-labs\nFROM img\nRUN --device=" + device + " ls /dev/dri\n");
    return docker.docker({"build", "--network", "none", "--progress", "plain", "--no-cache", "."}, context.str());
  };
  const auto granted = build_with("rediacc.io/dri=renderD128");
  const auto kind = build_with("rediacc.io/dri");  // every device of the kind the daemon knows
  const auto other = build_with("rediacc.io/dri=renderD129");
  const auto required = build_with("rediacc.io/dri=renderD129,required");
  INFO("granted:\n"
       << granted.err << "\nkind:\n"
       << kind.err << "\nother:\n"
       << other.err << "\nrequired:\n"
       << required.err << docker.plugin_log());
  for (const auto* r : {&granted, &kind, &other, &required}) CHECK_THAT(r->err, !Catch::Contains("renderD129\n"));
  CHECK(other.exit_code != 0);
  CHECK_THAT(other.err, Catch::Contains("ls: /dev/dri: No such file or directory"));
  CHECK(required.exit_code != 0);
  if (cdi_docker_major() < 28) {
    for (const auto* r : {&granted, &kind, &required}) {
      CHECK(r->exit_code != 0);
      CHECK_THAT(r->err, Catch::Contains("ls: /dev/dri: No such file or directory"));
    }
    return;
  }
  CHECK(granted.exit_code == 0);
  CHECK_THAT(granted.err, Catch::Contains(" renderD128\n"));
  CHECK(kind.exit_code == 0);
  CHECK_THAT(kind.err, Catch::Contains(" renderD128\n"));
  CHECK_THAT(required.err, Catch::Contains("required device \"rediacc.io/dri=renderD129\" is not registered"));

  // Revoked while the daemon runs: the next build's step no longer has it, as no container would.
  REQUIRE(tool_on(machine, {"revoke", "web", "--device", "rediacc.io/dri=renderD128"}).exit_code == 0);
  const auto revoked = build_with("rediacc.io/dri=renderD128,required");
  INFO("revoked:\n" << revoked.err);
  CHECK(revoked.exit_code != 0);
  CHECK_THAT(revoked.err, Catch::Contains("required device \"rediacc.io/dri=renderD128\" is not registered"));
}
