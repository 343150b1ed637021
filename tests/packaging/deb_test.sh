#!/usr/bin/env bash
# The Debian package: lintian shows no error, it installs with dpkg -i, the installed binary runs
# setup on a fixture machine, and dpkg -r leaves nothing behind.
# Usage: tests/packaging/deb_test.sh BUILD_DIR
source "$(dirname "$0")/common.sh"

deb=$(build_deb)
lintian --fail-on error "$deb" >"$work/lintian.log" 2>&1 || { cat "$work/lintian.log" >&2; fail "lintian reports errors"; }
echo "lintian: $(grep -c '^[EW]:' "$work/lintian.log" || true) errors and warnings"

depends=$(dpkg-deb -f "$deb" Depends)
for lib in libc6 pci.ids libdrm2 libyaml-cpp libsimdjson libstdc++6; do
  [[ $depends == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
done

remove_if_installed
# Everything under the directories the package touches, before it comes and after it goes.
snapshot() { find /usr/bin /usr/sbin /lib/systemd/system /lib/udev/rules.d /usr/share/man/man1 /usr/share/doc \
  /usr/share/bash-completion/completions /usr/share/lintian/overrides /etc /var/lib/dpkg/info \
  -path /etc/ld.so.cache -prune -o -print 2>/dev/null | sort; }
snapshot >"$work/before"

dpkg -i "$deb" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log" >&2; fail "dpkg -i failed"; }
version=$(/usr/bin/rediacc-gpu --version)
[[ $version == "rediacc-gpu $(dpkg-deb -f "$deb" Version)"* ]] || fail "--version says '$version'"
# Read once: `zcat | grep -q` fails under pipefail when grep stops before zcat has written it all.
man_page=$(zcat /usr/share/man/man1/rediacc-gpu.1.gz)
grep -q '^\.SH EXAMPLES' <<<"$man_page" || fail "the man page has no EXAMPLES section"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' /usr/share/rediacc-gpu/inventory.schema.json ||
  fail "the package does not ship the inventory's JSON Schema"
grep -q 'rediacc\\-gpu grant team\\-a' <<<"$man_page" ||
  fail "the man page's EXAMPLES lack the subcommands' examples"
for f in /lib/systemd/system/rediacc-gpu-refresh.service /lib/systemd/system/rediacc-gpu-authz@.socket \
  /lib/systemd/system/rediacc-gpu-authz@.service /lib/udev/rules.d/90-rediacc-gpu.rules \
  /usr/share/man/man1/rediacc-gpu.1.gz /usr/share/bash-completion/completions/rediacc-gpu; do
  [[ -s $f ]] || fail "the package did not install $f"
done
grep -q '^\.SS "rediacc\\-gpu grant"' <<<"$man_page" || fail "the man page lacks the grant command"
grep -q 'A grant records the hardware its name reaches' <<<"$man_page" ||
  fail "the man page lacks the commands' descriptions (cli/help)"
systemd-analyze verify /lib/systemd/system/rediacc-gpu-refresh.service /lib/systemd/system/rediacc-gpu-authz@x.socket \
  >"$work/verify.log" 2>&1 || { cat "$work/verify.log" >&2; fail "systemd-analyze verify rejects a packaged unit"; }

# setup on a fixture machine that has the package unpacked, as an image built with it would.
"$maker" two-nvidia-nvml "$work/root"
dpkg-deb -x "$deb" "$work/root"
/usr/bin/rediacc-gpu setup --root "$work/root" --install-nvidia-toolkit=false >"$work/setup.out" 2>&1 ||
  { cat "$work/setup.out" >&2; fail "setup failed"; }
cat "$work/setup.out"
[[ -s $work/root/etc/rediacc/gpu/inventory.json ]] || fail "setup wrote no inventory"
[[ ! -e $work/root/etc/systemd/system/rediacc-gpu-refresh.service ]] ||
  fail "setup copied a unit the package ships into /etc"
/usr/bin/rediacc-gpu list --root "$work/root" | grep -q 'NVIDIA' || fail "list shows no NVIDIA GPU"

dpkg -r rediacc-gpu >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log" >&2; fail "dpkg -r failed"; }
[[ $(dpkg-query -W -f '${Status}' rediacc-gpu 2>/dev/null || true) != *installed* ]] ||
  fail "dpkg still lists rediacc-gpu after dpkg -r"
snapshot >"$work/after"
diff -u "$work/before" "$work/after" || fail "dpkg -r left the files above behind"
echo "deb: installed, ran setup on a fixture, removed without a trace"
