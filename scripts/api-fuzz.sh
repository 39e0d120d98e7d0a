#!/usr/bin/env bash
# Fuzzes the whole HTTP API with Schemathesis (PyPI) from its OpenAPI document: every check,
# for API_FUZZ_SECONDS (default 100). Any 5xx, any answer the document does not describe, any
# refused valid / accepted invalid request, or an operation no valid request reached (every
# one refused or 404) fails it (tests/api-fuzz/schemathesis.toml lists the few documented
# exceptions). Arguments go to `st run`, e.g. `--include-operation-id create_run` or
# `--report ndjson`.
set -euo pipefail
cd "$(dirname "$0")/.."
# Absolute: the path is used from other working directories too.
target="$(realpath -m "${CARGO_TARGET_DIR:-target}")"
venv="${ANTLER_FUZZ_VENV:-$target/api-fuzz-venv}"
source scripts/venv.sh
ensure_venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'schemathesis>=4.3,<5'
cargo build --quiet -p antler-cli --bin antler -p antler-mock-llm --bin antler-mock-llm
ANTLER_BIN="$target/debug/antler" MOCK_LLM_BIN="$target/debug/antler-mock-llm" \
  SCHEMATHESIS="$venv/bin/st" "$venv/bin/python" tests/api-fuzz/run.py "$@"
