#!/usr/bin/env bash
# Makes sure a Docker engine answers. On Debian as root it installs docker.io and starts
# dockerd when needed; anywhere else it explains what to do. Source it or run it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/apt.sh"

docker_ready() { docker info >/dev/null 2>&1; }

ensure_docker() {
  if docker_ready; then return 0; fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "docker: no Docker engine answers. Install Docker and start it (or run as root on Debian," >&2
    echo "        where this script installs docker.io and starts dockerd itself)." >&2
    return 1
  fi
  if ! command -v dockerd >/dev/null 2>&1; then
    echo "docker: installing docker.io ..."
    apt_install docker.io
  fi
  echo "docker: starting dockerd ..."
  mkdir -p /var/log
  nohup dockerd >/var/log/antler-dockerd.log 2>&1 &
  for _ in $(seq 1 60); do
    if docker_ready; then return 0; fi
    sleep 1
  done
  echo "docker: dockerd did not come up; see /var/log/antler-dockerd.log" >&2
  tail -20 /var/log/antler-dockerd.log >&2 || true
  return 1
}

# debian:bookworm-slim, pulled when possible, else bootstrapped locally (no registry here).
ensure_debian_base() {
  local image="${BASE_IMAGE:-debian:bookworm-slim}"
  if docker image inspect "$image" >/dev/null 2>&1; then return 0; fi
  if timeout 60 docker pull -q "$image" >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" != 0 ]; then
    echo "docker: $image is missing and cannot be pulled; run as root to bootstrap it" >&2
    return 1
  fi
  echo "docker: $image cannot be pulled; bootstrapping it with debootstrap (about a minute) ..."
  command -v debootstrap >/dev/null 2>&1 || apt_install debootstrap
  local root
  root=$(mktemp -d /tmp/antler-debootstrap.XXXXXX)
  debootstrap --variant=minbase bookworm "$root" >/tmp/antler-debootstrap.log 2>&1 \
    || { tail -20 /tmp/antler-debootstrap.log >&2; return 1; }
  # Slim it like the official image: no apt lists, docs or caches.
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/usr/share/doc/* "$root"/usr/share/man/*
  tar -C "$root" -c . | docker import - "$image" >/dev/null
  rm -rf "$root"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  ensure_docker
  ensure_debian_base
fi
