#!/usr/bin/env bash
# Makes sure a PostgreSQL server answers for the tests and prints its URL. Uses
# ANTLER_TEST_POSTGRES_URL when it is reachable; otherwise, as root on Debian, installs the
# `postgresql` package when missing and starts a local cluster. Source it to export the URL.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/apt.sh"

pg_ready() { psql "$1" -Atqc 'select 1' >/dev/null 2>&1; }

ensure_postgres() {
  if [ -n "${ANTLER_TEST_POSTGRES_URL:-}" ] && pg_ready "$ANTLER_TEST_POSTGRES_URL"; then
    return 0
  fi
  local url="postgres://postgres:antler@127.0.0.1:5432/postgres"
  if pg_ready "$url"; then
    export ANTLER_TEST_POSTGRES_URL="$url"
    return 0
  fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "postgres: no server answers; set ANTLER_TEST_POSTGRES_URL (run as root on Debian to have one installed and started)" >&2
    return 1
  fi
  if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
    echo "postgres: installing the postgresql package ..."
    apt_install postgresql
  fi
  local version
  version=$(ls /usr/lib/postgresql | sort -V | tail -1)
  if [ ! -d "/etc/postgresql/$version/main" ]; then
    pg_createcluster "$version" main >/dev/null
  fi
  echo "postgres: starting cluster $version/main ..."
  pg_ctlcluster "$version" main start || true
  for _ in $(seq 1 30); do
    if su postgres -c "psql -Atqc 'select 1'" >/dev/null 2>&1; then break; fi
    sleep 1
  done
  su postgres -c "psql -qc \"ALTER USER postgres PASSWORD 'antler'\"" >/dev/null
  if ! pg_ready "$url"; then
    echo "postgres: the server started but $url does not answer" >&2
    return 1
  fi
  export ANTLER_TEST_POSTGRES_URL="$url"
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
  ensure_postgres
  echo "$ANTLER_TEST_POSTGRES_URL"
fi
