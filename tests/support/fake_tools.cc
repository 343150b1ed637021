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

// The machine a fake acts on: the one chroot named, dnf's --installroot or zypper's --root,
// else the host ("").
constexpr const char* kTarget = R"(target="${RGPU_FAKE_ROOT:-}"; prev=""
for arg in "$@"; do
  case "$arg" in --installroot=*) target="${arg#--installroot=}";; esac
  [ "$prev" = "--root" ] && target="$arg"
  prev="$arg"
done
)";

// chroot ROOT PROGRAM ARGS: the program (a fake, found on PATH) acts on ROOT.
constexpr const char* kChroot = R"(RGPU_FAKE_ROOT="$1"; export RGPU_FAKE_ROOT; shift; exec "$@"
)";

// rpm's database cannot be faked: rpm -q PACKAGE (its last argument) reads the file of that name
// that the fake installers, or a test's fixture, write.
constexpr const char* kQuery =
    R"(for arg in "$@"; do pkg="$arg"; done
if [ -f "$target/var/lib/fake-rpm/$pkg" ]; then read -r v < "$target/var/lib/fake-rpm/$pkg"; echo "$v"; exit 0; fi
echo "package $pkg is not installed" >&2; exit 1
)";

// Installing records the package where setup and doctor read it: dpkg's status file (apt) or the
// fake rpm database, and puts nvidia-ctk in the machine's /usr/bin.
constexpr const char* kInstaller = R"(v=""
for arg in "$@"; do
  case "$arg" in
    nvidia-container-toolkit-base=*) v="${arg#*=}";;
    nvidia-container-toolkit-base-*) v="${arg#nvidia-container-toolkit-base-}";;
  esac
done
if [ -n "$v" ]; then
  mkdir -p "$target/usr/bin" "$target/var/lib/dpkg" "$target/var/lib/fake-rpm"
  printf '#!/bin/sh\n' > "$target/usr/bin/nvidia-ctk"; chmod 755 "$target/usr/bin/nvidia-ctk"
  if [ "$tool" = apt-get ]; then
    printf 'Package: nvidia-container-toolkit-base\nStatus: install ok installed\nVersion: %s\n\n' "$v" > "$target/var/lib/dpkg/status"
  else
    echo "$v" > "$target/var/lib/fake-rpm/nvidia-container-toolkit-base"
  fi
fi
)";

// setsebool -P NAME=on ...: the kernel's view of each boolean, where doctor and setup read it.
constexpr const char* kSetsebool = R"(for arg in "$@"; do
  case "$arg" in
    *=on|*=1) mkdir -p "$target/sys/fs/selinux/booleans"; echo "1 1" > "$target/sys/fs/selinux/booleans/${arg%=*}";;
    *=off|*=0) mkdir -p "$target/sys/fs/selinux/booleans"; echo "0 0" > "$target/sys/fs/selinux/booleans/${arg%=*}";;
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
  out="$target$out"
  mkdir -p "${out%/*}"
  if [ "$tool" = nvidia-ctk ]; then
    # Under WSL (--mode=wsl) the GPU is /dev/dxg, as nvidia-ctk's WSL mode maps it.
    node=/dev/nvidia0
    case " $* " in *" --mode=wsl "*) node=/dev/dxg;; esac
    # A machine that records what the real nvidia-ctk wrote on it (the manual's examples) gets that.
    if [ -f "$target/usr/share/fake-nvidia-ctk/nvidia.yaml" ]; then
      cat "$target/usr/share/fake-nvidia-ctk/nvidia.yaml" > "$out"
    else
      printf -- '---\ncdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: all\n  containerEdits:\n    deviceNodes:\n    - path: %s\n' "$node" > "$out"
    fi
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
  for (const char* tool : {"apt-get", "dnf", "yum", "zypper", "rpm", "curl", "gpg", "nvidia-ctk", "systemctl",
                           "udevadm", "chroot", "journalctl", "setsebool", "nvidia-modprobe"}) {
    std::string body = std::string(kPrelude) + kTarget;
    const std::string name = tool;
    if (name == "chroot") body += kChroot;
    if (name == "rpm") body += kQuery;
    if (name == "setsebool") body += kSetsebool;
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

void FakeTools::installed(const FixtureRoot& root, const std::string& version) const {
  root.write("/var/lib/dpkg/status",
             "Package: nvidia-container-toolkit-base\nStatus: install ok installed\nVersion: " + version + "\n\n");
  root.write("/var/lib/fake-rpm/nvidia-container-toolkit-base", version + "\n");
  root.write("/usr/bin/nvidia-ctk", "#!/bin/sh\n");
  ::chmod(root.host("/usr/bin/nvidia-ctk").c_str(), 0755);
}

bool called(const std::vector<std::string>& calls, const std::string& prefix) {
  for (const auto& c : calls) {
    if (c.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

}  // namespace rgpu::test
