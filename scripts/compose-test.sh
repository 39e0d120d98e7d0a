#!/usr/bin/env bash
# `make compose-test`: brings the docker-compose stack up with local stand-ins for the images
# this machine cannot pull (docker-compose.test.yml), waits for /health, runs a scripted chat
# through it with the Docker sandbox, and tears everything down.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
source scripts/docker-env.sh
ensure_docker
ensure_debian_base

if docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then
  compose=(docker-compose)
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "compose-test: installing docker-compose ..."
  apt_install docker-compose
  compose=(docker-compose)
else
  echo "compose-test: neither 'docker compose' nor 'docker-compose' is available" >&2
  exit 1
fi

# Inputs built on the host: the server binaries and the web UI.
# Absolute: the path is used from other working directories too.
target="$(realpath -m "${CARGO_TARGET_DIR:-target}")"
cargo build --release -p antler-cli --bin antler -p antler-mock-llm --bin antler-mock-llm
rm -rf docker/prebuilt && mkdir -p docker/prebuilt/web
cp "$target/release/antler" "$target/release/antler-mock-llm" docker/prebuilt/
scripts/frontend.sh
if [ ! -f frontend/dist/index.html ]; then
  echo "compose-test: the web UI could not be built (Node.js 20.19+ with npm is needed)" >&2
  exit 1
fi
cp -r frontend/dist/. docker/prebuilt/web/

project="antler-compose-test"
data=$(mktemp -d /tmp/antler-compose-data.XXXXXX)
chown 10001:10001 "$data" 2>/dev/null || chmod 0777 "$data"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export ANTLER_DATA="$data" ANTLER_PORT="$port" DOCKER_GID="$(stat -c %g /var/run/docker.sock)"
# The slim sandbox: full's build needs PyPI and npm and takes minutes (`make sandbox-image`
# checks it); the stack's wiring is the same.
export SANDBOX_TARGET=slim
# The admin, from the environment as the compose file documents.
export ANTLER_ADMIN_EMAIL="compose-admin@antler.test" ANTLER_ADMIN_PASSWORD="compose-password-$RANDOM$RANDOM"
files=(-f docker-compose.yml -f docker-compose.test.yml -p "$project")

# Each build leaves the replaced image and its build stages dangling (about 1.2 GB a run);
# remove exactly those at the end, so repeated runs do not fill the disk.
dangling_before=$(docker images -q --filter dangling=true | sort -u)

cleanup() {
  "${compose[@]}" "${files[@]}" logs --no-color antler > /tmp/antler-compose-test.log 2>&1 || true
  "${compose[@]}" "${files[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
  docker ps -aq --filter label=antler.instance=compose-test | xargs -r docker rm -f >/dev/null 2>&1 || true
  rm -rf "$data" docker/prebuilt
  comm -13 <(echo "$dangling_before") <(docker images -q --filter dangling=true | sort -u) \
    | xargs -r docker rmi >/dev/null 2>&1 || true
}
trap cleanup EXIT

echo "compose-test: building and starting the stack on port $port ..."
"${compose[@]}" "${files[@]}" up -d --build

base="http://127.0.0.1:$port"
for _ in $(seq 1 120); do
  if curl -fsS "$base/health" >/dev/null 2>&1; then break; fi
  sleep 1
done
curl -fsS "$base/health" | python3 -c 'import json,sys; h=json.load(sys.stdin); assert h["status"]=="ok" and h["sandbox"]=="docker" and h["sandbox_image"]["variant"]=="slim", h; print("compose-test: healthy,", h)'

echo "compose-test: a scripted chat through the stack ..."
python3 tests/compose/chat.py "$base"

# The image's own HEALTHCHECK passes, the server is not root, and PostgreSQL holds the run.
cid=$("${compose[@]}" "${files[@]}" ps -q antler)
health=unknown
for _ in $(seq 1 60); do
  health=$(docker inspect -f '{{.State.Health.Status}}' "$cid")
  [ "$health" = healthy ] && break
  sleep 1
done
[ "$health" = healthy ] || { echo "compose-test: the container's HEALTHCHECK reports '$health'" >&2; exit 1; }
uid=$(docker exec "$cid" stat -c %u /proc/1)
[ "$uid" = 10001 ] || { echo "compose-test: the server runs as uid $uid, not 10001" >&2; exit 1; }
stored=$("${compose[@]}" "${files[@]}" exec -T postgres \
  psql -U antler -d antler -tAc "SELECT count(*) FROM runs WHERE status = 'success'" | tr -d '[:space:]')
[ "${stored:-0}" -ge 1 ] || { echo "compose-test: PostgreSQL holds no finished run ($stored)" >&2; exit 1; }
echo "compose-test: container healthy, server uid $uid, $stored run(s) stored in PostgreSQL"
echo "compose-test: passed in $(( $(date +%s) - started ))s"
