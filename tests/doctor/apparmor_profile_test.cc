// Issue: "AppArmor hosts: say what the default profile does to device access, and prove it with the
// real profile text Debian ships". dockerd confines every container it does not run unconfined
// with docker-default, made from the template in its own source (golang-github-docker-docker-dev,
// which the README's test command installs): the profile grants every file access (`file,`) and
// denies only writes under /proc and /sys, mount, and /sys/firmware and kernel/security reads. No
// rule names /dev: a device node a container was given is opened or refused by its device cgroup
// (which the gate decides), never by AppArmor; so Ubuntu's and openSUSE's AppArmor need no setting.

#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <sstream>

namespace {

const char* kTemplate = "/usr/share/gocode/src/github.com/docker/docker/profiles/apparmor/template.go";

}  // namespace

TEST_CASE("apparmor: Docker's default profile, as Debian ships its source, leaves device nodes to the device cgroup") {
  std::ifstream in(kTemplate);
  INFO(kTemplate << " is missing: run bash scripts/setup.sh test (it installs golang-github-docker-docker-dev)");
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  const std::string profile = text.str();
  // Every file access is granted, then narrowed by deny rules.
  CHECK(std::regex_search(profile, std::regex(R"(\n\s*file,\s*\n)")));
  std::istringstream lines(profile);
  int denies = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("deny") == std::string::npos) continue;
    ++denies;
    INFO(line);
    CHECK(line.find("/dev") == std::string::npos);
    const bool proc_sys_or_mount = line.find("@{PROC}") != std::string::npos ||
                                   line.find("/sys/") != std::string::npos ||
                                   line.find("deny mount") != std::string::npos;
    CHECK(proc_sys_or_mount);
  }
  CHECK(denies >= 10);
}
