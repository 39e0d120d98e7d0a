#!/usr/bin/env bash
# The LangGraph Python SDK compatibility test: a virtualenv with langgraph-sdk from PyPI,
# the debug binaries, and tests/sdk.
set -euo pipefail
cd "$(dirname "$0")/.."
# Absolute: the path is used from other working directories too.
target="$(realpath -m "${CARGO_TARGET_DIR:-target}")"
venv="${ANTLER_SDK_VENV:-$target/sdk-venv}"
source scripts/venv.sh
ensure_venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'langgraph-sdk>=0.4,<0.5'
cargo build --quiet -p antler-cli --bin antler -p antler-mock-llm --bin antler-mock-llm
ANTLER_BIN="$target/debug/antler" MOCK_LLM_BIN="$target/debug/antler-mock-llm" \
  "$venv/bin/python" -m unittest discover -s tests/sdk -v
