#!/bin/sh
# Test setup: makes sure `systemd-analyze` exists (Debian's systemd package). The server tests call
# this before verifying generated units. Nothing is started: the package only provides the verifier.
exec /bin/sh "$(dirname "$0")/ensure-debian-package.sh" systemd-analyze systemd
