// The bash completion script, sourced into a real bash and asked what a user's TAB would offer.

#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu::test;

namespace {

// What bash hands a completion function for `line` with the cursor at its end: the line and the
// point, and the words split as readline splits them, at spaces and at each of = and : (the
// default COMP_WORDBREAKS), which stand as words of their own.
std::string comp_function() {
  return "comp() {\n"
         "  COMP_LINE=$1; COMP_POINT=${#1}; COMP_WORDS=()\n"
         "  local rest=$1 w=''\n"
         "  while [[ -n $rest ]]; do\n"
         "    local c=${rest:0:1}; rest=${rest:1}\n"
         "    if [[ $c == ' ' ]]; then [[ -n $w ]] && COMP_WORDS+=(\"$w\"); w=''\n"
         "    elif [[ $c == [=:] ]]; then [[ -n $w ]] && COMP_WORDS+=(\"$w\"); COMP_WORDS+=(\"$c\"); w=''\n"
         "    else w+=$c; fi\n"
         "  done\n"
         "  COMP_WORDS+=(\"$w\")\n"
         "  COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _rediacc_gpu; echo \"${COMPREPLY[*]}\"\n"
         "}\n";
}

// One line per completion request: what COMPREPLY holds after TAB at the end of `line`.
std::string complete(const FixtureRoot& bin, const std::vector<std::string>& lines) {
  std::string script = "source <(rediacc-gpu completion bash)\n" + comp_function();
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
  machine.write("/etc/cdi/mig.yaml",
                "cdiVersion: 0.5.0\nkind: nvidia.com/mig\ndevices:\n- name: \"0:1\"\n"
                "  containerEdits:\n    env: [A=1]\n");

  auto out = complete(bin, {
                               "rediacc-gpu gr",
                               "rediacc-gpu cdi l",
                               "rediacc-gpu list -o ",
                               "rediacc-gpu setup --install-nvidia-toolkit ",
                               "rediacc-gpu setup --dr",
                               "rediacc-gpu --root " + machine.str() + " grant team-a --device ",
                               "rediacc-gpu grant team-a --root " + machine.str() + " --device nv",
                               "rediacc-gpu setup --repo-daemon-unit x --dry-run --ro",
                               // After = and :, bash replaces only what follows them.
                               "rediacc-gpu grant t --root " + machine.str() + " --device nvidia.com/gpu=",
                               "rediacc-gpu grant t --root " + machine.str() + " --device nvidia.com/gpu=a",
                               "rediacc-gpu grant t --root=" + machine.str() + " --device=nv",
                               "rediacc-gpu grant t --root " + machine.str() + " --device nvidia.com/mig=0:",
                               "rediacc-gpu list --output=j",
                           });
  CHECK(out ==
        "grant grants\n"
        "list\n"
        "table wide json\n"
        "auto true false\n"
        "--dry-run\n"
        "nvidia.com/gpu=all nvidia.com/mig=0:1\n"
        "nvidia.com/gpu=all nvidia.com/mig=0:1\n"
        "--root\n"
        "all\n"
        "all\n"
        "nvidia.com/gpu=all nvidia.com/mig=0:1\n"
        "1\n"
        "json\n");
}

TEST_CASE("completion: setup --forget-gpu offers the GPUs the inventory keeps as missing") {
  FixtureRoot bin;
  bin.mkdir("/bin");
  std::filesystem::create_symlink(tool_path(), bin.host("/bin/rediacc-gpu"));
  FixtureRoot machine;
  machine.mkdir("/proc");  // a machine's root: --root refuses a directory with neither /sys nor /proc
  const std::string missing = R"({"pci_address": "0000:41:00.0", "vendor": "nvidia", "name": "NVIDIA H100 80GB HBM3",
      "uuid": null, "missing_since": "2025-01-01T00:00:00Z"},
      {"pci_address": "0001:c1:00.0", "vendor": "nvidia", "name": "NVIDIA H100 80GB HBM3", "uuid": null,
      "missing_since": "2025-01-01T00:00:00Z"})";
  machine.write("/etc/rediacc/gpu/inventory.json",
                R"({"schema": 4, "generated_at": "2025-01-01T00:00:00Z", "hostname": null, "platform": "native",
                "cuda_driver_version": null, "gpus": [], "cdi_devices": [], "missing_gpus": [)" +
                    missing + "]}\n");
  const auto out = complete(bin, {
                                     "rediacc-gpu setup --root " + machine.str() + " --forget-gpu ",
                                     "rediacc-gpu setup --root " + machine.str() + " --forget-gpu 0001:",
                                 });
  CHECK(out == "0000:41:00.0 0001:c1:00.0\nc1:00.0\n");
}

TEST_CASE("completion: zsh completes through bashcompinit with the same script") {
  FixtureRoot bin;
  bin.mkdir("/bin");
  std::filesystem::create_symlink(tool_path(), bin.host("/bin/rediacc-gpu"));
  FixtureRoot machine;
  wsl2_nvidia(machine);
  std::string script =
      "autoload -U compinit bashcompinit && compinit -u -D && bashcompinit\n"
      "source <(rediacc-gpu completion bash)\n"
      "comp() { COMP_LINE=$1; COMP_POINT=${#1}; COMPREPLY=(); _rediacc_gpu; echo \"${COMPREPLY[*]}\"; }\n"
      "comp 'rediacc-gpu gr'\n"
      "comp 'rediacc-gpu list -o '\n"
      "comp 'rediacc-gpu grant t --root " +
      machine.str() +
      " --device nvidia.com/gpu='\n"
      "comp 'rediacc-gpu setup --dr'\n";
  auto r = run_program("/usr/bin/zsh", {"-f", "-c", script}, "",
                       {{"PATH", bin.host("/bin").string() + ":/usr/bin:/bin"}, {"HOME", bin.str()}});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // zsh keeps nvidia.com/gpu=… one word, so the whole name is offered.
  CHECK(r.out == "grant grants\ntable wide json\nnvidia.com/gpu=all\n--dry-run\n");
}

TEST_CASE("completion: the script is shellcheck clean and only bash is offered") {
  auto script = run_tool({"completion", "bash"});
  REQUIRE(script.exit_code == 0);
  auto check = run_program("/usr/bin/shellcheck", {"-s", "bash", "-"}, script.out);
  CHECK(check.out == "");
  CHECK(check.exit_code == 0);
  CHECK(run_tool({"completion", "zsh"}).exit_code == 2);
}
