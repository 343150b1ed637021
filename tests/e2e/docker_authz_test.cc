// The gate in front of a real Docker daemon: Debian's dockerd 20.10 calls our plugin
// (rediacc-gpu authz-plugin) for every API request the real docker CLI sends.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/support/docker_daemon.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu::test;

namespace {

// `docker run --rm FLAGS img true` for each entry, refused by the plugin with its words.
void refused_runs(const DockerDaemon& daemon, const PluginProcess& plugin,
                  const std::vector<std::pair<std::vector<std::string>, std::string>>& cases) {
  for (const auto& [flags, words] : cases) {
    std::vector<std::string> args = {"run", "--rm"};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {"img", "true"});
    INFO(flags.back());
    refused_by_plugin(daemon.docker(args), plugin.name(), words);
  }
}

}  // namespace

TEST_CASE("e2e: behind the plugin, a real dockerd runs what attaches no hardware and refuses every other way",
          "[e2e]") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  FixtureRoot place;
  PluginProcess plugin(unique_name("rgpu-e2e-refusals"), "web", root.str(), DockerDaemon::host_in(place.path()));
  DockerDaemon daemon({"--authorization-plugin=" + plugin.name()}, place.path());
  daemon.import_busybox("img");

  for (const std::vector<std::string>& ok : {std::vector<std::string>{"run", "--rm", "img", "true"},
                                             {"run", "--rm", "--group-add", "video", "img", "true"}}) {
    const auto r = daemon.docker(ok);
    INFO(r.err << plugin.log());
    CHECK(r.exit_code == 0);
  }
  const std::vector<std::pair<std::vector<std::string>, std::string>> refused = {
      {{"--gpus", "all"}, "a device request with driver"},
      {{"--device", "/dev/dri/renderD128"}, "raw device \"/dev/dri/renderD128\""},
      {{"--device", "/dev/null:/dev/dri/renderD128"}, "raw device \"/dev/null\""},
      {{"-v", "/dev:/x"}, "a bind of \"/dev\""},
      {{"--mount", "type=bind,src=/dev,dst=/x"}, "a mount of \"/dev\""},
      {{"--privileged"}, "--privileged"},
      {{"--device-cgroup-rule", "c 226:* rmw"}, "device cgroup rules"},
      {{"--runtime", "nvidia"}, "runtime \"nvidia\""},
  };
  refused_runs(daemon, plugin, refused);
  // One journal line per refusal, naming the repository and the route.
  const auto log = plugin.log();
  size_t lines = 0;
  for (size_t at = log.find("refused repo=web route=\"POST /v1.41/containers/create\""); at != std::string::npos;
       at = log.find("refused repo=web route=\"POST /v1.41/containers/create\"", at + 1)) {
    ++lines;
  }
  CHECK(lines == refused.size());
}

TEST_CASE("e2e: a link a tenant made in its own volume, bound by its host path, is refused by the real daemon's gate",
          "[e2e]") {
  // The plugin judges host paths on this machine, as the units setup writes run it (--root /);
  // it reads no grant here, as no request names a CDI device.
  FixtureRoot place;
  PluginProcess plugin(unique_name("rgpu-e2e-links"), "web", "/", DockerDaemon::host_in(place.path()));
  DockerDaemon daemon({"--authorization-plugin=" + plugin.name()}, place.path());
  daemon.import_busybox("img");

  REQUIRE(daemon.docker({"volume", "create", "vol"}).exit_code == 0);
  const auto made = daemon.docker({"run", "--rm", "-v", "vol:/data", "img", "ln", "-s", "/sys", "/data/escape"});
  INFO(made.err << plugin.log());
  REQUIRE(made.exit_code == 0);
  auto mountpoint = daemon.docker({"volume", "inspect", "-f", "{{.Mountpoint}}", "vol"}).out;
  mountpoint.erase(mountpoint.find_last_not_of("\n") + 1);
  REQUIRE(std::filesystem::is_symlink(mountpoint + "/escape"));

  // The volume by its name is the way to it; by its host path it lies in the daemon's data root,
  // found live from the running dockerd, where every stored container's configuration is too.
  const auto data = daemon.docker({"run", "--rm", "-v", "vol:/x", "img", "ls", "/x"});
  INFO(data.err << plugin.log());
  CHECK(data.exit_code == 0);
  refused_by_plugin(daemon.docker({"run", "--rm", "-v", mountpoint + ":/x", "img", "ls", "/x"}), plugin.name(),
                    "'s data root");
  // So is the daemon's own socket, wherever it was started to listen: no list names this one.
  const std::string socket = DockerDaemon::host_in(place.path()).substr(std::string("unix://").size());
  refused_by_plugin(daemon.docker({"run", "--rm", "-v", socket + ":/var/run/docker.sock", "img", "true"}),
                    plugin.name(), "'s socket");

  refused_by_plugin(daemon.docker({"run", "--rm", "-v", mountpoint + "/escape:/x", "img", "ls", "/x"}), plugin.name(),
                    "reaches /sys on the host (it resolves to /sys)");
  refused_by_plugin(
      daemon.docker({"run", "--rm", "--mount", "type=bind,src=" + mountpoint + "/escape,dst=/x", "img", "true"}),
      plugin.name(), "reaches /sys");
  // A directory dockerd would create under the link is judged by the link.
  refused_by_plugin(daemon.docker({"run", "--rm", "-v", mountpoint + "/escape/new:/x", "img", "true"}), plugin.name(),
                    "reaches /sys");

  const std::vector<std::pair<std::vector<std::string>, std::string>> other_ways = {
      {{"-v", "/var/run/udev:/x"}, "reaches /run/udev"},
      {{"-v", "/proc/self/root/dev:/x"}, "/proc"},
      {{"-v", "/etc:/x"}, "reaches /etc/cdi"},
      {{"-v", "/run/docker.sock:/s"}, "reaches /run/docker.sock"},
      {{"--cap-add", "SYS_ADM\u0131N"}, "capability CAP_SYS_ADMIN"},
      {{"--cap-add", "DAC_READ_SEARCH"}, "capability CAP_DAC_READ_SEARCH"},
      {{"--pid", "host"}, "--pid host"},
      {{"--security-opt", "systempaths=unconfined"}, "MaskedPaths"},
      {{"--security-opt", "label=type:spc_t"}, "security option \"label=type:spc_t\""},
      {{"--security-opt", "no-new-privileges=false"}, "no-new-privileges=false"},
  };
  refused_runs(daemon, plugin, other_ways);
  // The CLI reads a seccomp profile file and sends its JSON inline.
  FixtureRoot files;
  files.write("/profile.json", R"({"defaultAction":"SCMP_ACT_ALLOW"})");
  refused_by_plugin(daemon.docker({"run", "--rm", "--security-opt", "seccomp=" + files.host("/profile.json").string(),
                                   "img", "true"}),
                    plugin.name(), "inline profile");
  // The classic builder: a build runs, one whose RUN steps would share the host's network does not.
  files.write("/context/Dockerfile", "FROM img\nRUN true\n");
  const std::string context = files.host("/context").string();
  const auto built = daemon.docker({"build", "-q", "-t", "built", context}, "", {{"DOCKER_BUILDKIT", "0"}});
  INFO(built.err << plugin.log());
  CHECK(built.exit_code == 0);
  refused_by_plugin(daemon.docker({"build", "--network", "host", context}, "", {{"DOCKER_BUILDKIT", "0"}}),
                    plugin.name(), "--network host");
  // What ordinary GPU workloads ask for still runs.
  const auto ok = daemon.docker({"run", "--rm", "--cap-add", "IPC_LOCK", "--cap-add", "sys_nice", "--security-opt",
                                 "no-new-privileges", "--group-add", "video", "img", "true"});
  INFO(ok.err << plugin.log());
  CHECK(ok.exit_code == 0);
}

// check-image and doctor read the image's configuration from the real daemon's API: no container.
TEST_CASE("e2e: check-image compares an image's CUDA with the host driver through a real dockerd", "[e2e]") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);  // driver 550.54.15, NVML says CUDA 12.4
  DockerDaemon daemon;
  daemon.import_busybox("base");
  const auto created = daemon.docker({"create", "--name", "seed", "base", "true"});
  INFO(created.err);
  REQUIRE(created.exit_code == 0);
  const std::vector<std::pair<std::string, std::string>> images = {
      {"cuda13", "NVIDIA_REQUIRE_CUDA=cuda>=13.0 brand=unknown,driver>=575,driver<576"},
      {"cuda124", "NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=470,driver<471"},
      {"legacy126", "CUDA_VERSION=12.6.3"},
  };
  for (const auto& [name, env] : images) {
    REQUIRE(daemon.docker({"commit", "--change", "ENV " + env, "seed", "example.com/team/" + name + ":v1"}).exit_code ==
            0);
  }
  const auto check = [&](const std::string& image, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {
        "check-image", "example.com/team/" + image + ":v1", "--root", root.str(), "--docker-host", daemon.host()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_tool(args);
  };
  auto too_new = check("cuda13");
  INFO(too_new.out << too_new.err);
  CHECK(too_new.exit_code == 1);
  CHECK_THAT(too_new.err, Catch::Contains("needs CUDA >= 13.0, but the host driver 550.54.15 supports CUDA 12.4") &&
                              Catch::Contains("580.65.06 or later") && Catch::Contains("older tag"));
  auto fits = check("cuda124");
  CHECK(fits.exit_code == 0);
  CHECK_THAT(fits.out, Catch::Contains("needs CUDA >= 12.4; the host driver 550.54.15 supports CUDA 12.4 (NVML)"));
  CHECK(check("legacy126").exit_code == 1);
  REQUIRE(daemon.docker({"tag", "base", "example.com/team/base:v1"}).exit_code == 0);
  auto plain = check("base");
  CHECK(plain.exit_code == 0);
  CHECK_THAT(plain.out, Catch::Contains("states no CUDA requirement"));
  auto missing = check("nothing-here");
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.err, Catch::Contains("has no image \"example.com/team/nothing-here:v1\"; pull it there first"));

  // doctor --repo --image carries the same finding at layer 6.
  auto d = run_tool({"doctor", "-o", "json", "--root", root.str(), "--repo", "web", "--image",
                     "example.com/team/cuda13:v1", "--docker-host", daemon.host()});
  auto checks = nlohmann::json::parse(d.out)["checks"];
  bool found = false;
  for (const auto& c : checks) {
    if (c["id"] != "image-cuda") continue;
    found = true;
    CHECK(c["status"] == "fail");
    CHECK(c["layer"] == 6);
    CHECK_THAT(c["observed"].get<std::string>(), Catch::Contains("supports CUDA 12.4"));
  }
  CHECK(found);
  CHECK(d.exit_code == 1);
}
