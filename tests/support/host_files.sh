#!/bin/sh
# The test suite never changes the machine that runs it outside its temporary roots and the
# daemons it starts: `record` lists every file, link and directory under the host's
# /etc/rediacc, /etc/cdi and /etc/systemd (type, size, modification time, link target) before the
# first test; `compare` lists them again after the last and fails, naming each difference.
# Usage: host_files.sh record|compare FILE
set -eu
list() {
  for d in /etc/rediacc /etc/cdi /etc/systemd; do
    if [ -e "$d" ]; then find "$d" -xdev -printf '%p %y %s %T@ %l\n'; fi
  done | LC_ALL=C sort
}
case "$1" in
  record) list >"$2" ;;
  compare)
    list >"$2.after"
    if ! diff -u "$2" "$2.after" >"$2.diff"; then
      echo "the tests changed the machine's own files (- before, + after):" >&2
      cat "$2.diff" >&2
      exit 1
    fi
    echo "the machine's /etc/rediacc, /etc/cdi and /etc/systemd are as the tests found them"
    ;;
  *) echo "usage: host_files.sh record|compare FILE" >&2; exit 2 ;;
esac
