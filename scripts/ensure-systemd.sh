#!/bin/sh
# Test setup: makes sure `systemd-analyze` exists (Debian's systemd package), installing it with
# apt-get when missing. The server tests call this before verifying generated units; CI runs as
# root on Debian. Nothing is started: the package only provides the verifier.
set -eu
command -v systemd-analyze >/dev/null 2>&1 && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-systemd: systemd-analyze is missing and apt-get cannot run here; install Debian's systemd package" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
apt-get install -y -q --no-install-recommends systemd >&2
command -v systemd-analyze >/dev/null
