"""Sandbox lifecycle: the docker CLI floors (`docker run --rm <image> true`, `docker exec <c>
true`) next to the provider's cold acquire, warm-pool acquire and exec round trip, on slim;
then the same provider figures and a warm sandbox's first Python command on full against
slim (the floor), when full is built."""

import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

from common import TARGET, table

N = int(os.environ.get("BENCH_SANDBOX_ITERATIONS", "50"))
IMAGE = "antler-sandbox:slim"
FULL = "antler-sandbox:full"


def timed(cmd):
    started = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - started) * 1000


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, round((len(values) - 1) * p))]


def provider_figures(image):
    data = tempfile.mkdtemp(prefix="antler-bench-sandbox-")
    try:
        out = subprocess.run([str(TARGET / "release/examples/sandbox_bench"), data, str(N), image],
                             check=True, capture_output=True, text=True).stdout
    finally:
        shutil.rmtree(data, ignore_errors=True)
    return {r["name"]: r for r in map(json.loads, out.splitlines())}


def full_against_slim(slim):
    if subprocess.run(["docker", "image", "inspect", FULL], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        print(f"\n(skipped: {FULL} is not built; `make sandbox-image` builds it)")
        return
    full = provider_figures(FULL)
    rows = []
    for key, what in [("cold_acquire", "cold acquire (create + start)"),
                      ("warm_acquire", "warm-pool acquire"),
                      ("warm_first_python", "warm acquire + first python3 command"),
                      ("exec_true", "exec round trip (true)")]:
        rows.append([what, f"{slim[key]['p50']:.1f}", f"{full[key]['p50']:.1f}",
                     f"{full[key]['p99']:.1f}", f"{full[key]['p50'] / slim[key]['p50']:.2f}x"])
    table(f"The full image against slim ({N} iterations each, ms)",
          ["what", "slim p50 (floor)", "full p50", "full p99", "full / slim"], rows)


def main():
    run_ms = [timed(["docker", "run", "--rm", IMAGE, "true"]) for _ in range(N)]
    cid = subprocess.run(["docker", "run", "-d", "--rm", IMAGE], check=True, capture_output=True,
                         text=True).stdout.strip()
    try:
        exec_ms = [timed(["docker", "exec", cid, "true"]) for _ in range(N)]
    finally:
        subprocess.run(["docker", "rm", "-f", cid], stdout=subprocess.DEVNULL)
    ours = provider_figures(IMAGE)
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
    full_against_slim(ours)


if __name__ == "__main__":
    main()
