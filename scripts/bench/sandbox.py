"""Sandbox lifecycle: the docker CLI floors (`docker run --rm <image> true`, `docker exec <c>
true`) next to the provider's cold acquire, warm-pool acquire and exec round trip."""

import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

from common import TARGET, table

N = int(os.environ.get("BENCH_SANDBOX_ITERATIONS", "50"))
IMAGE = "antler-sandbox:latest"


def timed(cmd):
    started = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - started) * 1000


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, round((len(values) - 1) * p))]


def main():
    run_ms = [timed(["docker", "run", "--rm", IMAGE, "true"]) for _ in range(N)]
    cid = subprocess.run(["docker", "run", "-d", "--rm", IMAGE], check=True, capture_output=True,
                         text=True).stdout.strip()
    try:
        exec_ms = [timed(["docker", "exec", cid, "true"]) for _ in range(N)]
    finally:
        subprocess.run(["docker", "rm", "-f", cid], stdout=subprocess.DEVNULL)
    data = tempfile.mkdtemp(prefix="antler-bench-sandbox-")
    try:
        out = subprocess.run([str(TARGET / "release/examples/sandbox_bench"), data, str(N)],
                             check=True, capture_output=True, text=True).stdout
    finally:
        shutil.rmtree(data, ignore_errors=True)
    ours = {r["name"]: r for r in map(json.loads, out.splitlines())}
    floor_run = (statistics.median(run_ms), pct(run_ms, 0.99))
    floor_exec = (statistics.median(exec_ms), pct(exec_ms, 0.99))
    rows = [
        ["docker run --rm image true (CLI, floor)", f"{floor_run[0]:.1f}", f"{floor_run[1]:.1f}", ""],
        ["provider cold acquire (create + start)", f"{ours['cold_acquire']['p50']:.1f}",
         f"{ours['cold_acquire']['p99']:.1f}", f"{ours['cold_acquire']['p50'] / floor_run[0]:.2f}x"],
        ["provider warm-pool acquire", f"{ours['warm_acquire']['p50']:.1f}",
         f"{ours['warm_acquire']['p99']:.1f}", f"{ours['warm_acquire']['p50'] / floor_run[0]:.3f}x"],
        ["docker exec c true (CLI, floor)", f"{floor_exec[0]:.1f}", f"{floor_exec[1]:.1f}", ""],
        ["provider exec round trip (true)", f"{ours['exec_true']['p50']:.1f}",
         f"{ours['exec_true']['p99']:.1f}", f"{ours['exec_true']['p50'] / floor_exec[0]:.2f}x"],
    ]
    table(f"Sandbox lifecycle ({N} iterations each, ms)", ["what", "p50", "p99", "vs floor"], rows)
    print(f"\nwarm acquire p50 {ours['warm_acquire']['p50']:.1f} ms (target < 20 ms); exec round trip "
          f"{ours['exec_true']['p50'] / floor_exec[0]:.2f}x the CLI's docker exec (target <= 1.0x)")


if __name__ == "__main__":
    main()
