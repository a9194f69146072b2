#!/bin/sh
# Test setup: makes sure a PostgreSQL server's binaries exist (Debian's postgresql package),
# installing it with apt-get when missing, and prints the directory that holds initdb, pg_ctl and
# postgres. The PostgreSQL tests call this, then start a private cluster of their own
# (test/support/postgres.ts): the package's own cluster is never used.
set -eu
find_bin() {
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
  done
  return 1
}
if find_bin; then exit 0; fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-postgresql: PostgreSQL is missing and apt-get cannot run here; install Debian's postgresql package" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
apt-get install -y -q --no-install-recommends postgresql >&2
find_bin
