"""The egress proxy against a direct connection (the floor): an `open` sandbox fetches from a
server on the host over Docker's bridge, an `allowlist` one through its relay and the server's
proxy. Throughput of one large download (MB/s) and latency of small requests on fresh
connections (ms), medians of BENCH_EGRESS_RUNS runs."""

import json
import os
import shutil
import statistics
import subprocess
import tempfile

from common import TARGET, table

RUNS = int(os.environ.get("BENCH_EGRESS_RUNS", "5"))
MB = os.environ.get("BENCH_EGRESS_MB", "500")
REQUESTS = os.environ.get("BENCH_EGRESS_REQUESTS", "200")
IMAGE = "antler-sandbox:slim"


def once():
    data = tempfile.mkdtemp(prefix="antler-bench-egress-")
    try:
        out = subprocess.run([str(TARGET / "release/examples/egress_bench"), data, MB, REQUESTS, IMAGE],
                             check=True, capture_output=True, text=True).stdout
    finally:
        shutil.rmtree(data, ignore_errors=True)
    return {r["name"]: r["result"] for r in map(json.loads, out.splitlines())}


def main():
    runs = [once() for _ in range(RUNS)]
    med = lambda name, key: statistics.median(r[name][key] for r in runs)
    direct, proxy = med("direct", "mb_s"), med("proxy", "mb_s")
    rows = [
        ["throughput, one download (MB/s)", f"{direct:.0f}", f"{proxy:.0f}", f"{proxy / direct:.2f}x"],
        ["request on a fresh connection, p50 (ms)", f"{med('direct', 'p50'):.2f}", f"{med('proxy', 'p50'):.2f}",
         f"+{med('proxy', 'p50') - med('direct', 'p50'):.2f} ms"],
        ["request on a fresh connection, p99 (ms)", f"{med('direct', 'p99'):.2f}", f"{med('proxy', 'p99'):.2f}",
         f"+{med('proxy', 'p99') - med('direct', 'p99'):.2f} ms"],
    ]
    table(f"Egress proxy against a direct connection ({MB} MB download, {REQUESTS} requests; "
          f"medians of {RUNS} runs)", ["what", "direct (floor)", "through the proxy", "proxy vs direct"], rows)


if __name__ == "__main__":
    main()
