#!/bin/sh
# Runs a command as if on this machine's own root, in a private mount namespace where / is an
# overlay whose writable layer is a tmpfs: the machine's real /sys, /proc and /dev are seen,
# everything written is thrown away when the command ends. Prints, after the command's own
# output, the files it wrote (one "wrote PATH" line each).
# Usage: throwaway_root.sh PROGRAM_DIR COMMAND [ARGS...]   (PROGRAM_DIR is seen at /opt/under-test)
set -eu
if [ "${RGPU_IN_NAMESPACE:-}" != 1 ]; then
  RGPU_IN_NAMESPACE=1 exec unshare --mount --propagation private "$0" "$@"
fi
program_dir=$1
shift
scratch=$(mktemp -d)
mount -t tmpfs tmpfs "$scratch"
mkdir "$scratch/upper" "$scratch/work" "$scratch/merged"
mount -t overlay overlay -o "lowerdir=/,upperdir=$scratch/upper,workdir=$scratch/work" "$scratch/merged"
for d in proc sys dev; do mount --rbind "/$d" "$scratch/merged/$d"; done
mount -t tmpfs tmpfs "$scratch/merged/run"  # no live systemd or udev to reload
mount -t tmpfs tmpfs "$scratch/merged/tmp"
mkdir -p "$scratch/merged/opt/under-test"
mount --bind "$program_dir" "$scratch/merged/opt/under-test"
rc=0
chroot "$scratch/merged" "$@" || rc=$?
(cd "$scratch/upper" && find . -type f | sed 's|^\.|wrote |' | sort) || true
umount -l "$scratch"
rmdir "$scratch"
exit "$rc"
