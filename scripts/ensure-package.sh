#!/bin/sh
# Test setup: makes sure a command exists, installing the Debian package that provides it with
# apt-get when it is missing. Usage: ensure-package.sh <command> <package>. Tests call it before
# using a real outside part (systemd-analyze, ip, chromium, PostgreSQL); CI runs as root on Debian.
# Nothing is started: the package only provides the command.
set -eu
command="$1"
package="$2"
command -v "$command" >/dev/null 2>&1 && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-package: $command is missing and apt-get cannot run here; install Debian's $package package" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
apt-get install -y -q --no-install-recommends "$package" >&2
command -v "$command" >/dev/null
