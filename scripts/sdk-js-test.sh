#!/usr/bin/env bash
# The LangGraph JavaScript SDK compatibility test: @langchain/langgraph-sdk from npm (pinned in
# tests/sdk-js/package-lock.json, unmodified), the debug binaries, and tests/sdk-js.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v npm >/dev/null; then
  echo "sdk-js: Node.js 20+ with npm is needed for the JavaScript SDK test (https://nodejs.org)" >&2
  exit 1
fi
# Absolute: the path is used from another working directory.
target="$(realpath -m "${CARGO_TARGET_DIR:-target}")"
cargo build --quiet -p antler-cli --bin antler -p antler-mock-llm --bin antler-mock-llm
cd tests/sdk-js
[ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error
# No key of the developer's reaches the SDK (it reads LANGGRAPH_API_KEY and friends itself).
env -u LANGGRAPH_API_KEY -u LANGSMITH_API_KEY -u LANGCHAIN_API_KEY \
  ANTLER_BIN="$target/debug/antler" MOCK_LLM_BIN="$target/debug/antler-mock-llm" npm test --silent
