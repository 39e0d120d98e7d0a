#!/usr/bin/env bash
# `make sandbox-image`: builds antler-sandbox:latest from docker/sandbox/Dockerfile, offline
# when it has to (see scripts/docker-env.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/docker-env.sh
ensure_docker
ensure_debian_base
image="${ANTLER_SANDBOX_IMAGE:-antler-sandbox:latest}"
# Rebuild only when the Dockerfile changed since the image was built.
digest=$(sha256sum docker/sandbox/Dockerfile | cut -c1-16)
if [ "$(docker image inspect -f '{{ index .Config.Labels "antler.dockerfile" }}' "$image" 2>/dev/null)" = "$digest" ]; then
  echo "sandbox image $image is up to date"
  exit 0
fi
docker build --label "antler.dockerfile=$digest" -t "$image" docker/sandbox
