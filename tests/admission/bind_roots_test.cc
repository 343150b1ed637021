// Binds are allowed by where they may come from, read as dockerd reads them (issue: "the gate
// judges what dockerd and runc will do"); named volumes by what their driver will mount; and the
// cgroup namespace, OOM score and log driver by what they reach. On the decision with text-only
// and fake worlds: the machine's own resolution is tests/admission/gate_hardening_test.cc's.

#include <catch2/catch.hpp>
#include <functional>
#include <nlohmann/json.hpp>

#include "admission/decide.h"
#include "admission/route.h"
#include "core/host_policy.h"
#include "tests/support/fake_world.h"
#include "tests/support/gate_requests.h"

using namespace rgpu;
using namespace rgpu::admission;
using namespace rgpu::test;
using json = nlohmann::json;

namespace {

PolicyRules with_roots(BindRoots roots) {
  PolicyRules rules;
  rules.bind_roots = std::make_shared<const BindRoots>(std::move(roots));
  return rules;
}

Decision create_bound(const std::string& host_config, GateWorld& world = null_world(), const PolicyRules& rules = {}) {
  return decide(grants::GrantSet{}, kGateRepo,
                req("POST", "/v1.47/containers/create", R"({"Image":"img","HostConfig":)" + host_config + "}"),
                DecideOptions{.world = world, .policy = rules});
}

std::string binds(const std::string& spec) { return R"({"Binds":[")" + spec + R"("]})"; }

std::string mount(const std::string& fields) { return R"({"Mounts":[{)" + fields + "}]}"; }

// A stored container as the daemon describes it (the fixture, from a cgroup v1 daemon), with `edit`.
FakeWorld storing_edited(const std::function<void(json&)>& edit) {
  auto inspect = inspect_fixture("plain-26.1.5.json");
  edit(inspect);
  FakeWorld world;
  world.stored = inspect.dump();
  world.cgroupns_default = "host";
  return world;
}

Decision start(FakeWorld& world, const PolicyRules& rules = {}) {
  return decide(grants::GrantSet{}, kGateRepo, req("POST", "/v1.47/containers/plain/start", "", ""),
                DecideOptions{.world = world, .policy = rules});
}

}  // namespace

TEST_CASE("bind roots: a bind passes only under a root of the repository's, read-only where the root is") {
  // The strict policy's default: the repository's own directory, nothing of the system.
  allowed(create_bound(binds("/srv/rediacc-gpu/web/data:/data")));
  allowed(create_bound(binds("/srv/rediacc-gpu/web:/data:ro")));
  refused(create_bound(binds("/srv/rediacc-gpu/other:/x")),
          "lies outside the directories repository \"web\" may bind from: /srv/rediacc-gpu/web; bind a directory "
          "under one of them, or use a named volume");
  for (const char* system : {"/usr/bin", "/usr/bin/runc", "/etc/systemd/system", "/etc/cron.d", "/root/.ssh",
                             "/etc/shadow", "/lib/modules", "/boot", "/opt/rediacc", "/home", "/srv", "/tmp"}) {
    refused(create_bound(binds(std::string(system) + ":/x")), "lies outside the directories");
    refused(create_bound(mount(R"("Type":"bind","Source":")" + std::string(system) + R"(","Target":"/x")")),
            "lies outside the directories");
  }
  // A read-only root takes read-only binds alone, however dockerd is told.
  const auto rules = with_roots({{.path = "/srv/certs", .read_only = true}, {.path = "/srv/{repo}"}});
  allowed(create_bound(binds("/srv/certs/x:/c:ro"), null_world(), rules));
  allowed(create_bound(binds("/srv/certs:/c:ro,rslave"), null_world(), rules));
  refused(create_bound(binds("/srv/certs:/c"), null_world(), rules), "may bind it only read-only");
  refused(create_bound(binds("/srv/certs:/c:rw"), null_world(), rules), "may bind it only read-only");
  allowed(
      create_bound(mount(R"("Type":"bind","Source":"/srv/certs","Target":"/c","ReadOnly":true)"), null_world(), rules));
  refused(create_bound(mount(R"("Type":"bind","Source":"/srv/certs","Target":"/c")"), null_world(), rules),
          "read-only");
  allowed(create_bound(binds("/srv/web/data:/d"), null_world(), rules));  // {repo} is the repository
  // No root at all: only named volumes.
  refused(create_bound(binds("/srv/x:/x"), null_world(), with_roots({})), "may bind none on this machine");
  allowed(create_bound(binds("data:/x"), null_world(), with_roots({})));
  // A root that names the repository's mount allows nothing where the mount is not known.
  refused(create_bound(binds("/mnt/rediacc/mounts/a/x:/x"), null_world(), rules_of(HostPolicy::rediacc)),
          "its own mount (not found now");
}

TEST_CASE("bind roots: a source is judged as dockerd will mount it, never as it reads") {
  // The issue's request: "\" first, which dockerd's check reads as "/", a relative path once cleaned.
  std::string climb;
  for (int i = 0; i < 30; ++i) climb += "../";
  refused(create_bound(mount(R"("Type":"bind","Source":"\\/)" + climb +
                             R"(run/rediacc","Target":"/r",)"
                             R"("BindOptions":{"CreateMountpoint":true})")),
          "dockerd reads a backslash as '/'");
  refused(create_bound(mount(R"("Type":"bind","Source":"/srv/rediacc-gpu/web\\..\\..\\..\\etc","Target":"/r")")),
          "backslash");
  refused(create_bound(mount(R"("Type":"bind","Source":"srv/rediacc-gpu/web","Target":"/r")")),
          "that dockerd would not take either (the source is not absolute)");
  // What dockerd refuses anyway is refused: a reader that disagrees with it cannot be fooled.
  refused(create_bound(mount(R"("Type":"BIND","Source":"/srv/rediacc-gpu/web","Target":"/r")")), "unknown mount type");
  refused(create_bound(binds("/srv/rediacc-gpu/web:/x:ro,rw")), "an unknown mode");
  // Cleaned as dockerd cleans: a path that climbs out of a root is judged where it lands.
  refused(create_bound(binds("/srv/rediacc-gpu/web/../../../etc:/x")), "reaches /etc/cdi");
  allowed(create_bound(binds("/srv/rediacc-gpu/web/./a/../b:/x")));
}

TEST_CASE("bind roots: a stored container and --volumes-from are judged as a create would be") {
  auto backslash = storing_edited([](json& c) {
    c["HostConfig"]["Mounts"] = json::array(
        {{{"Type", "bind"}, {"Source", "\\/../../run/rediacc"}, {"Target", "/r"}, {"BindOptions", json::object()}}});
  });
  refused(start(backslash), "dockerd reads a backslash as '/'");
  auto system = storing_edited([](json& c) { c["HostConfig"]["Binds"] = {"/usr/bin:/x"}; });
  refused(start(system), "lies outside the directories repository \"web\" may bind from");
  // --volumes-from copies the other container's mount points, as the daemon lists them.
  auto source = storing_edited([](json& c) {
    c["Mounts"] = json::array({{{"Type", "bind"}, {"Source", "/etc/systemd/system"}, {"RW", true}}});
  });
  refused(create_bound(R"({"VolumesFrom":["db"]})", source), "a mount of container \"db\" (--volumes-from)");
  auto certs = storing_edited([](json& c) {
    c["Mounts"] = json::array({{{"Type", "bind"}, {"Source", "/srv/certs"}, {"RW", true}}});
  });
  const auto rules = with_roots({{.path = "/srv/certs", .read_only = true}});
  refused(create_bound(R"({"VolumesFrom":["db"]})", certs, rules), "may bind it only read-only");
  allowed(create_bound(R"({"VolumesFrom":["db:ro"]})", certs, rules));
}

TEST_CASE("named volumes: one whose stored options mount anything is refused wherever a container uses it") {
  FakeWorld world;
  world.cgroupns_default = "host";
  world.volumes["vol"] = "type=none device=/etc o=bind";
  world.volumes["plain"] = "";
  const std::string why = "volume \"vol\" mounts type=none device=/etc o=bind from the host when a container starts";
  refused(create_bound(binds("vol:/x"), world), why);
  refused(create_bound(binds("vol:/x:ro,nocopy"), world), why);
  refused(create_bound(mount(R"("Type":"volume","Source":"vol","Target":"/x")"), world), why);
  allowed(create_bound(binds("plain:/x"), world));
  allowed(create_bound(binds("/x"), world));  // an anonymous volume is made now, with no options
  auto stored = storing_edited([](json& c) { c["HostConfig"]["Binds"] = {"vol:/x"}; });
  stored.volumes = world.volumes;
  refused(start(stored), why);
  auto holder = storing_edited([](json& c) {
    c["Mounts"] = json::array({{{"Type", "volume"}, {"Name", "vol"}, {"Driver", "local"}, {"RW", true}}});
  });
  holder.volumes = world.volumes;
  refused(create_bound(R"({"VolumesFrom":["holder"]})", holder), why);
  world.volumes.erase("vol");
  allowed(create_bound(binds("vol:/x"), world));  // not known to this world: not judged
}

TEST_CASE("gate: the host's cgroup namespace, a lower OOM score and a log driver that ships output are refused") {
  refused(create_bound(R"({"CgroupnsMode":"host"})"), "--cgroupns host");
  FakeWorld v1;
  v1.cgroupns_default = "host";
  allowed(create_bound(R"({"CgroupnsMode":"host"})", v1));  // the host's is every container's default there
  FakeWorld v2;
  v2.cgroupns_default = "private";
  refused(create_bound(R"({"CgroupnsMode":"host"})", v2), "--cgroupns host");
  allowed(create_bound(R"({"CgroupnsMode":"private"})"));
  refused(create_bound(R"({"OomScoreAdj":-1})"), "--oom-score-adj below 0");
  refused(create_bound(R"({"OomScoreAdj":-1000})"), "--oom-score-adj");
  allowed(create_bound(R"({"OomScoreAdj":0})"));
  allowed(create_bound(R"({"OomScoreAdj":500})"));
  for (const char* local : {R"({"Type":""})", R"({"Type":"json-file","Config":{"max-size":"10m"}})",
                            R"({"Type":"local"})", R"({"Type":"journald"})", R"({"Type":"none"})",
                            R"({"Type":"syslog"})", R"({"Type":"syslog","Config":{"syslog-facility":"daemon"}})"}) {
    allowed(create_bound(std::string(R"({"LogConfig":)") + local + "}"));
  }
  for (const char* network :
       {R"({"Type":"syslog","Config":{"syslog-address":"tcp://127.0.0.1:514"}})", R"({"Type":"gelf"})",
        R"({"Type":"fluentd"})", R"({"Type":"splunk","Config":{"splunk-url":"http://127.0.0.1:1"}})",
        R"({"Type":"awslogs"})", R"({"Type":"some/plugin:latest"})"}) {
    refused(create_bound(std::string(R"({"LogConfig":)") + network + "}"), "sends the container's output");
  }
}

TEST_CASE("bind roots: an operator's root is a directory of data, never a system one") {
  CHECK(parse_bind_root("/srv/data").value() == BindRoot{.path = "/srv/data"});
  CHECK(parse_bind_root("/srv/data:ro").value() == BindRoot{.path = "/srv/data", .read_only = true});
  CHECK(parse_bind_root("/home/{repo}/work").has_value());
  CHECK(parse_bind_root("{mount}").has_value());
  CHECK(parse_bind_root("/run/rediacc/secrets/{id}").has_value());
  CHECK(parse_bind_root("/opt/rediacc/proxy/letsencrypt:ro").has_value());
  for (const char* bad :
       {"/",       "/usr",        "/usr/local/share", "/etc/app",     "/var",         "/var/lib",    "/opt",
        "/run",    "/boot",       "/root/x",          "/lib64",       "/proc/1",      "srv",         "/srv/",
        "/srv//x", "/srv/../etc", "/srv/./x",         "/srv/{repo}x", "/srv/{mount}", "/srv/{other}"}) {
    INFO(bad);
    CHECK_FALSE(parse_bind_root(bad).has_value());
  }
  CHECK_THAT(parse_bind_root("/usr/local").error().message, Catch::Contains("is or holds a system directory (/usr)"));
}

TEST_CASE("attack round: a raw '#' in the URI, which dockerd keeps in the path or the query, is refused") {
  for (const char* uri : {"/v1.47/build?#&remote=http://127.0.0.1:8080/&networkmode=host",
                          "/v1.47/containers/v/start?#&checkpoint=../../x", "/v1.47/containers/p/x#/exec",
                          "/v1.47/containers/v/checkpoints?#&dir=/root"}) {
    INFO(uri);
    refused(decide(grants::GrantSet{}, kGateRepo, req("POST", uri, "{}")), "raw '#'");
  }
  allowed(decide(grants::GrantSet{}, kGateRepo, req("GET", "/v1.47/containers/a%23b/json", "", "")));
}

TEST_CASE("attack round: docker cp mounts the stored mounts, so it is judged as a start of the container") {
  auto system = storing_edited([](json& c) { c["HostConfig"]["Binds"] = {"/usr/bin:/x"}; });
  for (const char* method : {"GET", "HEAD", "PUT"}) {
    INFO(method);
    CHECK(route_of(method, "/v1.47/containers/w/archive?path=/x")->kind == RouteKind::container_archive);
    refused(decide(grants::GrantSet{}, kGateRepo, req(method, "/v1.47/containers/w/archive?path=/x", "", ""),
                   DecideOptions{.world = system}),
            "lies outside the directories");
  }
  auto plain = storing_edited([](json&) {});
  allowed(decide(grants::GrantSet{}, kGateRepo, req("GET", "/v1.47/containers/w/archive?path=/etc", "", ""),
                 DecideOptions{.world = plain}));
}

TEST_CASE("attack round: a start mounts the container's stored mount points, judged whatever the HostConfig says") {
  auto forged = storing_edited([](json& c) {
    c["Mounts"] = json::array({{{"Type", "image"}, {"Source", "/"}, {"Destination", "/host"}, {"RW", true}}});
  });
  refused(start(forged), "a mount of the container of \"/\"");
  auto nameless = storing_edited([](json& c) {
    c["Mounts"] = json::array({{{"Type", "volume"}, {"Source", "/etc"}, {"Destination", "/x"}, {"RW", true}}});
  });
  refused(start(nameless), "a mount of the container of \"/etc\" into the container reaches /etc/cdi");
  auto own = storing_edited([](json& c) {
    c["Mounts"] = json::array({{{"Type", "bind"},
                                {"Source", "/srv/rediacc-gpu/web/data"},
                                {"Destination", "/d"},
                                {"RW", true},
                                {"Propagation", "rprivate"}}});
  });
  allowed(start(own));
}

TEST_CASE("attack round: no bind at the paths dockerd hands on to joined networks, and no shared propagation") {
  for (const char* target : {"/etc/hosts", "/etc/resolv.conf", "/etc/hostname", "/etc//hosts"}) {
    INFO(target);
    refused(create_bound(binds(std::string("/srv/rediacc-gpu/web/h:") + target)), "which dockerd manages");
    refused(create_bound(mount(R"("Type":"volume","Source":"v","Target":")" + std::string(target) + "\"")),
            "which dockerd manages");
  }
  refused(create_bound(binds("/srv/rediacc-gpu/web:/x:rshared")), "rshared propagation");
  refused(create_bound(mount(R"("Type":"bind","Source":"/srv/rediacc-gpu/web","Target":"/x",)"
                             R"("BindOptions":{"Propagation":"shared"})")),
          "shared propagation");
  allowed(create_bound(binds("/srv/rediacc-gpu/web:/x:rslave")));
}

TEST_CASE(
    "attack round: on the host's network a container drops NET_RAW, whose packet sockets read every "
    "repository's loopback traffic") {
  const auto rules = rules_of(HostPolicy::rediacc);
  const std::string why = "keeps CAP_NET_RAW";
  refused(create_bound(R"({"NetworkMode":"host"})", null_world(), rules), why);
  refused(create_bound(R"({"NetworkMode":"host","CapDrop":["ALL"],"CapAdd":["NET_RAW"]})", null_world(), rules), why);
  refused(create_bound(R"({"NetworkMode":"host","CapDrop":["NET_RAW"],"CapAdd":["net_raw"]})", null_world(), rules),
          why);
  allowed(create_bound(R"({"NetworkMode":"host","CapDrop":["NET_RAW"]})", null_world(), rules));
  allowed(create_bound(R"({"NetworkMode":"host","CapDrop":"cap_net_raw"})", null_world(), rules));
  allowed(
      create_bound(R"({"NetworkMode":"host","CapDrop":["ALL"],"CapAdd":["NET_BIND_SERVICE"]})", null_world(), rules));
  allowed(create_bound(R"({"NetworkMode":"bridge"})", null_world(), rules));
  // Joining a container that is on the host's network is being on it.
  auto host_service = storing_edited([](json& c) { c["HostConfig"]["NetworkMode"] = "host"; });
  refused(create_bound(R"({"NetworkMode":"container:svc"})", host_service, rules), why);
  allowed(create_bound(R"({"NetworkMode":"container:svc","CapDrop":["NET_RAW"]})", host_service, rules));
  auto bridged = storing_edited([](json& c) { c["HostConfig"]["NetworkMode"] = "bridge"; });
  allowed(create_bound(R"({"NetworkMode":"container:svc"})", bridged, rules));
}

TEST_CASE(
    "attack round: where the verifier in front of runc makes the daemon's containers, a service on the host's "
    "network passes as renet writes it (the verifier takes NET_RAW where runc makes it)") {
  const auto rules = rules_of(HostPolicy::rediacc);
  FakeWorld verified;
  verified.verified_runtime = true;
  allowed(create_bound(R"({"NetworkMode":"host"})", verified, rules));
  allowed(create_bound(R"({"NetworkMode":"host","CapAdd":["NET_RAW"]})", verified, rules));
  // A daemon whose runc is not the verifier (or that cannot be told) keeps the refusal.
  FakeWorld unwired;
  unwired.verified_runtime = false;
  refused(create_bound(R"({"NetworkMode":"host"})", unwired, rules), "keeps CAP_NET_RAW");
  refused(create_bound(R"({"NetworkMode":"host"})", null_world(), rules), "keeps CAP_NET_RAW");
}

TEST_CASE("attack round: a repository's network is a bridge of its own, never the host's interfaces or a plugin") {
  const auto network = [](const std::string& body) {
    return decide(grants::GrantSet{}, kGateRepo, req("POST", "/v1.47/networks/create", body));
  };
  allowed(network(R"({"Name":"n"})"));
  allowed(network(R"({"Name":"n","Driver":"bridge","Options":{"com.docker.network.driver.mtu":"1400"}})"));
  refused(network(R"({"Name":"n","Driver":"macvlan","Options":{"parent":"eth0"}})"), "network driver \"macvlan\"");
  refused(network(R"({"Name":"n","Driver":"../../../var/lib/docker/volumes/v/_data/p"})"), "a plugin");
  refused(network(R"({"Name":"n","Options":{"com.docker.network.bridge.name":"br-other"}})"),
          "com.docker.network.bridge.name");
  refused(network(R"({"Name":"n","IPAM":{"Driver":"x"}})"), "IPAM driver");
  refused(network(R"({"Name":"n","ConfigFrom":{"Network":"macnet"}})"), "ConfigFrom");
  refused(network(R"({"Name":"n","Scope":"swarm"})"), "swarm");
}
