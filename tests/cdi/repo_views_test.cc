// Each repository's CDI view: what its daemon reads as /etc/cdi. Built through the binary, as an
// operator's grant, revoke and cdi commands build it, and read back with Debian's CDI library.

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/structured_text.h"
#include "tests/support/build_paths.h"
#include "tests/support/cdi_schema.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

void views_tool(const FixtureRoot& machine, std::vector<std::string> args) {
  args.insert(args.end(), {"--root", machine.str()});
  const auto r = run_tool(args);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
}

// The names the CDI Go library of `library` finds in `dir`, as Docker loads a directory: the cases
// that ask it are tagged [oracle], as the libraries come from the Docker roots.
std::vector<std::string> library_names(const fs::path& dir, std::string_view library) {
  const auto r = run_program(cdi_oracle_program(library), {dir.string()});
  INFO(library << ": " << r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto verdict = json::parse(r.out);
  CHECK_FALSE(verdict.contains("panic"));
  CHECK(verdict["broken"].empty());
  return verdict["devices"].get<std::vector<std::string>>();
}

// What the Dockers that read a view (25 and later; CDI 0.6 and later) find in it: Docker 26's
// library and 28.5's, which must agree.
std::vector<std::string> cdi_library_names(const fs::path& dir) {
  const auto names = library_names(dir, "0.7");
  CHECK(library_names(dir, "1.0") == names);
  return names;
}

std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// A grant written into grants.json by hand, past `grant`'s checks.
void grant_by_hand(const FixtureRoot& machine, const std::string& repo, const std::string& device) {
  auto grants = json::parse(machine.read("/etc/rediacc/gpu/grants.json"));
  grants["grants"].push_back(
      {{"repo", repo}, {"device", device}, {"exclusive", false}, {"granted_at", "2026-12-01T00:00:00Z"}});
  machine.write("/etc/rediacc/gpu/grants.json", grants.dump(2));
}

}  // namespace

TEST_CASE("views: a repository's view holds only the names it holds, each spec's own edits kept, loadable by CDI",
          "[oracle]") {
  FixtureRoot machine;
  two_nvidia_datacenter(machine, true);  // nvidia.yaml with top-level containerEdits, renderD128 and renderD129
  views_tool(machine, {"cdi", "generate"});
  views_tool(machine, {"grant", "web", "--device", "nvidia.com/gpu=0"});
  views_tool(machine, {"grant", "web", "--device", "rediacc.io/dri=renderD129"});
  views_tool(machine, {"grant", "ci", "--device", "rediacc.io/dri=renderD128"});
  const auto web = machine.host("/var/lib/rediacc/gpu/cdi/web");
  const auto ci = machine.host("/var/lib/rediacc/gpu/cdi/ci");
  CHECK(files_in(web) == std::vector<std::string>{"nvidia.yaml", "rediacc.io-dri.json"});
  CHECK(cdi_library_names(web) == std::vector<std::string>{"nvidia.com/gpu=0", "rediacc.io/dri=renderD129"});
  CHECK(cdi_library_names(ci) == std::vector<std::string>{"rediacc.io/dri=renderD128"});
  CHECK(cdi_library_names(machine.host("/etc/cdi")).size() > 3);

  // The NVIDIA spec's top-level containerEdits (control nodes, hooks, mounts) are what every one
  // of its devices needs: the view keeps them as they are.
  const auto machine_spec = *rgpu::parse_yaml(machine.read("/etc/cdi/nvidia.yaml"), "nvidia.yaml");
  const auto view_spec = json::parse(machine.read("/var/lib/rediacc/gpu/cdi/web/nvidia.yaml"));
  CHECK(view_spec["containerEdits"] == machine_spec["containerEdits"]);
  CHECK(view_spec["kind"] == "nvidia.com/gpu");
  REQUIRE(view_spec["devices"].size() == 1);
  CHECK(view_spec["devices"][0]["name"] == "0");
  CHECK(cdi_schema_errors(view_spec).empty());
  // Marked for BuildKit (Docker 28.2+), so the repository's builds may use what its containers
  // may; the annotation raises the toolkit's 0.5.0 to 0.6.0, which CDI requires of it.
  CHECK(machine_spec["cdiVersion"] == "0.5.0");
  CHECK(view_spec["cdiVersion"] == "0.6.0");
  CHECK(view_spec["devices"][0]["annotations"] == json{{"org.mobyproject.buildkit.device.autoallow", "true"}});
  const auto dri = json::parse(machine.read("/var/lib/rediacc/gpu/cdi/web/rediacc.io-dri.json"));
  CHECK(dri["devices"][0]["annotations"]["org.mobyproject.buildkit.device.autoallow"] == "true");

  // Revoked: the name leaves the view at once; a repository holding nothing keeps an empty view.
  views_tool(machine, {"revoke", "ci", "--device", "rediacc.io/dri=renderD128"});
  CHECK(fs::is_directory(ci));
  CHECK(files_in(ci).empty());
  views_tool(machine, {"revoke", "web", "--device", "nvidia.com/gpu=0"});
  CHECK(files_in(web) == std::vector<std::string>{"rediacc.io-dri.json"});

  // Nothing changed: a rebuild writes nothing.
  const auto again = run_tool({"cdi", "views", "--root", machine.str()});
  CHECK(again.exit_code == 0);
  CHECK(again.out.empty());
}

TEST_CASE("views: a regenerated nvidia.yaml reaches every view, and a conflicting or hand-granted management name none",
          "[oracle]") {
  FixtureRoot machine;
  two_nvidia_datacenter(machine, true);
  views_tool(machine, {"cdi", "generate"});
  views_tool(machine, {"grant", "web", "--device", "nvidia.com/gpu=all"});
  // The toolkit regenerates the spec (a driver update): the view follows at `cdi views`, which the
  // path unit runs whenever /etc/cdi changes.
  auto spec = machine.read("/etc/cdi/nvidia.yaml");
  const std::string marker = "/dev/nvidia-modeset";
  REQUIRE(spec.find(marker) != std::string::npos);
  spec.replace(spec.find(marker), marker.size(), "/dev/nvidia-uvm-tools");
  machine.write("/etc/cdi/nvidia.yaml", spec);
  const auto rebuilt = run_tool({"cdi", "views", "--root", machine.str()});
  INFO(rebuilt.err);
  CHECK(rebuilt.exit_code == 0);
  CHECK_THAT(rebuilt.out,
             Catch::Contains("write " + machine.host("/var/lib/rediacc/gpu/cdi/web/nvidia.yaml").string()));
  CHECK_THAT(machine.read("/var/lib/rediacc/gpu/cdi/web/nvidia.yaml"), Catch::Contains("/dev/nvidia-uvm-tools"));

  // A name two files define is refused by CDI, so no view offers it.
  machine.write("/etc/cdi/copy.yaml", spec);
  CHECK(run_tool({"cdi", "views", "--root", machine.str()}).exit_code == 0);
  CHECK(files_in(machine.host("/var/lib/rediacc/gpu/cdi/web")).empty());
  fs::remove(machine.host("/etc/cdi/copy.yaml"));

  // A management device written into grants.json by hand is never in a view.
  machine.write("/etc/cdi/management.yaml",
                "cdiVersion: 0.5.0\nkind: management.nvidia.com/gpu\ndevices:\n- name: all\n  containerEdits:\n"
                "    deviceNodes:\n    - path: /dev/nvidia-caps/nvidia-cap1\n");
  grant_by_hand(machine, "web", "management.nvidia.com/gpu=all");
  CHECK(run_tool({"cdi", "views", "--root", machine.str()}).exit_code == 0);
  CHECK(cdi_library_names(machine.host("/var/lib/rediacc/gpu/cdi/web")) ==
        std::vector<std::string>{"nvidia.com/gpu=all"});
}

TEST_CASE("views: grants that do not parse leave every view as it was, and say so") {
  FixtureRoot machine;
  intel_discrete(machine);
  views_tool(machine, {"cdi", "generate"});
  views_tool(machine, {"grant", "web", "--device", "rediacc.io/dri=renderD128"});
  const std::string before = machine.read("/var/lib/rediacc/gpu/cdi/web/rediacc.io-dri.json");
  machine.write("/etc/rediacc/gpu/grants.json", "{not json");
  const auto r = run_tool({"cdi", "views", "--root", machine.str()});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("grants.json"));
  CHECK(machine.read("/var/lib/rediacc/gpu/cdi/web/rediacc.io-dri.json") == before);
}

TEST_CASE("views: the build mark keeps a device's own annotations and a spec's version of 0.6.0 or later", "[oracle]") {
  FixtureRoot machine;
  intel_discrete(machine);
  views_tool(machine, {"cdi", "generate"});
  views_tool(machine, {"grant", "web", "--device", "rediacc.io/dri=renderD128"});
  machine.write("/etc/cdi/fpga.yaml",
                "cdiVersion: 0.7.0\nkind: example.com/fpga\ndevices:\n- name: a\n  annotations:\n"
                "    example.com/slot: \"1\"\n    org.mobyproject.buildkit.device.autoallow: \"false\"\n"
                "  containerEdits:\n    deviceNodes:\n    - path: /dev/dri/renderD128\n");
  grant_by_hand(machine, "web", "example.com/fpga=a");
  views_tool(machine, {"cdi", "views"});
  const auto view = json::parse(machine.read("/var/lib/rediacc/gpu/cdi/web/fpga.yaml"));
  CHECK(view["cdiVersion"] == "0.7.0");
  CHECK(view["devices"][0]["annotations"] ==
        json{{"example.com/slot", "1"}, {"org.mobyproject.buildkit.device.autoallow", "true"}});
  CHECK(cdi_library_names(machine.host("/var/lib/rediacc/gpu/cdi/web")) ==
        std::vector<std::string>{"example.com/fpga=a", "rediacc.io/dri=renderD128"});
}
