// The gate decides on what dockerd will apply, not on the text of the request: capability names
// as Go upper-cases them, security options as dockerd parses them, bind sources as the kernel
// resolves them on the machine. Each case here was a way around the gate (issue: "The gate must
// hold against what dockerd really applies").

#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <set>

#include "admission/capabilities.h"
#include "admission/decide.h"
#include "admission/host_paths.h"
#include "admission/machine_world.h"
#include "admission/route.h"
#include "tests/support/authz_envelope.h"
#include "tests/support/build_paths.h"
#include "tests/support/fake_world.h"
#include "tests/support/fixture_root.h"
#include "tests/support/gate_requests.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu;
using namespace rgpu::admission;
using namespace rgpu::grants;
using namespace rgpu::test;

namespace {

// A machine with the links a distribution has and those a tenant could make in its own volume.
struct GateMachine {
  FixtureRoot root;
  RootFs fs{root.path()};
  HostPathJudge judge{fs, std::chrono::seconds(2), fixed_paths_only()};
  GateMachine() {
    for (const char* d : {"/dev/dri", "/sys/bus/pci", "/run/udev", "/run/cdi", "/opt/cdi", "/etc/rediacc/gpu",
                          "/srv/data", "/srv/volumes/vol/_data", "/proc/1"}) {
      root.mkdir(d);
    }
    root.link("/var/run", "../run");
    root.link("/etc/cdi", "/opt/cdi");  // an operator's spec directory that is itself a link
    root.link("/proc/self", "1");
    root.link("/proc/1/root", "/");
    root.link("/srv/volumes/vol/_data/escape", "/sys");
    root.link("/srv/volumes/vol/_data/up", "../../../..");
    root.link("/srv/data/specs", "/etc/cdi");
    root.link("/srv/data/loop", "loop");
    root.char_node("/srv/data/node", 226, 128);
  }
};

// The machines of these tests keep their tenants' data under /srv, as an operator names it
// (setup --bind-root /srv): what they judge is what lies there, or reaches past it.
PolicyRules srv_roots() {
  PolicyRules rules;
  rules.bind_roots = std::make_shared<const BindRoots>(BindRoots{{.path = "/srv"}});
  return rules;
}

Decision create_on(GateWorld& machine, const std::string& host_config) {
  GrantSet grants;
  AuthzRequest r{"POST", "/v1.41/containers/create", "application/json",
                 R"({"Image":"img","HostConfig":)" + host_config + "}"};
  return decide(grants, "web", r, DecideOptions{.world = machine, .policy = srv_roots()});
}

Decision create_hardened(const std::string& host_config) { return create_on(null_world(), host_config); }

std::string caps(const std::string& field, const std::string& json_value) {
  return "{\"" + field + "\":" + json_value + "}";
}

}  // namespace

TEST_CASE("gate: capabilities are judged as dockerd normalises them (Go upper-casing, CAP_ prefix, one string)") {
  // U+0131 dotless i and U+017F long s upper-case into ASCII in Go: dockerd grants CAP_SYS_ADMIN.
  refused(create_hardened(caps("CapAdd", R"(["SYS_ADMıN"])")), "capability CAP_SYS_ADMIN (written \"SYS_ADMıN\")");
  refused(create_hardened(caps("CapAdd", R"(["cap_ſys_ptrace"])")), "CAP_SYS_PTRACE");
  refused(create_hardened(caps("CapAdd", R"(["\u017fys_module"])")), "CAP_SYS_MODULE");
  // CapAdd is a StrSlice: one string is one capability.
  refused(create_hardened(caps("CapAdd", R"("SYS_ADMIN")")), "CAP_SYS_ADMIN");
  // Added after the drop: a name in both lists is granted.
  refused(create_hardened(R"({"CapAdd":["SYS_ADMIN"],"CapDrop":["SYS_ADMIN"]})"), "CAP_SYS_ADMIN");
  refused(create_hardened(R"({"CapAdd":["ALL"],"CapDrop":["SYS_ADMIN"]})"), "gives every capability");
  refused(create_hardened(caps("CapAdd", R"(["all"])")), "gives every capability");
  for (const char* cap : {"DAC_READ_SEARCH", "SYS_PTRACE", "BPF", "PERFMON", "SYS_BOOT", "MAC_ADMIN", "MAC_OVERRIDE",
                          "SYS_RAWIO", "SYSLOG", "SYS_TIME", "CHECKPOINT_RESTORE"}) {
    refused(create_hardened(caps("CapAdd", std::string("[\"") + cap + "\"]")), std::string("CAP_") + cap);
  }
  // Look-alikes whose upper case is not ASCII name nothing dockerd knows, and neither do typos.
  for (const char* cap : {"SYS_ADMİN", "SYS_ADM\u0131N_", "ＳYS_ADMIN", "SYS_ADMIN ", "CAP_CAP_SYS_ADMIN", ""}) {
    refused(create_hardened(caps("CapAdd", std::string("[\"") + cap + "\"]")), "no capability Docker knows");
  }
  refused(create_hardened(caps("CapAdd", "[null]")), "no capability Docker knows");
  refused(create_hardened(caps("CapDrop", R"(["NOT_A_CAP"])")), "no capability Docker knows");
  refused(create_hardened(caps("CapAdd", "{}")), "not a list");
  // What GPU workloads ask for passes.
  allowed(create_hardened(caps("CapAdd", R"(["IPC_LOCK","sys_nice","CAP_SYS_RESOURCE","NET_ADMIN","ſetuid"])")));
  allowed(create_hardened(caps("CapAdd", R"("ipc_lock")")));
  allowed(create_hardened(R"({"CapDrop":["ALL"],"CapAdd":["CHOWN"]})"));
  allowed(create_hardened(R"({"CapAdd":null,"CapDrop":"NET_RAW"})"));
}

TEST_CASE("gate: capability normalisation agrees with Go's strings.ToUpper for every rune that matters") {
  CHECK(normalise_capability("sys_admin") == "CAP_SYS_ADMIN");
  CHECK(normalise_capability("Cap_Sys_Admin") == "CAP_SYS_ADMIN");
  CHECK(normalise_capability("SYS_ADMıN") == "CAP_SYS_ADMIN");
  CHECK(normalise_capability("ſYS_ADMIN") == "CAP_SYS_ADMIN");
  CHECK(normalise_capability("aLl") == "ALL");
  CHECK_FALSE(normalise_capability("SYS_ADM\xC4"));  // a cut UTF-8 sequence is U+FFFD to Go
  CHECK_FALSE(normalise_capability("\u212aILL"));    // the Kelvin sign folds to k, but stays itself upper-cased
  CHECK_FALSE(normalise_capability("CAP_ALL"));
}

TEST_CASE("gate: the capability policy in docs/capabilities.md is the one the gate applies") {
  std::ifstream in(source_path("/docs/capabilities.md"));
  REQUIRE(in);
  const std::regex row(R"(^\| `CAP_([A-Z_]+)` \| (allowed|refused) \| .+ \|$)");
  std::set<std::string> documented;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) continue;
    documented.insert(m[1].str());
    const auto policy = capability_policy();
    const auto it = std::find_if(policy.begin(), policy.end(), [&](const auto& r) { return r.name == m[1].str(); });
    INFO(line);
    REQUIRE(it != policy.end());
    CHECK(it->allowed == (m[2].str() == "allowed"));
    CHECK_THAT(line, Catch::Contains(std::string(it->reason)));
    CHECK(it->for_checkpoints == (line.find("allowed under the rediacc host policy") != std::string::npos));
  }
  CHECK(documented.size() == capability_policy().size());
}

TEST_CASE("gate: security options are judged in every form dockerd parses") {
  for (const char* opt : {"disable",
                          "label=disable",
                          "label:disable",
                          "label=type:spc_t",
                          "label:type:spc_t",
                          "label=type:unconfined_t",
                          "label=level:s0-s0:c0.c1023",
                          "apparmor=unconfined",
                          "apparmor:unconfined",
                          "apparmor=lxc-container-default-with-mounting",
                          "seccomp=unconfined",
                          "seccomp:unconfined",
                          "seccomp=builtin",
                          "no-new-privileges=false",
                          "no-new-privileges:0",
                          "no-new-privileges=yes",
                          "writable-cgroups=true",
                          "systempaths=unconfined",
                          "no-new-privileges ",
                          "NO-NEW-PRIVILEGES",
                          "Label=disable",
                          ""}) {
    refused(create_hardened(std::string(R"({"SecurityOpt":[")") + opt + R"("]})"), "security option");
  }
  // The CLI reads a profile file and sends its JSON inline; one that allows by default is
  // unconfined by another name.
  refused(create_hardened(R"({"SecurityOpt":["seccomp={\"defaultAction\":\"SCMP_ACT_ALLOW\"}"]})"), "inline profile");
  const std::string allows_mount =
      R"(seccomp={\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[{\"names\":[\"mount\"],\"action\":\"SCMP_ACT_ALLOW\"}]})";
  refused(create_hardened(R"({"SecurityOpt":[")" + allows_mount + R"("]})"), "inline profile");
  refused(create_hardened(R"({"SecurityOpt":"no-new-privileges"})"), "not a list");
  allowed(create_hardened(
      R"({"SecurityOpt":["no-new-privileges","no-new-privileges=true","no-new-privileges:1","apparmor=docker-default"]})"));
  allowed(create_hardened(R"({"SecurityOpt":["apparmor=","seccomp="]})"));  // empty: the daemon's own defaults
}

TEST_CASE("gate: masked and read-only paths replaced at all are refused (--security-opt systempaths=unconfined)") {
  refused(create_hardened(R"({"MaskedPaths":[],"ReadonlyPaths":[]})"), "MaskedPaths");
  refused(create_hardened(R"({"ReadonlyPaths":["/proc/sys"]})"), "ReadonlyPaths");
  refused(create_hardened(R"({"MaskedPaths":["/proc/kcore"]})"), "systempaths=unconfined");
  allowed(create_hardened(R"({"MaskedPaths":null,"ReadonlyPaths":null})"));
}

TEST_CASE("gate: host namespaces are refused, another container's stays allowed") {
  refused(create_hardened(R"({"PidMode":"host"})"), "--pid host");
  refused(create_hardened(R"({"IpcMode":"host"})"), "--shm-size");
  refused(create_hardened(R"({"NetworkMode":"host"})"), "--network host");
  refused(create_hardened(R"({"UsernsMode":"host"})"), "remapping");
  refused(create_hardened(R"({"CgroupParent":"/other"})"), "CgroupParent");
  allowed(create_hardened(
      R"({"PidMode":"container:db","IpcMode":"shareable","NetworkMode":"bridge","UTSMode":"","UsernsMode":""})"));
  refused(decide(GrantSet{}, "web",
                 AuthzRequest{"POST", "/v1.41/containers/create", "application/json",
                              R"({"Image":"img","PidMode":"host"})"}),
          "--pid host");  // legacy top level, no HostConfig
}

TEST_CASE("gate: bind sources are resolved on the machine before they are judged") {
  GateMachine m;
  MachineWorld fs(m.judge);
  const auto bind = [&](const std::string& source) {
    return create_on(fs, std::string(R"({"Binds":[")") + source + R"(:/x"]})");
  };
  refused(bind("/var/run/udev"), "reaches /run/udev");  // /var/run is a link to /run
  refused(bind("/proc/self/root/dev"), "/proc");
  refused(bind("/proc/1/root"), "/proc");
  refused(bind("/srv/volumes/vol/_data/escape"), "reaches /sys on the host (it resolves to /sys)");
  refused(bind("/srv/volumes/vol/_data/escape/bus/new-dir"), "reaches /sys");  // missing: judged by its ancestor
  refused(bind("/srv/volumes/vol/_data/up"), "reaches /");
  refused(bind("/srv/data/specs"), "reaches /etc/cdi");
  refused(bind("/opt/cdi"), "/etc/cdi");  // where /etc/cdi really is
  refused(bind("/srv/data/node"), "is a device node");
  refused(bind("/srv/data/loop"), "cannot be resolved");
  for (const char* source : {"/etc", "/etc/cdi", "/var/run/cdi", "/run/cdi", "/etc/rediacc", "/etc/rediacc/gpu/x",
                             "/run/docker.sock", "/var/run/docker.sock", "/run/containerd", "/var/lib/docker",
                             "/run/systemd", "/run", "/var", "/", "/proc", "/sys/bus/pci"}) {
    refused(bind(source), "into the container");
  }
  allowed(bind("/srv/data"));
  allowed(bind("/srv/data/new/dir"));
  allowed(bind("/srv/volumes/vol/_data"));
  allowed(create_on(fs, R"({"Binds":["/dev"]})"));  // one part is a target alone: an anonymous volume
  allowed(create_on(fs, R"({"Binds":["data:/data","/srv/data:/d:ro"]})"));
  refused(create_on(fs, R"({"Mounts":[{"Type":"bind","Source":"/srv/volumes/vol/_data/escape","Target":"/x"}]})"),
          "a mount of \"/srv/volumes/vol/_data/escape\"");
  refused(create_on(fs, R"({"Mounts":[{"Type":"bind","Source":"/var/run/cdi","Target":"/x"}]})"), "/run/cdi");
}

TEST_CASE("gate: a protected directory moved behind a link is followed once the judge refreshes") {
  FixtureRoot root;
  root.mkdir("/etc/cdi");
  root.mkdir("/srv/specs");
  const RootFs fs(root.path());
  const HostPathJudge judge(fs, std::chrono::milliseconds(0), fixed_paths_only());
  MachineWorld machine(judge);
  allowed(create_on(machine, R"({"Binds":["/srv/specs:/x"]})"));
  std::filesystem::remove(root.host("/etc/cdi"));
  root.link("/etc/cdi", "/srv/specs");
  refused(create_on(machine, R"({"Binds":["/srv/specs:/x"]})"), "reaches /etc/cdi (at /srv/specs)");
}

TEST_CASE("gate: Compose before 2.30 sends a CDI name as a raw device, and is told to upgrade") {
  refused(
      create_hardened(R"({"Devices":[{"PathOnHost":"nvidia.com/gpu=all","PathInContainer":"nvidia.com/gpu=all"}]})"),
      "Compose before 2.30 sends devices: [nvidia.com/gpu=all]; upgrade Docker Compose to 2.30 or later");
}

TEST_CASE("gate: every protected host path is refused as a bind source, and none of its parents passes") {
  for (const auto p : protected_host_paths()) {
    const std::string path(p);
    refused(create_hardened(R"({"Binds":[")" + path + R"(:/x"]})"), "into the container");
    refused(create_hardened(R"({"Binds":[")" + path + R"(/sub:/x"]})"), "into the container");
    for (auto slash = path.rfind('/'); slash != std::string::npos && slash > 0; slash = path.rfind('/', slash - 1)) {
      refused(create_hardened(R"({"Binds":[")" + path.substr(0, slash) + R"(:/x"]})"), "into the container");
    }
  }
}

TEST_CASE("gate: build, start and checkpoint parameters that reach the host are refused, in every query spelling") {
  const auto call = [](const std::string& uri, const std::string& content_type = "application/x-tar") {
    return decide(GrantSet{}, "web", AuthzRequest{"POST", uri, content_type, ""});
  };
  refused(call("/v1.41/build?t=x&networkmode=host"), "--network host");
  refused(call("/v1.41/build?networkmode=bridge&networkmode=host"), "--network host");  // any value counts
  refused(call("/v1.41/build?network%6dode=%68ost"), "--network host");
  refused(call("/v1.41/bu%69ld?networkmode=host"), "--network host");
  refused(call("/v1.41/build?cgroupparent=other.slice"), "--cgroup-parent");
  refused(call("/v1.41/build?remote=x", "application/x-www-form-urlencoded"), "form-encoded");
  allowed(call("/v1.41/build?t=x&networkmode=default&dockerfile=Dockerfile"));
  allowed(call("/v1.41/build?networkmode=host;x=1"));  // Go drops a pair with ';'
  allowed(call("/v1.41/build?networkmode=HOST"));      // dockerd compares with "host" exactly

  refused(call("/v1.41/containers/abc/start?checkpoint=c1", ""), "CRIU");
  refused(call("/v1.41/containers/abc/start?checkpoint-dir=/srv/x", ""), "CRIU");
  refused(call("/v1.41/containers/abc/start", "application/x-www-form-urlencoded"), "form-encoded");
  refused(decide(GrantSet{}, "web", AuthzRequest{"POST", "/v1.41/containers/abc/start", "application/json", "{}"}),
          "a body on containers/start");
  allowed(call("/v1.41/containers/abc/start?detachKeys=ctrl-x", ""));
  refused(
      decide(GrantSet{}, "web",
             AuthzRequest{"POST", "/v1.41/containers/abc/checkpoints", "application/json", R"({"CheckpointID":"c1"})"}),
      "CRIU");
}

TEST_CASE(
    "gate: nothing makes the daemon download from an address the request names, nor reads a body the gate cannot see") {
  const auto post = [](const std::string& uri, const std::string& content_type = "",
                       std::optional<std::string> length = "0") {
    return decide(GrantSet{}, "web", AuthzRequest{"POST", uri, content_type, "", std::move(length)});
  };
  // A build context dockerd downloads itself, in every spelling of the parameter and either builder.
  refused(post("/v1.47/build?version=1&remote=http://127.0.0.1:18080/Dockerfile"), "download or clone it yourself");
  refused(post("/v1.47/build?rem%6Fte=git%40example.com%3Aa%2Fb.git"), "download or clone it yourself");
  refused(post("/v1.47/build?remote=&remote=https://example.com/ctx.tar"), "download or clone it yourself");
  refused(post("/v1.47/build?version=2&remote=https://example.com/ctx.tar", "", std::nullopt),
          "download or clone it yourself");
  allowed(post("/v1.47/build?t=x", "application/x-tar", std::nullopt));  // the context is the body
  // An import downloads fromSrc, or reads a body whose parameters the gate cannot see.
  refused(post("/v1.47/images/create?fromSrc=http://127.0.0.1:9/x.tar"), "use docker load");
  refused(post("/v1.47/images/create?fromSrc=-&repo=x", "text/plain", std::nullopt), "use docker load");
  refused(post("/v1.47/images/create?fromImage=&fromImage=debian"), "use docker load");  // dockerd reads the first
  refused(post("/v1.47/images/create?fromImage=debian&fromSrc=x"), "use docker load");
  // A pull is judged only without a body: a chunked one has no Content-Length, a form may hide behind it.
  allowed(post("/v1.47/images/create?fromImage=debian&tag=12"));
  refused(post("/v1.47/images/create?fromImage=debian", "text/plain", std::nullopt), "Content-Length is not 0");
  refused(post("/v1.47/images/create?fromImage=debian", "text/plain", "56"), "Content-Length is not 0");
  // A form body on any route: dockerd reads its parameters before the query's, and never shows it.
  for (const char* uri : {"/v1.47/images/create?fromImage=debian", "/v1.47/containers/x/kill", "/v1.47/commit"}) {
    refused(post(uri, "application/x-www-form-urlencoded"), "form-encoded");
    refused(post(uri, "Multipart/Form-Data; boundary=x"), "form-encoded");
  }
}

TEST_CASE("gate: a working directory under /proc is refused on create and exec") {
  const auto call = [](const std::string& uri, const std::string& body) {
    return decide(GrantSet{}, "web", AuthzRequest{"POST", uri, "application/json", body});
  };
  refused(call("/v1.41/containers/create", R"({"Image":"img","WorkingDir":"/proc/self/fd/7"})"), "/proc");
  refused(call("/v1.41/containers/create", R"({"Image":"img","workingdir":"//proc/../proc/self/cwd"})"), "/proc");
  refused(call("/v1.41/containers/abc/exec", R"({"Cmd":["sh"],"WorkingDir":"/proc/self/fd/8"})"), "/proc");
  allowed(call("/v1.41/containers/create", R"({"Image":"img","WorkingDir":"/srv/proc"})"));
}

TEST_CASE("gate: buildx's fallback pull of moby/buildkit is refused with what to do, other pulls pass") {
  const auto pull = [](const std::string& query, const DecideOptions& options = DecideOptions{.world = null_world()}) {
    return decide(GrantSet{}, "web", AuthzRequest{"POST", "/v1.45/images/create?" + query, {}, "", "0"}, options);
  };
  for (const char* q : {"fromImage=moby%2Fbuildkit&tag=buildx-stable-1", "fromImage=moby/buildkit:v0.13.1",
                        "fromImage=docker.io%2Fmoby%2Fbuildkit", "fromImage=moby/buildkit@sha256:0123"}) {
    refused(pull(q), "DOCKER_BUILDKIT=0 docker build");
  }
  allowed(pull("fromImage=debian&tag=12"));
  allowed(pull("fromImage=example.com:5000/moby/buildkitx"));
  allowed(pull("fromImage=moby%2Fbuildkit", DecideOptions{.allow_buildkit = true, .world = null_world()}));
}

TEST_CASE(
    "gate: BuildKit passes where the repository's daemon can build safely, and is refused with its reason where not") {
  const auto call = [](const std::string& uri, const DecideOptions& options) {
    return decide(GrantSet{}, "web", AuthzRequest{"POST", uri, {}, "", "0"}, options);
  };
  FakeWorld safe, unsafe;
  safe.build_verdict.emplace();
  unsafe.build_verdict.emplace("the repository's daemon reads CDI specs in /var/run/cdi, which is not its view.");
  const auto asked = [&] { return safe.builds_asked + unsafe.builds_asked; };
  const DecideOptions on_view{.world = safe}, off_view{.world = unsafe};
  for (const char* uri : {"/session", "/grpc", "/v1.45/session", "/v1.45/grpc"}) {
    allowed(call(uri, on_view));
    refused(call(uri, off_view), "BuildKit builds are refused for this repository: the repository's daemon reads");
  }
  CHECK(asked() == 8);
  // buildx's fallback pull shows the same reason, where the user reads it.
  refused(call("/v1.45/images/create?fromImage=moby%2Fbuildkit&tag=buildx-stable-1", off_view),
          "buildx fell back to a moby/buildkit container after the gate refused BuildKit. BuildKit builds are refused "
          "for this repository: the repository's daemon reads CDI specs in /var/run/cdi");
  allowed(call("/v1.45/images/create?fromImage=moby%2Fbuildkit&tag=buildx-stable-1", on_view));
  // Other pulls never ask the daemon; the operator's --allow-buildkit never asks it either.
  const int before = asked();
  allowed(call("/v1.45/images/create?fromImage=debian", off_view));
  allowed(call("/grpc", DecideOptions{.allow_buildkit = true, .world = unsafe}));
  CHECK(asked() == before);
  // The classic builder is judged from its query as before, whatever BuildKit's verdict.
  refused(call("/v1.45/build?networkmode=host", on_view), "--network host");
  CHECK(asks_the_daemon(AuthzRequest{"POST", "/grpc", {}, ""}));
  CHECK(asks_the_daemon(AuthzRequest{"POST", "/v1.45/images/create?fromImage=moby/buildkit", {}, ""}));
  CHECK_FALSE(asks_the_daemon(AuthzRequest{"POST", "/v1.45/images/create?fromImage=debian", {}, ""}));
}

// dockerd picks the builder from /build's query: version=2 is BuildKit, 1 or none the classic
// builder (api/server/router/build: r.FormValue("version"), the first value Go's url.ParseQuery
// keeps). A BuildKit build reached that way carries what /session and /grpc carry.
TEST_CASE("gate: POST /build?version=2 is a BuildKit build, judged as /session and /grpc are, in every spelling") {
  const auto call = [](const std::string& uri, const DecideOptions& options = DecideOptions{.world = null_world()},
                       const std::string& content_type = "application/x-tar") {
    return decide(GrantSet{}, "web", AuthzRequest{"POST", uri, content_type, ""}, options);
  };
  FakeWorld safe, unsafe;
  safe.build_verdict.emplace();
  unsafe.build_verdict.emplace("the repository's daemon reads CDI specs in /var/run/cdi.");
  const DecideOptions on_view{.world = safe}, off_view{.world = unsafe};
  for (const char* uri :
       {"/build?version=2", "/v1.47/build?t=x&version=2", "/v1.41/bu%69ld?version=2", "/build?vers%69on=%32",
        "/build?version=2&version=1", "/build?x=1;y=2&version=2", "http://docker/v1.47/build?version=2"}) {
    INFO(uri);
    CHECK(route_of("POST", uri)->kind == RouteKind::buildkit);
    CHECK(asks_the_daemon(AuthzRequest{"POST", uri, {}, ""}));
    refused(call(uri), "DOCKER_BUILDKIT=0 docker build");
    refused(call(uri, off_view), "BuildKit builds are refused for this repository: the repository's daemon reads");
    allowed(call(uri, on_view));
    allowed(call(uri, DecideOptions{.allow_buildkit = true, .world = null_world()}));
  }
  // A form-encoded body would be read before the query (version=1 there makes it the classic
  // builder's, with the body's networkmode): refused where BuildKit passes too.
  refused(call("/build?version=2", on_view, "application/x-www-form-urlencoded"), "form-encoded");
  // The classic builder: no version, 1, an empty first value, a pair Go drops, another key.
  for (const char* uri : {"/build", "/build?version=1", "/build?version=1&version=2", "/build?version=&version=2",
                          "/build?version=2;x=1", "/build?Version=2", "/build?version=%322"}) {
    INFO(uri);
    CHECK(route_of("POST", uri)->kind == RouteKind::build);
    CHECK_FALSE(asks_the_daemon(AuthzRequest{"POST", uri, {}, ""}));
    allowed(call(uri));
  }
  refused(call("/build?version=1&version=2&networkmode=host", on_view), "--network host");
}

// The 8x H100 fixture's minors do not follow the GPUs' order: /dev/nvidia3 is nvidia.com/gpu=0.
// A refusal's hint is the name the specs give that node, never one guessed from the minor.
TEST_CASE("gate: a refused raw NVIDIA device or bind is pointed to the name that reaches it, from the specs") {
  FixtureRoot root;
  dgx_h100(root);
  const auto admit = [&root](const std::string& host_config) {
    return run_tool({"admit", "--repo", "web", "--root", root.str()},
                    authz_post("/v1.43/containers/create", R"({"Image":"img","HostConfig":)" + host_config + "}"));
  };
  const auto raw = admit(R"({"Devices":[{"PathOnHost":"/dev/nvidia3","PathInContainer":"/dev/nvidia3"}]})");
  CHECK(raw.exit_code == 1);
  CHECK_THAT(raw.out, Catch::Contains("raw device \\\"/dev/nvidia3\\\"; ask for it by CDI name: --device "
                                      "nvidia.com/gpu=0."));
  const auto bind = admit(R"({"Binds":["/dev/nvidia3:/dev/nvidia3"]})");
  CHECK_THAT(bind.out, Catch::Contains("ask for it by CDI name: --device nvidia.com/gpu=0."));
  // A node no spec maps: no guess at an index.
  std::filesystem::remove(root.host("/etc/cdi/nvidia.yaml"));
  const auto unmapped = admit(R"({"Devices":[{"PathOnHost":"/dev/nvidia3"}]})");
  CHECK_THAT(unmapped.out, Catch::Contains("--device nvidia.com/gpu=INDEX (rediacc-gpu cdi list on the host names "
                                           "each GPU's)") &&
                               !Catch::Contains("nvidia.com/gpu=3"));
}
