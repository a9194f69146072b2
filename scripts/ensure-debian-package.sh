#!/bin/sh
# Test setup: ensure-debian-package.sh <program> <package> makes sure <program> (a name on the PATH
# or an absolute path) exists, installing Debian's <package> with apt-get when it is missing.
# The tests call it before they need the program (systemd-analyze, chromium); CI runs as root on
# Debian. Nothing is started: the package only provides the program.
set -eu
program=$1
package=$2
command -v "$program" >/dev/null 2>&1 && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-debian-package: $program is missing and apt-get cannot run here; install Debian's $package package" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
apt-get install -y -q --no-install-recommends "$package" >&2
command -v "$program" >/dev/null
