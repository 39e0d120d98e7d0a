"""Serving a 1 MiB artifact (vs tower-http ServeDir, same file, same run) and installing a
10 MiB .skill with 200 files (vs `unzip` of the same archive)."""

import io
import json
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
import urllib.request
import zipfile
from pathlib import Path

from common import TARGET, Server, pin, table, wrk

SECONDS = int(os.environ.get("BENCH_SECONDS", "10"))


def post_json(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req) as r:
        return json.load(r)


def make_skill_archive(path: Path):
    rng = random.Random(7)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("bench-skill/SKILL.md",
                   "---\nname: bench-skill\ndescription: Benchmark skill with 200 files.\n---\n# B\n")
        for i in range(199):
            # Incompressible, so the archive itself is ~10 MiB.
            data = rng.randbytes(52 * 1024)
            z.writestr(f"bench-skill/assets/file-{i:03d}.bin", data)


def main():
    work = Path(tempfile.mkdtemp(prefix="antler-bench-files-"))
    skills = work / "skills"
    (skills / "public").mkdir(parents=True)
    (skills / "custom").mkdir()
    server = Server(skills)
    floor = None
    try:
        post_json(server.base + "/api/threads", {"thread_id": "bench"})
        outputs = Path(server.data) / "users/local/threads/bench/user-data/outputs"
        (outputs / "one-mib.bin").write_bytes(random.Random(1).randbytes(1024 * 1024))
        floor = subprocess.Popen(pin(0) + [str(TARGET / "release/examples/serve_dir"), str(outputs)],
                                 stdout=subprocess.PIPE, text=True)
        floor_base = floor.stdout.readline().strip().removeprefix("listening on ")
        ours_url = server.base + "/api/threads/bench/artifacts/mnt/user-data/outputs/one-mib.bin"
        wrk(ours_url, 16, 2)
        wrk(floor_base + "/one-mib.bin", 16, 2)
        ours = wrk(ours_url, 16, SECONDS)
        theirs = wrk(floor_base + "/one-mib.bin", 16, SECONDS)
        table(f"1 MiB artifact, 16 connections, {SECONDS}s each",
              ["server", "req/s", "p50 ms", "p99 ms", "MB/s"],
              [["tower-http ServeDir (floor)", f"{theirs[0]:,.0f}", f"{theirs[1]:.2f}", f"{theirs[2]:.2f}", f"{theirs[3]:,.0f}"],
               ["GET /api/threads/{id}/artifacts/…", f"{ours[0]:,.0f}", f"{ours[1]:.2f}", f"{ours[2]:.2f}", f"{ours[3]:,.0f}"]])
        print(f"\nartifact / ServeDir throughput: {ours[0] / theirs[0]:.2f}x (target >= 0.8x); "
              f"vs DeerFlow's ~150 req/s: {ours[0] / 150:.0f}x")

        archive = outputs / "bench-skill.skill"
        make_skill_archive(archive)
        size_mib = archive.stat().st_size / 2**20
        runs = 15
        install_ms = []
        for i in range(runs):
            started = time.perf_counter()
            post_json(server.base + "/api/skills/install",
                      {"thread_id": "bench", "path": "/mnt/user-data/outputs/bench-skill.skill",
                       "overwrite": True})
            install_ms.append((time.perf_counter() - started) * 1000)
        unzip_ms = []
        for i in range(runs):
            dest = work / f"unzip-{i}"
            started = time.perf_counter()
            subprocess.run(["unzip", "-q", "-o", str(archive), "-d", str(dest)], check=True)
            unzip_ms.append((time.perf_counter() - started) * 1000)
            shutil.rmtree(dest)
        small = work / "small.skill"
        with zipfile.ZipFile(small, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("tiny/SKILL.md", "---\nname: tiny\ndescription: Small skill.\n---\n# T\n")
            z.writestr("tiny/scripts/run.py", "print('hi')\n")
        shutil.copy(small, outputs / "tiny.skill")
        small_ms = []
        for i in range(runs):
            started = time.perf_counter()
            post_json(server.base + "/api/skills/install",
                      {"thread_id": "bench", "path": "/mnt/user-data/outputs/tiny.skill", "overwrite": True})
            small_ms.append((time.perf_counter() - started) * 1000)
        med = statistics.median
        table(f"Install a .skill ({runs} runs each, median)", ["what", "ms"],
              [[f"unzip -q of the {size_mib:.1f} MiB / 200-file archive (floor, includes process start)", f"{med(unzip_ms):.1f}"],
               [f"POST /api/skills/install, same archive (inspect, extract, swap, rescan)", f"{med(install_ms):.1f}"],
               ["POST /api/skills/install, 2-file archive", f"{med(small_ms):.1f}"]])
        print(f"\ninstall / unzip: {med(install_ms) / med(unzip_ms):.2f}x; small install "
              f"{med(small_ms):.1f} ms (DeerFlow 55-64 ms; target < 5 ms)")
    finally:
        if floor:
            floor.kill()
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
