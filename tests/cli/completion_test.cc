// The bash completion script, sourced into a real bash and asked what a user's TAB would offer.

#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu::test;

namespace {

// One line per completion request: what COMPREPLY holds after TAB at the end of `line`.
std::string complete(const FixtureRoot& bin, const std::vector<std::string>& lines) {
  std::string script =
      "source <(rediacc-gpu completion bash)\n"
      "comp() { read -ra COMP_WORDS <<<\"$1\"; [[ $1 == *' ' ]] && COMP_WORDS+=(''); "
      "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _rediacc_gpu; echo \"${COMPREPLY[*]}\"; }\n";
  for (const auto& l : lines) script += "comp '" + l + "'\n";
  auto r = run_program("/bin/bash", {"-c", script}, "", {{"PATH", bin.host("/bin").string() + ":/usr/bin:/bin"}});
  REQUIRE(r.exit_code == 0);
  return r.out;
}

}  // namespace

TEST_CASE("completion: bash completes commands, options, fixed values and the machine's CDI names") {
  FixtureRoot bin;  // rediacc-gpu on PATH, as the package installs it
  bin.mkdir("/bin");
  std::filesystem::create_symlink(tool_path(), bin.host("/bin/rediacc-gpu"));
  FixtureRoot machine;
  wsl2_nvidia(machine);

  auto out = complete(bin, {
                               "rediacc-gpu gr",
                               "rediacc-gpu cdi l",
                               "rediacc-gpu list -o ",
                               "rediacc-gpu setup --install-nvidia-toolkit ",
                               "rediacc-gpu setup --dr",
                               "rediacc-gpu --root " + machine.str() + " grant team-a --device ",
                               "rediacc-gpu grant team-a --root " + machine.str() + " --device nv",
                               "rediacc-gpu setup --repo-daemon-unit x --dry-run --ro",
                           });
  CHECK(out ==
        "grant grants\n"
        "list\n"
        "table json\n"
        "auto true false\n"
        "--dry-run\n"
        "nvidia.com/gpu=all\n"
        "nvidia.com/gpu=all\n"
        "--root\n");
}

TEST_CASE("completion: the script is shellcheck clean and only bash is offered") {
  auto script = run_tool({"completion", "bash"});
  REQUIRE(script.exit_code == 0);
  auto check = run_program("/usr/bin/shellcheck", {"-s", "bash", "-"}, script.out);
  CHECK(check.out == "");
  CHECK(check.exit_code == 0);
  CHECK(run_tool({"completion", "zsh"}).exit_code == 2);
}
