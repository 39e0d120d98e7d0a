#!/usr/bin/env bash
# End-to-end tests of the web UI: playwright-core drives the system Chromium against the real
# server (debug build), the Docker sandbox and antler-mock-llm. Screenshots of the chat, the
# files panel and the settings (light, dark, phone) go to $CARGO_TARGET_DIR/e2e-screenshots.
set -euo pipefail
cd "$(dirname "$0")/.."

chromium="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "e2e: installing Chromium with apt-get"
    source scripts/apt.sh
    apt_install chromium
  else
    echo "e2e: Chromium not found at $chromium. Install it (Debian/Ubuntu: sudo apt-get install chromium)" >&2
    echo "e2e: or point CHROMIUM at a Chromium or Chrome binary, then rerun scripts/e2e.sh." >&2
    exit 1
  fi
fi
if ! command -v npm >/dev/null; then
  echo "e2e: Node.js 20.19+ with npm is needed for the web UI tests." >&2
  exit 1
fi

# The sandbox image (starts Docker when needed; slim, as in `make test`), the binaries and the
# UI build.
export ANTLER_SANDBOX_IMAGE="${ANTLER_SANDBOX_IMAGE:-antler-sandbox:slim}"
scripts/sandbox-image.sh
cargo build --quiet -p antler-cli --bin antler -p antler-mock-llm --bin antler-mock-llm
ANTLER_REQUIRE_WEB=1 scripts/frontend.sh
(cd tests/e2e && { [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error; })

# The MCP test servers (npm, PyPI; pinned, cached outside the clone) for tools.test.mjs, which
# starts tests/mcp/many_tools.py with the Python they are installed for.
# (An assignment first, so that a failed install stops here.)
mcp_env="$(scripts/mcp-servers.sh)"
set -a
eval "$mcp_env"
set +a
export ANTLER_REQUIRE_MCP=1

# Screenshots go to $CARGO_TARGET_DIR/e2e-screenshots (or target/), resolved by the harness;
# those of versions.test.mjs (custom agents, Edit, Regenerate) to its versions/ folder, those of
# tools.test.mjs (MCP tool cards, Settings → Tools, plan mode) to its tools/ folder, those of
# memory.test.mjs (Settings → Memory, the Remembered chip) to its memory/ folder, those of
# research.test.mjs (web sources and citations) to its research/ folder, those of
# scheduled.test.mjs (the schedule dialog, the Scheduled page) to its scheduled/ folder, those of
# models.test.mjs (the model picker, reasoning, usage, the daily-limit banner) to its models/ folder,
# those of console.test.mjs (the admin runs console: list, run timeline) to its console/ folder,
# and those of the conversation features (suggestions, feedback, search and export, diagrams and
# math, the Chinese UI) to their own folders.
# One file at a time: each starts its own server and model.
export CHROMIUM="$chromium"
cd tests/e2e
node --test --test-concurrency=1 --test-reporter=spec suite.test.mjs versions.test.mjs tools.test.mjs memory.test.mjs deeper.test.mjs documents.test.mjs egress.test.mjs research.test.mjs scheduled.test.mjs models.test.mjs console.test.mjs \
  suggestions.test.mjs feedback.test.mjs search.test.mjs rendering.test.mjs i18n.test.mjs
