#!/usr/bin/env bash
# `make demo`: try the whole flow without an API key. Builds the binaries and the web UI,
# starts the scripted model (demo/mock.yaml) and the server with the Docker sandbox, data in
# ./data-demo (DEMO_DATA_DIR), on http://127.0.0.1:8000 (DEMO_BIND). Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/.."
# Absolute: the path is used from other working directories too.
target="$(realpath -m "${CARGO_TARGET_DIR:-target}")"
bind="${DEMO_BIND:-127.0.0.1:8000}"
data="${DEMO_DATA_DIR:-$PWD/data-demo}"

cargo build -p antler-cli --bin antler -p antler-mock-llm --bin antler-mock-llm
scripts/frontend.sh
sandbox=docker
# slim: quick to build, and enough for the demo's scripted chat.
export ANTLER_SANDBOX_IMAGE="${ANTLER_SANDBOX_IMAGE:-antler-sandbox:slim}"
if ! scripts/sandbox-image.sh; then
  echo "demo: no Docker sandbox; commands in the demo will be refused (file tools still work)." >&2
  sandbox=auto
fi

# Skills: the built-in ones (refreshed each start) plus whatever the demo installs.
mkdir -p "$data/skills/custom"
rm -rf "$data/skills/public"
cp -R skills/public "$data/skills/public"

pids=()
cleanup() {
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  echo "demo: stopped (data kept in $data)"
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

# The first stdout line of each process is `listening on http://…`.
first_line() {
  local file="$1" line=""
  for _ in $(seq 1 300); do
    line="$(head -n 1 "$file" 2>/dev/null || true)"
    if [ -n "$line" ]; then
      echo "${line#listening on }"
      return 0
    fi
    sleep 0.1
  done
  return 1
}

mock_out="$(mktemp)"
"$target/debug/antler-mock-llm" --script demo/mock.yaml --bind 127.0.0.1:0 >"$mock_out" &
pids+=($!)
mock_url="$(first_line "$mock_out")" || { echo "demo: the scripted model did not start" >&2; exit 1; }

# A demo account (an admin), made on first start; the data dir keeps it between demos.
demo_email="demo@antler.local"
demo_password="antler-demo"
server_out="$(mktemp)"
ANTLER_DATA_DIR="$data" \
  ANTLER_SKILLS_DIR="$data/skills" \
  ANTLER_WEB_DIR="$PWD/frontend/dist" \
  ANTLER_SANDBOX_PROVIDER="$sandbox" \
  ANTLER_SANDBOX_INSTANCE_ID="demo-$$" \
  ANTLER_MODELS="[{name: demo, base_url: \"$mock_url/v1\", model: antler-demo, api_key_env: null, demo: true}]" \
  ANTLER_ADMIN_EMAIL="$demo_email" \
  ANTLER_ADMIN_PASSWORD="$demo_password" \
  "$target/debug/antler" serve --bind "$bind" >"$server_out" &
pids+=($!)
url="$(first_line "$server_out")" || { echo "demo: the server did not start (is $bind in use? set DEMO_BIND)" >&2; exit 1; }
rm -f "$mock_out" "$server_out"

cat <<MSG

  Antler demo: $url
  Sign in as $demo_email with the password $demo_password (a demo account made for you).
  A scripted model answers (no API key needed); the tools really run in the sandbox.
  Try "Create a skill that turns meeting notes into a list of action items".
  Press Ctrl-C to stop.

MSG
wait -n "${pids[@]}"
