// Which CDI spec directories a dockerd reads, one reading for the gate and doctor: what it
// reports, else its daemon.json, else Docker 25's defaults; and whether one is a directory of the
// machine itself, as the daemon resolves it in its own root.

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "docker/cdi_spec_dirs.h"
#include "tests/support/fixture_root.h"

using namespace rgpu;
using namespace rgpu::docker;
using namespace rgpu::test;
using nlohmann::json;

TEST_CASE("cdi spec dirs: what the daemon reports, else its daemon.json, else Docker's defaults") {
  const json config = {{"cdi-spec-dirs", {"/etc/cdi"}}};
  const auto reported = spec_dirs({{"CDISpecDirs", {"/etc/cdi", "/var/run/cdi"}}}, config);
  CHECK(reported.from == SpecDirsFrom::info);
  CHECK(reported.dirs == std::vector<std::string>{"/etc/cdi", "/var/run/cdi"});
  CHECK(reported.besides_etc_cdi() == std::vector<std::string>{"/var/run/cdi"});

  // Before API 1.44, or with CDI off, the daemon says nothing: its configuration tells.
  const auto configured = spec_dirs({{"ServerVersion", "24.0.7"}}, config);
  CHECK(configured.from == SpecDirsFrom::config);
  CHECK(configured.dirs == std::vector<std::string>{"/etc/cdi"});
  CHECK(configured.reads_etc_cdi());
  CHECK(configured.besides_etc_cdi().empty());
  CHECK_FALSE(reported_spec_dirs(json("not an answer")));

  for (const json& unset : {json(), json::object(), json{{"cdi-spec-dirs", "/etc/cdi"}}, json::array()}) {
    const auto defaults = configured_spec_dirs(unset);
    CHECK(defaults.from == SpecDirsFrom::defaults);
    CHECK(defaults.dirs == std::vector<std::string>{"/etc/cdi", "/var/run/cdi"});
  }
  // An entry that is no string is kept as its JSON text: never the view, never /etc/cdi.
  const auto odd = configured_spec_dirs({{"cdi-spec-dirs", {42}}});
  CHECK(odd.dirs == std::vector<std::string>{"42"});
  CHECK_FALSE(odd.reads_etc_cdi());
}

TEST_CASE("cdi spec dirs: features.cdi counts only when it is set to true or false") {
  CHECK(cdi_feature({{"features", {{"cdi", true}}}}) == true);
  CHECK(cdi_feature({{"features", {{"cdi", false}}}}) == false);
  CHECK_FALSE(cdi_feature({{"features", {{"cdi", "yes"}}}}));
  CHECK_FALSE(cdi_feature({{"features", true}}));
  CHECK_FALSE(cdi_feature(json::object()));
}

TEST_CASE("cdi spec dirs: a directory is the machine's only when the daemon reaches that very directory") {
  FixtureRoot root;
  root.write("/var/lib/rediacc/gpu/cdi/web/a.json", "{}");
  root.write("/proc/7/root/etc/cdi/a.json", "{}");  // a copy of the view is not the view
  const RootFs fs(root.path());
  const RootFs daemon(root.host("/proc/7/root"));
  CHECK_FALSE(same_directory(daemon, "/etc/cdi", fs, "/var/lib/rediacc/gpu/cdi/web"));
  CHECK_FALSE(same_directory(daemon, "/run/cdi", fs, "/var/lib/rediacc/gpu/cdi/web"));  // missing now
  CHECK_FALSE(same_directory(daemon, "etc/cdi", fs, "/var/lib/rediacc/gpu/cdi/web"));   // not absolute
  std::filesystem::remove_all(root.host("/proc/7/root/etc/cdi"));
  // A link in the daemon's root is followed inside it, as the daemon follows it.
  std::filesystem::create_directory_symlink("/web", root.host("/proc/7/root/etc/cdi"));
  std::filesystem::rename(root.host("/var/lib/rediacc/gpu/cdi/web"), root.host("/proc/7/root/web"));
  std::filesystem::create_directory_symlink("../../../../../proc/7/root/web",
                                            root.host("/var/lib/rediacc/gpu/cdi/web"));
  CHECK(same_directory(daemon, "/etc/cdi", fs, "/var/lib/rediacc/gpu/cdi/web"));
  CHECK(same_directory(daemon, "/etc/../etc/cdi", fs, "/var/lib/rediacc/gpu/cdi/web"));
}
