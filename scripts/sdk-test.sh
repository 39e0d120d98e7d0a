#!/usr/bin/env bash
# The LangGraph Python SDK compatibility test: a virtualenv with langgraph-sdk from PyPI,
# the debug binaries, and tests/sdk.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
venv="${ANTLER_SDK_VENV:-$target/sdk-venv}"
# A venv whose pip works (a failed creation leaves a python without pip behind).
if ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
  rm -rf "$venv"
  if ! python3 -c 'import ensurepip' 2>/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "sdk-test: installing python3-venv"
      source scripts/apt.sh
      apt_install python3-venv
    else
      echo "sdk-test: Python's venv module is missing (Debian/Ubuntu: sudo apt-get install python3-venv)" >&2
      exit 1
    fi
  fi
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'langgraph-sdk>=0.4,<0.5'
cargo build --quiet -p antler-cli --bin antler -p antler-mock-llm --bin antler-mock-llm
ANTLER_BIN="$target/debug/antler" MOCK_LLM_BIN="$target/debug/antler-mock-llm" \
  "$venv/bin/python" -m unittest discover -s tests/sdk -v
