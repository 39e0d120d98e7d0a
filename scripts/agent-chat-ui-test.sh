#!/usr/bin/env bash
# LangChain's Agent Chat UI (unmodified third-party LangGraph client) in Chromium against the
# server, directly and through its Next.js passthrough: builds the UI once into a cache
# (scripts/agent-chat-ui.sh), then runs tests/agent-chat-ui. Needs the debug binaries (or
# E2E_ANTLER_BIN / E2E_ANTLER_MOCK_LLM_BIN), Node.js with npm and Chromium; no Docker (the
# local sandbox). Skips, exiting 0, when the UI's source is not there.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v npm >/dev/null; then
  echo "agent-chat-ui: Node.js 20+ with npm is needed (https://nodejs.org)" >&2
  exit 1
fi
chromium="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "agent-chat-ui: installing Chromium with apt-get"
    source scripts/apt.sh
    apt_install chromium
  else
    echo "agent-chat-ui: Chromium not found at $chromium (install it, or set CHROMIUM)" >&2
    exit 1
  fi
fi

# The build directory is the last stdout line; nothing there means the source is missing
# (the build script printed the `skip:` line).
ui_dir="$(scripts/agent-chat-ui.sh | tail -n 1)"
[ -n "$ui_dir" ] || exit 0

# The debug binaries, unless both are given (a no-op when they are up to date).
if [ -z "${E2E_ANTLER_BIN:-}" ] || [ -z "${E2E_ANTLER_MOCK_LLM_BIN:-}" ]; then
  cargo build --quiet -p antler-cli --bin antler -p antler-mock-llm --bin antler-mock-llm
fi

(cd tests/agent-chat-ui && { [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error; })

export CHROMIUM="$chromium" AGENT_CHAT_UI_DIR="$ui_dir"
cd tests/agent-chat-ui
node --test --test-concurrency=1 --test-reporter=spec chat-ui.test.mjs
