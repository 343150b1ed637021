#!/usr/bin/env bash
# Bootstraps rediacc-gpu in a WSL2 distribution (Debian or Ubuntu): checks that Windows exposes
# the GPU (/dev/dxg and the driver's libraries in /usr/lib/wsl/lib), installs rediacc-gpu, runs
# setup and prints the GPUs found. Run as root inside the distribution:
#
#   sudo bash bootstrap.sh [--deb FILE | --file EXECUTABLE] [--install-nvidia-toolkit auto|true|false]
#
# --deb installs that package file; --file installs the release's single executable
# (rediacc-gpu-VERSION-linux-x86_64) as /usr/local/bin/rediacc-gpu, and setup then writes the units
# a package would have brought; with neither, the package comes from the configured apt
# repositories. --root DIR treats DIR as the distribution's / (for tests and images).
set -euo pipefail

root=/ deb="" file="" toolkit=auto

die() { echo "wsl-bootstrap: $*" >&2; exit 1; }
usage() { echo "usage: bootstrap.sh [--deb FILE | --file EXECUTABLE] [--install-nvidia-toolkit auto|true|false] [--root DIR]" >&2; exit 2; }

while (($#)); do
  case $1 in
    --deb) [[ $# -ge 2 ]] || usage; deb=$2; shift 2 ;;
    --file) [[ $# -ge 2 ]] || usage; file=$2; shift 2 ;;
    --install-nvidia-toolkit) [[ $# -ge 2 ]] || usage; toolkit=$2; shift 2 ;;
    --install-nvidia-toolkit=*) toolkit=${1#*=}; shift ;;
    --root) [[ $# -ge 2 ]] || usage; root=$2; shift 2 ;;
    -h | --help) usage ;;
    *) echo "wsl-bootstrap: unknown argument $1" >&2; usage ;;
  esac
done
case $toolkit in auto | true | false) ;; *) die "--install-nvidia-toolkit is '$toolkit'; use auto, true or false." ;; esac
[[ -z $deb || -z $file ]] || die "give --deb or --file, not both."
[[ $(id -u) == 0 ]] || die "run as root: sudo bash $0"
[[ -d $root ]] || die "--root $root is not a directory."
r=${root%/}

# Windows hands the GPU to WSL2 through /dev/dxg and mounts its driver's user-space libraries in
# /usr/lib/wsl/lib; without either, nothing in the distribution can reach the GPU.
[[ -c $r/dev/dxg ]] ||
  die "$r/dev/dxg is missing: this is not WSL2 with GPU support; install the Windows GPU driver, run 'wsl --update' in Windows, then restart the distribution."
if [[ ! -d $r/usr/lib/wsl/lib ]] || [[ -z $(ls -A "$r/usr/lib/wsl/lib") ]]; then
  die "$r/usr/lib/wsl/lib is missing or empty: the Windows GPU driver's libraries are not mounted; install the driver on Windows and run 'wsl --shutdown'."
fi
if [[ $root == / && ! -d /run/systemd/system ]]; then
  echo "wsl-bootstrap: warning: systemd does not run this distribution; the GPU works, but the units setup writes need it: add '[boot]' 'systemd=true' to /etc/wsl.conf and run 'wsl --shutdown'." >&2
fi

tool=rediacc-gpu
export DEBIAN_FRONTEND=noninteractive
if [[ -n $file ]]; then
  [[ -f $file ]] || die "--file $file is not a file."
  "$file" --version >/dev/null || die "--file $file does not run here: take the release's file for this CPU ($(uname -m))."
  # Under --root the file goes into that root, and runs from there.
  tool=$r/usr/local/bin/rediacc-gpu
  install -D -m 0755 "$file" "$tool"
elif [[ -n $deb ]]; then
  [[ -f $deb ]] || die "--deb $deb is not a file."
  # apt-get wants a path, not a bare name, to take a local file; it also brings the libraries.
  [[ $deb == */* ]] || deb=./$deb
  apt-get install -y -q "$deb"
else
  apt-get install -y -q rediacc-gpu
fi

"$tool" setup --root "$root" --install-nvidia-toolkit "$toolkit"
"$tool" list --root "$root"
