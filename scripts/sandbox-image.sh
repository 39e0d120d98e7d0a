#!/usr/bin/env bash
# Builds the sandbox images from docker/sandbox/Dockerfile, offline when it has to (see
# scripts/docker-env.sh; `full` also needs the Debian, PyPI and npm registries).
#   scripts/sandbox-image.sh [slim|full|all]   (default slim, what the tests use)
# slim is tagged antler-sandbox:slim and antler-sandbox:latest, full antler-sandbox:full (the
# server's default image). An ANTLER_SANDBOX_IMAGE of another name becomes a tag of slim.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/docker-env.sh
which="${1:-slim}"
case "$which" in
  slim | full | all) ;;
  *) echo "usage: $0 [slim|full|all]" >&2; exit 2 ;;
esac
ensure_docker
ensure_debian_base
# A target is rebuilt only when what it is built from changed since.
digest=$(cat docker/sandbox/Dockerfile docker/sandbox/full-manifest.json docker/sandbox/packages.py \
  | sha256sum | cut -c1-16)

# The build context: docker/sandbox, plus this machine's CA bundle as build-ca.crt, which
# pip and npm use in the full image's registry stage (a TLS-inspecting proxy's CA reaches the
# build that way; the image itself keeps Debian's).
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
cp docker/sandbox/Dockerfile docker/sandbox/full-manifest.json docker/sandbox/packages.py "$context/"
ca="${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}"
if [ -s "$ca" ]; then
  cp "$ca" "$context/build-ca.crt"
fi

build() {
  local target="$1"; shift
  local tag="antler-sandbox:$target"
  if [ "$(docker image inspect -f '{{ index .Config.Labels "antler.dockerfile" }}' "$tag" 2>/dev/null)" = "$digest" ]; then
    echo "sandbox image $tag is up to date"
  else
    echo "building sandbox image $tag ..."
    docker build --target "$target" --label "antler.dockerfile=$digest" -t "$tag" "$context"
  fi
  for extra in "$@"; do
    docker tag "$tag" "$extra"
  done
}

if [ "$which" != full ]; then
  # antler-sandbox:latest (the default of servers before full existed) stays slim; an
  # ANTLER_SANDBOX_IMAGE of another name is tagged too, so that servers of this shell find it.
  extra=(antler-sandbox:latest)
  case "${ANTLER_SANDBOX_IMAGE:-}" in
    "" | antler-sandbox:slim | antler-sandbox:full | antler-sandbox:latest) ;;
    *) extra+=("$ANTLER_SANDBOX_IMAGE") ;;
  esac
  build slim "${extra[@]}"
fi
if [ "$which" != slim ]; then
  build full
fi
