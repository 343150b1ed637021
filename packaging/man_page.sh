#!/usr/bin/env bash
# Writes rediacc-gpu.1 from the binary's own --help texts: help2man renders the top-level help,
# a COMMANDS section is added with every subcommand's --help (nested ones too), and an EXAMPLES
# section with each subcommand's examples, so the man page cannot drift from the binary.
# Each command's description comes from cli/help/COMMAND.txt, the text its --help ends with.
# Usage: packaging/man_page.sh BINARY OUTPUT [EMULATOR...]
# EMULATOR runs a cross-built BINARY (qemu-aarch64-static -L /usr/aarch64-linux-gnu).
set -euo pipefail
bin=$1 out=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
texts=$here/../cli/help
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ $# -gt 0 ]; then
  # help2man runs the binary itself, and names the page after it: a wrapper of the same name.
  mkdir "$work/emulated"
  printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$*" "$bin" >"$work/emulated/rediacc-gpu"
  chmod +x "$work/emulated/rediacc-gpu"
  bin=$work/emulated/rediacc-gpu
fi

# Roff-escape one line of plain text.
roff() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e 's/^[.'"'"']/\\\&&/'; }

# The names listed under "Subcommands:" in a --help text.
subcommands() { awk '/^Subcommands:/ {on = 1; next} /^$/ {on = 0} on && /^  [a-z]/ {print $1}'; }

# A description from cli/help as roff: paragraphs filled, ``` blocks and tables kept as written,
# `code` in bold.
# shellcheck disable=SC2016  # the backticks are the text's, not a command
description() {
  local file=$texts/${1// /_}.txt
  [ -f "$file" ] || return 0
  printf '.PP\n'
  awk '/^```/ {print (on = !on) ? ".nf" : ".fi"; next}
       /^\|/ && !on {print ".nf"; print; print ".fi"; next}
       /^- / && !on {print ".IP \\(bu 2"; sub(/^- /, "")}
       /^$/ {print ".PP"; next}
       {print}' "$file" |
    sed -e '/^\.\(nf\|fi\|PP\|IP .*\)$/b' -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^[.']/\\\\\&&/" \
      -e 's/`\([^`]*\)`/\\fB\1\\fR/g'
}

# One subcommand's help as a .SS block: summary, usage, its description, then each option as a
# tagged paragraph.
section() {
  local path=$1 help
  # shellcheck disable=SC2086  # the path is words: "cdi list"
  help=$("$bin" $path --help)
  printf '.SS "rediacc\\-gpu %s"\n' "$(roff <<<"$path")"
  head -n 1 <<<"$help" | roff
  printf '.PP\n'
  grep -m1 '^Usage:' <<<"$help" | sed "s|^Usage: [^ ]*rediacc-gpu|Usage: rediacc-gpu|" | roff
  description "$path"
  printf '.PP\nOptions:\n'
  # Each option line's name (the flag and its value's words in capitals) and its text, in one awk:
  # four commands an option made the man page take seconds, run once per package built.
  awk '
    function roff(s,   out, i, c) {
      for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        out = out (c == "\\" ? "\\e" : c == "-" ? "\\-" : c)
      }
      return (out ~ /^[.\047]/) ? "\\&" out : out
    }
    /^(Options|Positionals):/ {on = 1; next}
    /^[A-Z][a-z]*:/ {on = 0}
    on && /^  [^ ]/ {
      match($0, /^  [^ ]+( [A-Z][A-Z:{},a-z_-]*)*/)
      name = substr($0, 3, RLENGTH - 2)
      text = match($0, /^  [^ ]+( [A-Z][A-Z:{},a-z_-]*)* +/) ? substr($0, RLENGTH + 1) : $0
      printf ".TP\n\\fB%s\\fR\n%s\n", roff(name), roff(text)
    }' <<<"$help"
  local sub
  for sub in $(subcommands <<<"$help"); do section "$path $sub"; done
}

# Every subcommand's "Examples:" block, as the man page's EXAMPLES section.
examples() {
  local sub
  printf '[EXAMPLES]\n.nf\n'
  for sub in $("$bin" --help | subcommands); do
    "$bin" "$sub" --help | awk '/^Examples:/ {on = 1; next} on && /^  / {sub(/^  /, ""); print}' | roff
  done
  printf '.fi\n'
}

{
  printf '[COMMANDS]\n'
  for sub in $("$bin" --help | subcommands); do section "$sub"; done
  examples
  cat "$here/man_extra.h2m"
} >"$work/include.h2m"

help2man --no-info --no-discard-stderr --section 1 \
  --name "provision GPU hosts for containers and guard who may use which GPU" \
  --include "$work/include.h2m" --output "$work/rediacc-gpu.1" "$bin"
# help2man names the binary by its build path in places; the man page names the installed one.
sed -i "s|$(dirname "$bin")/||g" "$work/rediacc-gpu.1"
mv "$work/rediacc-gpu.1" "$out"
