#!/usr/bin/env bash
# A reload and the /dev/char links, through the real thing: systemd as PID 1 (systemd-nspawn
# --boot), Docker with the systemd cgroup driver on cgroup v2, runc, and a GPU's node, on two
# stacks booted from overlays (nothing they write reaches the folders they are made from):
#   - Debian 12: this machine's own userland (systemd 252, Docker 20.10, runc 1.1.5), the node
#     given by --device (Docker 20.10 has no CDI; runc is handed the same rule);
#   - Debian 13: the Docker 26 root (systemd 257, Docker 26, runc 1.1.15, and Debian 12's runc
#     1.1.5 beside it), the node given as a CDI device.
# Each container opens /dev/nvidia0 again and again and says what the kernel answered: ENXIO "No
# such device or address" (the device cgroup let it through to a node whose driver is absent) or
# EPERM "Operation not permitted" (the device cgroup refused it).
#
# What it shows: runc 1.1.3 to 1.1.6 hand systemd no DeviceAllow for a node without its /dev/char
# link; on Debian 12 a plain `systemctl daemon-reload` then applies the scope's device rules again
# and the container loses the node (NVIDIA's "Failed to initialize NVML: Unknown Error"); with the
# links `rediacc-gpu cdi views` makes (what its path unit and udev rule run) it keeps it. systemd
# 257 does not apply a running scope's rules again at a plain reload; a change to the scope does
# (`systemctl set-property`), and there too only the link keeps the node. Debian 13's runc names
# the node without the link.
#
# Usage: systemd_reload_test.sh BINARY DOCKER26_ROOT RELEASE_EXECUTABLE: the build's binary runs
# in this machine's userland, the release's self-contained one in the Debian 13 root. Needs root,
# systemd-nspawn (systemd-container), dbus, cgroup2 in the kernel, and Debian 12's runc here.
set -euo pipefail
usage="usage: systemd_reload_test.sh BINARY DOCKER26_ROOT RELEASE_EXECUTABLE"
binary=${1:?$usage}
docker26=${2:?$usage}
release_exe=${3:?$usage}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
command -v systemd-nspawn >/dev/null || fail "systemd-nspawn is missing: run bash scripts/setup.sh test (systemd-container)"
command -v dbus-daemon >/dev/null || fail "dbus-daemon is missing: run bash scripts/setup.sh test (dbus)"
[ -x "$docker26/usr/lib/systemd/systemd" ] ||
  fail "$docker26 has no systemd: make the root again with the current scripts/docker-root.sh 26"
grep -qw cgroup2 /proc/filesystems || fail "this kernel has no cgroup2, which the booted systemd needs here"
deb12_runc=$(command -v runc) || fail "runc is missing: run bash scripts/setup.sh test"
runc_version=$("$deb12_runc" --version | awk 'NR == 1 { print $3 }')
case $runc_version in
  1.1.[3-6]*) ;;
  *) fail "this machine's runc is $runc_version, not Debian 12's 1.1.5: the test shows what runc 1.1.3 to 1.1.6 do" ;;
esac

work=$(mktemp -d /tmp/rgpu-reload.XXXXXX)
nspawn_pid='' leader='' root=''
stop() {
  if [ -n "$nspawn_pid" ] && kill -0 "$nspawn_pid" 2>/dev/null; then
    kill -TERM "$nspawn_pid" 2>/dev/null || true
    for _ in $(seq 1 40); do
      kill -0 "$nspawn_pid" 2>/dev/null || break
      sleep 0.5
    done
    kill -KILL "$nspawn_pid" 2>/dev/null || true
    wait "$nspawn_pid" 2>/dev/null || true
  fi
  nspawn_pid='' leader=''
  [ -z "$root" ] || umount "$root" 2>/dev/null || true
  umount "$work/layers" 2>/dev/null || true
  root=''
}
trap 'stop; rm -rf --one-file-system "$work"' EXIT

# The container's PID 1 as this machine sees it: systemd-nspawn's child named systemd (read from
# /proc: a bare Debian 12 need not have procps).
child_systemd() {
  local stat
  for stat in /proc/[0-9]*/stat; do
    read -r pid comm _ ppid _ <"$stat" 2>/dev/null || continue
    if [ "$ppid" = "$1" ] && [ "$comm" = "(systemd)" ]; then
      echo "$pid"
      return 0
    fi
  done
  return 0
}
inside() { nsenter -t "$leader" -a -r -w env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"; }

# The upper layer's files: Docker with the systemd cgroup driver and Debian 12's runc as a second
# runtime, a target that starts Docker and nothing else, the NVIDIA spec's shape (nvidia-ctk cdi
# generate: the GPU's node, the control node for all), a busybox image's files.
dress() {  # dress ROOT
  mkdir -p "$1/etc/docker" "$1/etc/cdi" "$1/opt/image/bin" "$1/etc/systemd/system" "$1/usr/local/sbin" "$1/usr/local/bin"
  install -m 0755 "$deb12_runc" "$1/usr/local/sbin/runc-debian12"
  # Its own data root, new in the upper layer: dockerd renames directories there, which overlayfs
  # refuses (EXDEV) for one that came from the lower layer.
  echo '{"exec-opts": ["native.cgroupdriver=systemd"], "storage-driver": "vfs", "iptables": false,
 "data-root": "/var/lib/rgpu-reload-docker",
 "ip6tables": false, "bridge": "none", "features": {"cdi": true},
 "runtimes": {"runc-debian12": {"path": "/usr/local/sbin/runc-debian12"}}}' >"$1/etc/docker/daemon.json"
  printf '%s\n' '[Unit]' 'Description=Docker alone, for the reload test' 'Requires=docker.service' \
    'After=docker.service' >"$1/etc/systemd/system/rgpu-reload.target"
  printf '%s\n' 'cdiVersion: 0.5.0' 'kind: nvidia.com/gpu' 'devices:' '- name: "0"' '  containerEdits:' \
    '    deviceNodes:' '    - path: /dev/nvidia0' 'containerEdits:' '  deviceNodes:' '  - path: /dev/nvidiactl' \
    >"$1/etc/cdi/nvidia.yaml"
  cp "$(command -v busybox)" "$1/opt/image/bin/busybox"
  for applet in sh sleep date; do ln -sf busybox "$1/opt/image/bin/$applet"; done
  # A root made for the tests forbids starting services (policy-rc.d); booted, it must not.
  rm -f "$1/usr/sbin/policy-rc.d"
}

# boot NAME LOWER: an overlay on LOWER (its upper layer in memory, which also keeps it off LOWER's
# filesystem) booted with systemd as PID 1, up to docker.service and no further.
boot() {
  local name=$1 lower=$2
  mkdir -p "$work/layers" "$work/$name"
  mount -t tmpfs tmpfs "$work/layers"
  mkdir -p "$work/layers/upper" "$work/layers/work"
  root=$work/$name
  mount -t overlay overlay -o "lowerdir=$lower,upperdir=$work/layers/upper,workdir=$work/layers/work" "$root"
  dress "$root"
  # cgroup v2 for the booted systemd, whatever this host mounts: there a cgroup's device program
  # is the kernel's only device check, as on each of Rediacc's five distributions.
  SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1 systemd-nspawn -D "$root" --boot --register=no --keep-unit \
    --machine="rgpu-$name-$$" --console=passive --capability=all --system-call-filter='@keyring bpf' \
    systemd.unit=rgpu-reload.target >"$work/$name.log" 2>&1 &
  nspawn_pid=$!
  for _ in $(seq 1 180); do
    leader=$(child_systemd "$nspawn_pid")
    [ -n "$leader" ] && nsenter -t "$leader" -a -r -w systemctl is-active --quiet docker.service 2>/dev/null && break
    kill -0 "$nspawn_pid" 2>/dev/null || {
      cat "$work/$name.log" >&2
      fail "systemd-nspawn --boot of $lower stopped (its log above)"
    }
    sleep 0.5
  done
  [ -n "$leader" ] || fail "systemd-nspawn --boot of $lower started no systemd in 90 s"
  inside systemctl is-active --quiet docker.service || {
    tail -n 40 "$work/$name.log" >&2
    inside journalctl -u docker.service -u containerd.service --no-pager -n 30 >&2 || true
    fail "docker.service did not start in $lower booted (systemd's PID $leader here; its console above)"
  }
  echo "== $name: $(inside systemctl --version | head -n 1); $(inside docker version -f 'Docker {{.Server.Version}}');" \
    "cgroup driver $(inside docker info -f '{{.CgroupDriver}}') on cgroup v$(inside docker info -f '{{.CgroupVersion}}');" \
    "runc $(inside runc --version | awk 'NR == 1 { print $3 }'), and Debian 12's $runc_version as runc-debian12"
  inside sh -c 'tar -C /opt/image -c . | docker import - rgpu-reload:1 >/dev/null'
  # The NVIDIA driver's nodes as they are on a machine where nothing made their links.
  inside mknod -m 0666 /dev/nvidia0 c 195 0
  inside mknod -m 0666 /dev/nvidiactl c 195 255
}

# shellcheck disable=SC2016 # expanded in the container
probe='while :; do echo "$(date +%s) $( (exec 3</dev/nvidia0) 2>&1)"; sleep 0.3; done'
# shellcheck disable=SC2034 # both read by name: ${!after_reload}, ${!after_change}
allowed="No such device or address" refused="Operation not permitted"
expect() {  # expect CONTAINER WORDS WHAT: the container's answer after its next tries
  local said
  sleep 1.5
  said=$(inside docker logs "$1" 2>&1 | tail -n 1)
  case $said in
    *"$2"*) echo "  ok: $3 (${said#* })" ;;
    *) fail "$3: the container said \"$said\", not \"$2\"" ;;
  esac
}
links() {  # links yes|no: the product makes them, or they are taken away
  if [ "$1" = yes ]; then
    inside rediacc-gpu cdi views
    for link in 195:0 195:255; do
      inside test -c "/dev/char/$link" || fail "rediacc-gpu cdi views made no /dev/char/$link"
    done
  else
    inside rm -f /dev/char/195:0 /dev/char/195:255
  fi
}
# case_run RUNTIME DEVICE LINKS AFTER_RELOAD AFTER_CHANGE: a container given DEVICE by RUNTIME,
# then a daemon-reload, then a change to its scope; what it must answer after each.
case_run() {
  local runtime=$1 device=$2 with_links=$3 after_reload=$4 after_change=$5 id scope named=no
  links "$with_links"
  echo "$runtime, --device $device, /dev/char links: $with_links"
  id=$(inside docker run -d --runtime "$runtime" --device "$device" rgpu-reload:1 sh -c "$probe")
  scope=docker-$id.scope
  inside systemctl show -p DeviceAllow "$scope" | grep -q '/dev/char/195:0' && named=yes
  echo "  runc named /dev/char/195:0 in the scope's DeviceAllow: $named"
  expect "$id" "$allowed" "at its start the container opens the node"
  inside systemctl daemon-reload
  expect "$id" "${!after_reload}" "after systemctl daemon-reload it is $after_reload"
  inside systemctl set-property --runtime "$scope" TasksAccounting=yes
  expect "$id" "${!after_change}" "after a change to its scope it is $after_change"
  inside docker rm -f "$id" >/dev/null
}

boot debian12 /
install -m 0755 "$binary" "$root/usr/local/bin/rediacc-gpu"
case_run runc /dev/nvidia0 no refused refused
case_run runc /dev/nvidia0 yes allowed allowed
stop

boot debian13 "$docker26"
install -m 0755 "$release_exe" "$root/usr/local/bin/rediacc-gpu"
case_run runc-debian12 nvidia.com/gpu=0 no allowed refused
case_run runc-debian12 nvidia.com/gpu=0 yes allowed allowed
case_run runc nvidia.com/gpu=0 no allowed allowed
stop
echo "PASS: without its /dev/char link runc 1.1.5 loses the node at a reload (Debian 12) or a change to the" \
  "container's scope (Debian 13); with the links rediacc-gpu makes it keeps it; runc 1.1.15 keeps it either way"
