# Sourced by the bench scripts: arguments, the built binaries, a scratch dir, timing helpers.
# Sets: build, rounds, tool, maker, work (removed on exit).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
rounds=${2:-30}
tool="$build/cli/rediacc-gpu"
maker="$build/tests/rgpu-make-fixture"
for bin in "$tool" "$maker"; do
  [ -x "$bin" ] || { echo "bench: $bin not found; build first (bash scripts/setup.sh test)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now_ns() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
