// Whether a repository's daemon reads only its view, the one verdict the gate builds by and doctor
// reports: each directory the daemon reads is the view itself, seen in the daemon's own root, and
// the daemon said which it reads.

#include <catch2/catch.hpp>
#include <filesystem>

#include "docker/view_verdict.h"
#include "tests/support/fixture_root.h"

using namespace rgpu;
using namespace rgpu::docker;
using namespace rgpu::test;
namespace fs = std::filesystem;

namespace {

constexpr const char* kView = "/var/lib/rediacc/gpu/cdi/web";

CdiSpecDirs reported(std::vector<std::string> dirs) { return {SpecDirsFrom::info, std::move(dirs)}; }

}  // namespace

TEST_CASE("view verdict: only the view itself, as the daemon reaches it, and only when the daemon says so") {
  FixtureRoot root;
  root.write("/proc/7/root/web/a.json", "{}");
  root.write("/proc/7/root/host-cdi/nvidia.yaml", "{}");
  root.write("/proc/7/root/copy/a.json", "{}");
  fs::create_directories(root.host("/proc/7/root/var/run/cdi"));
  fs::create_directories(root.host("/var/lib/rediacc/gpu/cdi"));
  fs::create_directories(root.host("/etc"));
  fs::create_directory_symlink("../../../../../proc/7/root/web", root.host(kView));
  // The machine's /etc/cdi is what the daemon sees at /host-cdi.
  fs::create_directory_symlink("../proc/7/root/host-cdi", root.host("/etc/cdi"));
  const RootFs machine(root.path());
  const RootFs daemon(root.host("/proc/7/root"));
  const auto judge = [&](const CdiSpecDirs& dirs) { return reads_only_view(dirs, daemon, machine, kView); };

  const auto alone = judge(reported({"/web"}));
  CHECK(alone.ok());
  CHECK(alone.reason().empty());

  // Another directory beside it, empty or not; a copy of the view; the machine's own /etc/cdi; one missing now, or
  // relative.
  const auto strays = judge(reported({"/web", "/var/run/cdi", "/copy", "/host-cdi", "/run/cdi", "cdi"}));
  CHECK_FALSE(strays.ok());
  REQUIRE(strays.strays.size() == 5);
  CHECK_FALSE(strays.why("/web"));
  CHECK(strays.why("/var/run/cdi") == NotTheView::elsewhere);
  CHECK(strays.why("/copy") == NotTheView::elsewhere);
  CHECK(strays.why("/host-cdi") == NotTheView::machine_specs);
  CHECK(strays.why("/run/cdi") == NotTheView::absent);
  CHECK(strays.why("cdi") == NotTheView::absent);
  CHECK(strays.reason() ==
        "reads CDI specs in /var/run/cdi, /copy, /host-cdi, /run/cdi, cdi, which are not the repository's own view");
  CHECK(judge(reported({"/copy"})).reason() == "reads CDI specs in /copy, which is not the repository's own view");

  // A daemon that does not say which it reads is never passed on what its daemon.json says; the
  // directories named there are still judged.
  const auto unsaid = judge({SpecDirsFrom::config, {"/web"}});
  CHECK_FALSE(unsaid.ok());
  CHECK(unsaid.strays.empty());
  CHECK(unsaid.reason() == "reports no CDISpecDirs (Docker before 25)");
  CHECK(judge({SpecDirsFrom::defaults, {"/etc/cdi", "/var/run/cdi"}}).why("/var/run/cdi") == NotTheView::elsewhere);

  // A daemon that reads no directory at all reads nothing beside its view.
  CHECK(judge(reported({})).ok());
}
