#!/usr/bin/env bash
# The command reference says what the binary says: docs/manual.md is what scripts/manual.sh makes
# from the built binary, every command's section ends with its exit status, and the man page
# carries each command's description (from cli/help, as --help does).
# Usage: tests/lint/manual_current.sh SOURCE_DIR BINARY
set -euo pipefail
src=$1 bin=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bash "$src/scripts/manual.sh" "$bin" >"$work/manual.md"
if ! diff -u "$src/docs/manual.md" "$work/manual.md"; then
  echo "docs/manual.md is not what the binary says: run bash scripts/manual.sh $bin > docs/manual.md" >&2
  exit 1
fi

# Each "## command" section of the manual holds an "Exit status:" paragraph.
missing=$(awk '/^## / {if (name != "" && name != "Conventions" && !seen) print name; name = substr($0, 4); seen = 0}
               /^Exit status: / {seen = 1}
               END {if (name != "" && !seen) print name}' "$work/manual.md")
if [ -n "$missing" ]; then
  echo "no exit status in cli/help for: $missing" >&2
  exit 1
fi

# The man page: every command's description and exit status, not only its options.
bash "$src/packaging/man_page.sh" "$bin" "$work/rediacc-gpu.1"
commands=$(grep -c '^## ' "$work/manual.md")
in_man=$(grep -c '^Exit status: ' "$work/rediacc-gpu.1")
if [ "$in_man" -ne $((commands - 1)) ]; then
  echo "the man page carries $in_man exit statuses for $((commands - 1)) commands" >&2
  exit 1
fi
grep -q 'reserves the GPU (or the partition) the name reaches' "$work/rediacc-gpu.1" ||
  { echo "the man page lacks grant's description" >&2; exit 1; }
echo "manual: $((commands - 1)) commands, each with its description and exit status in docs/manual.md and the man page"
