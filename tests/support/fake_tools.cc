#include "tests/support/fake_tools.h"

#include <sys/stat.h>

#include <cstdlib>
#include <sstream>

namespace rgpu::test {
namespace {

// Every fake: log the call, fail when told to, then do its one job.
constexpr const char* kPrelude = R"(#!/bin/sh
tool=${0##*/}
echo "$tool $*" >> "$RGPU_FAKE_DIR/calls.log"
if [ -f "$RGPU_FAKE_DIR/fail-$tool" ]; then
  read -r when < "$RGPU_FAKE_DIR/fail-$tool" || true
  case " $* " in *"$when"*) echo "$tool: simulated failure" >&2; exit 1;; esac
fi
)";

constexpr const char* kQuery =
    R"(if [ -f "$RGPU_FAKE_DIR/installed" ]; then read -r v < "$RGPU_FAKE_DIR/installed"; echo "$v"; exit 0; fi
echo "package nvidia-container-toolkit-base is not installed" >&2; exit 1
)";

constexpr const char* kInstaller = R"(for arg in "$@"; do
  case "$arg" in
    nvidia-container-toolkit-base=*) echo "${arg#*=}" > "$RGPU_FAKE_DIR/installed";;
    nvidia-container-toolkit-base-*) echo "${arg#nvidia-container-toolkit-base-}" > "$RGPU_FAKE_DIR/installed";;
  esac
done
)";

// -o FILE (curl, gpg) or --output=FILE (nvidia-ctk): write something there.
constexpr const char* kWriter = R"(out=""; prev=""
for arg in "$@"; do
  case "$arg" in --output=*) out="${arg#--output=}";; esac
  [ "$prev" = "-o" ] && out="$arg"
  prev="$arg"
done
if [ -n "$out" ]; then
  if [ "$tool" = nvidia-ctk ]; then
    printf -- '---\ncdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: all\n  containerEdits:\n    deviceNodes:\n    - path: /dev/nvidia0\n' > "$out"
  else
    echo "fake $tool output" > "$out"
  fi
fi
)";

}  // namespace

FakeTools::FakeTools() { write_fakes(); }

FakeTools::FakeTools(const std::filesystem::path& dir) : dir_(dir) { write_fakes(); }

void FakeTools::write_fakes() const {
  dir_.write("/calls.log", "");
  for (const char* tool :
       {"apt-get", "dnf", "yum", "zypper", "dpkg-query", "rpm", "curl", "gpg", "nvidia-ctk", "systemctl", "udevadm"}) {
    std::string body = kPrelude;
    const std::string name = tool;
    if (name == "dpkg-query" || name == "rpm") body += kQuery;
    if (name == "apt-get" || name == "dnf" || name == "yum" || name == "zypper") body += kInstaller;
    if (name == "curl" || name == "gpg" || name == "nvidia-ctk") body += kWriter;
    body += "exit 0\n";
    const auto path = dir_.host("/bin/" + name);
    dir_.write("/bin/" + name, body);
    ::chmod(path.c_str(), 0755);
  }
}

Env FakeTools::env() const {
  const char* path = std::getenv("PATH");
  return {{"PATH", bin_dir() + ":" + (path ? path : "/usr/bin:/bin")}, {"RGPU_FAKE_DIR", dir_.str()}};
}

std::vector<std::string> FakeTools::calls() const {
  std::vector<std::string> out;
  std::istringstream in(dir_.read("/calls.log"));
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

void FakeTools::clear_calls() const { dir_.write("/calls.log", ""); }

void FakeTools::fail(const std::string& tool, const std::string& when) const { dir_.write("/fail-" + tool, when); }

void FakeTools::installed(const std::string& version) const { dir_.write("/installed", version + "\n"); }

bool called(const std::vector<std::string>& calls, const std::string& prefix) {
  for (const auto& c : calls) {
    if (c.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

}  // namespace rgpu::test
