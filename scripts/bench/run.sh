#!/usr/bin/env bash
# `make bench`: builds release binaries and runs every benchmark, printing Markdown tables.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 - <<'PY'
import sys; sys.path.insert(0, "scripts/bench")
from common import need
need("wrk")
need("unzip")
PY
cargo build --release -p antler-cli --bin antler
cargo build --release -p antler-gateway --example serve_dir
cargo build --release -p antler-sandbox --example sandbox_bench --example egress_bench
cargo build --release -p antler-mock-llm --bin antler-mock-llm
cargo build --release -p antler-store --example cron_claim_bench
cargo build --release -p antler-agent-runtime --example runs_bench --example joins_bench --example web_bench
scripts/sandbox-image.sh all >/dev/null
export BENCH_SECONDS="${BENCH_SECONDS:-10}"
echo "# Antler benchmarks ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs)"
python3 scripts/bench/skills_api.py
python3 scripts/bench/catalog_scale.py
python3 scripts/bench/files.py
python3 scripts/bench/sandbox.py
python3 scripts/bench/full_scripts.py
python3 scripts/bench/egress.py
python3 scripts/bench/web.py
python3 scripts/bench/runs.py
python3 scripts/bench/throughput.py
python3 scripts/bench/telemetry.py
python3 scripts/bench/joins.py
python3 scripts/bench/replicas.py
python3 scripts/bench/memory.py
python3 scripts/bench/crons.py
python3 scripts/bench/store.py
python3 scripts/bench/prompt_cache.py
BENCH_PROMPT_CACHE_PROVIDER=anthropic python3 scripts/bench/prompt_cache.py
