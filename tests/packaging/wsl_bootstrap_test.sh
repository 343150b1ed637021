#!/usr/bin/env bash
# contrib/wsl/bootstrap.sh on the WSL2 fixture root: it refuses a machine without /dev/dxg or
# without the Windows driver's libraries, installing nothing, and on the fixture it installs the
# package (apt-get, for real), runs setup and prints the GPU with platform wsl.
# Usage: tests/packaging/wsl_bootstrap_test.sh BUILD_DIR
source "$(dirname "$0")/common.sh"
bootstrap=$(cd "$(dirname "$0")/../../contrib/wsl" && pwd)/bootstrap.sh

shellcheck "$bootstrap" || fail "shellcheck reports the findings above in $bootstrap"
deb=$(build_deb)
remove_if_installed

"$maker" no-gpu "$work/native"
if bash "$bootstrap" --deb "$deb" --root "$work/native" >"$work/out" 2>&1; then fail "bootstrap passed a machine without /dev/dxg"; fi
grep -q "/dev/dxg is missing" "$work/out" || { cat "$work/out" >&2; fail "the refusal does not name /dev/dxg"; }

"$maker" wsl2-nvidia "$work/nolibs"
rm -rf "$work/nolibs/usr/lib/wsl/lib"
if bash "$bootstrap" --deb "$deb" --root "$work/nolibs" >"$work/out" 2>&1; then fail "bootstrap passed a machine without /usr/lib/wsl/lib"; fi
grep -q "/usr/lib/wsl/lib is missing" "$work/out" || { cat "$work/out" >&2; fail "the refusal does not name /usr/lib/wsl/lib"; }
[[ ! -e /usr/bin/rediacc-gpu ]] || fail "a refused bootstrap installed the package"

"$maker" wsl2-nvidia "$work/wsl"
bash "$bootstrap" --deb "$deb" --install-nvidia-toolkit=false --root "$work/wsl" >"$work/out" 2>&1 ||
  { cat "$work/out" >&2; fail "bootstrap failed on the WSL2 fixture"; }
grep -q "platform wsl" "$work/out" || { cat "$work/out" >&2; fail "setup did not find the WSL2 GPU"; }
grep -Eq "NVIDIA GeForce RTX 4080 Laptop GPU +dxgkrnl [0-9.]+ +12.0 GiB +wsl .*nvidia.com/gpu=all" "$work/out" ||
  { cat "$work/out" >&2; fail "list did not show the WSL2 GPU"; }
dpkg-query -W -f '${Status}' rediacc-gpu | grep -q "install ok installed" || fail "the package is not installed"
[[ -s $work/wsl/etc/rediacc/gpu/inventory.json ]] || fail "no inventory in the WSL2 fixture"

# The single file (the release's executable; here this build's), as a server without the package
# takes it: installed into the distribution's /usr/local/bin, setup writes the units a package
# would have brought, with that path.
remove_if_installed
"$maker" wsl2-nvidia "$work/single"
bash "$bootstrap" --file "$build/cli/rediacc-gpu" --install-nvidia-toolkit=false --root "$work/single" >"$work/out" 2>&1 ||
  { cat "$work/out" >&2; fail "bootstrap --file failed on the WSL2 fixture"; }
[[ -x $work/single/usr/local/bin/rediacc-gpu ]] || fail "bootstrap --file did not install the file in /usr/local/bin"
grep -q "platform wsl" "$work/out" || { cat "$work/out" >&2; fail "setup from the single file did not find the WSL2 GPU"; }
grep -q "ExecStart=/usr/local/bin/rediacc-gpu" "$work/single/etc/systemd/system/rediacc-gpu-refresh.service" ||
  fail "setup from the single file did not write its units naming /usr/local/bin/rediacc-gpu"
[[ ! -e /usr/bin/rediacc-gpu ]] || fail "bootstrap --file installed the package"
echo "wsl bootstrap: refused two broken machines, set up the WSL2 fixture from the .deb and from the single file"
