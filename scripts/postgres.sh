#!/usr/bin/env bash
# A PostgreSQL server for the tests, never a developer's own: ANTLER_TEST_POSTGRES_URL when it
# is set and answers; otherwise a private instance with its own data directory
# (ANTLER_PG_DIR, default /tmp/antler-pg-test-<uid>) and port (ANTLER_PG_PORT, default 25432:
# below Linux's range for the local ports of outgoing connections, 32768-60999, where the
# earlier default once found its port held by one), trust authentication on 127.0.0.1 only,
# started here with the installed PostgreSQL binaries (as root on Debian, the `postgresql`
# package is installed when missing; the server then runs as the `postgres` user, since
# initdb refuses root).
#
# Source it for ensure_postgres / stop_postgres / drop_test_databases, or run it: without an
# argument it prints the URL (leaving the instance running), with `stop` it stops it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/apt.sh"

pg_ready() { psql "$1" -Atqc 'select 1' >/dev/null 2>&1; }

pg_dir="${ANTLER_PG_DIR:-/tmp/antler-pg-test-$(id -u)}"
pg_port="${ANTLER_PG_PORT:-25432}"
pg_url="postgres://antler@127.0.0.1:${pg_port}/postgres"

# Runs a PostgreSQL binary as the user owning the private instance.
pg_as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

pg_bin() {
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1
}

ensure_postgres() {
  if [ -n "${ANTLER_TEST_POSTGRES_URL:-}" ] && pg_ready "$ANTLER_TEST_POSTGRES_URL"; then
    return 0
  fi
  if pg_ready "$pg_url"; then
    export ANTLER_TEST_POSTGRES_URL="$pg_url"
    return 0
  fi
  if [ -z "$(pg_bin)" ] || ! command -v psql >/dev/null 2>&1; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
      echo "postgres: no server binaries; install PostgreSQL or set ANTLER_TEST_POSTGRES_URL" >&2
      return 1
    fi
    echo "postgres: installing the postgresql package ..."
    apt_install postgresql
  fi
  local bin
  bin=$(pg_bin)
  if [ ! -f "$pg_dir/PG_VERSION" ]; then
    echo "postgres: creating a private test instance in $pg_dir (port $pg_port) ..."
    rm -rf "$pg_dir"
    mkdir -p "$pg_dir"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$pg_dir"
    pg_as_owner "$bin/initdb" -D "$pg_dir" -U antler --auth=trust --encoding=UTF8 \
      >"$pg_dir.init.log" 2>&1 || { tail -20 "$pg_dir.init.log" >&2; return 1; }
  fi
  echo "postgres: starting the private test instance (port $pg_port) ..."
  pg_as_owner "$bin/pg_ctl" -D "$pg_dir" -l "$pg_dir/server.log" -w start \
    -o "-p $pg_port -c listen_addresses=127.0.0.1 -k $pg_dir -c max_connections=300 -c fsync=off" \
    >/dev/null || { tail -20 "$pg_dir/server.log" >&2; return 1; }
  export ANTLER_PG_STARTED_HERE=1
  export ANTLER_TEST_POSTGRES_URL="$pg_url"
}

# Stops the private instance when this shell started it (a developer's server, or one a
# previous run left running, is left alone).
stop_postgres() {
  if [ "${ANTLER_PG_STARTED_HERE:-}" = 1 ] && [ -f "$pg_dir/PG_VERSION" ]; then
    pg_as_owner "$(pg_bin)/pg_ctl" -D "$pg_dir" -m fast stop >/dev/null 2>&1 || true
    unset ANTLER_PG_STARTED_HERE
  fi
}

# Drops the databases earlier test runs created (each test makes its own, named antler_it_*
# or antler_test_*), so they do not pile up on the server.
drop_test_databases() {
  local names
  names=$(psql "$ANTLER_TEST_POSTGRES_URL" -Atqc \
    "SELECT datname FROM pg_database WHERE datname LIKE 'antler\_it\_%' OR datname LIKE 'antler\_test\_%'")
  for name in $names; do
    psql "$ANTLER_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS \"$name\" WITH (FORCE)" >/dev/null || true
  done
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  if [ "${1:-}" = stop ]; then
    ANTLER_PG_STARTED_HERE=1 stop_postgres
  else
    ensure_postgres
    echo "$ANTLER_TEST_POSTGRES_URL"
  fi
fi
