"""GET /api/skills with 1,000 generated skills vs GET /health (the framework floor), plus
idle RSS and cold start. Server pinned to CPU 0, wrk to CPU 1."""

import os
import random
import shutil
import tempfile
import time
import urllib.request
from pathlib import Path

from common import Server, table, wrk

# Varied text so compression is realistic (generated descriptions that repeat would
# compress far better than real ones and flatter the gzip numbers).
RNG = random.Random(20261122)
WORDS = ["".join(RNG.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(RNG.randint(2, 10)))
         for _ in range(5000)]


def generate(root: Path, count: int):
    for i in range(count):
        name = f"generated-skill-{i:04d}"
        d = root / "public" / name
        (d / "scripts").mkdir(parents=True)
        words = " ".join(RNG.choice(WORDS) for _ in range(14))
        (d / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Use this skill to {words}.\nlicense: Apache-2.0\n"
            f"metadata:\n  author: bench\n  version: \"1.{i}\"\n---\n# {name}\n\n"
            + "Step by step instructions.\n" * 40)
        (d / "scripts" / "run.py").write_text("print('hello')\n")
    (root / "custom").mkdir(exist_ok=True)


def main():
    seconds = int(os.environ.get("BENCH_SECONDS", "10"))
    skills = Path(tempfile.mkdtemp(prefix="antler-bench-skills-"))
    try:
        generate(skills, 1000)
        server = Server(skills)
        try:
            time.sleep(1.0)
            idle_rss = server.rss_mb()
            cold = server.cold_start_ms
            listing_bytes = len(urllib.request.urlopen(server.base + "/api/skills").read())
            wrk(server.base + "/health", 64, 2)  # warm-up
            gz = ["Accept-Encoding: gzip, deflate, br"]  # what every browser sends
            h = wrk(server.base + "/health", 64, seconds, headers=gz)
            s = wrk(server.base + "/api/skills", 64, seconds, headers=gz)
            s1 = wrk(server.base + "/api/skills", 1, seconds, headers=gz)
            si = wrk(server.base + "/api/skills", 64, seconds)
            # The cost of authentication alone: the smallest protected answer (cached token).
            me = wrk(server.base + "/api/auth/me", 64, seconds)
            loaded_rss = server.rss_mb()
        finally:
            server.stop()
    finally:
        shutil.rmtree(skills, ignore_errors=True)

    table(f"GET /api/skills, 1,000 skills ({listing_bytes / 1024:.0f} KiB JSON), {seconds}s each",
          ["what", "conns", "req/s", "p50 ms", "p99 ms", "MB/s"],
          [["GET /health (floor)", 64, f"{h[0]:,.0f}", f"{h[1]:.2f}", f"{h[2]:.2f}", f"{h[3]:.1f}"],
           ["GET /api/skills (gzip)", 64, f"{s[0]:,.0f}", f"{s[1]:.2f}", f"{s[2]:.2f}", f"{s[3]:.1f}"],
           ["GET /api/skills (gzip)", 1, f"{s1[0]:,.0f}", f"{s1[1]:.2f}", f"{s1[2]:.2f}", f"{s1[3]:.1f}"],
           ["GET /api/skills (identity)", 64, f"{si[0]:,.0f}", f"{si[1]:.2f}", f"{si[2]:.2f}", f"{si[3]:.1f}"]])
    table("Authentication (token in Authorization, resolved from the cache)",
          ["what", "conns", "req/s", "p50 ms", "p99 ms"],
          [["GET /health (public, floor)", 64, f"{h[0]:,.0f}", f"{h[1]:.2f}", f"{h[2]:.2f}"],
           ["GET /api/auth/me (token)", 64, f"{me[0]:,.0f}", f"{me[1]:.2f}", f"{me[2]:.2f}"]])
    print(f"\nfloor / authenticated throughput: {h[0] / me[0]:.2f}x")
    ratio = h[0] / s[0]
    print(f"\nfloor / listing throughput: {ratio:.2f}x (target <= 3x); listing p99 "
          f"{s[2]:.2f} ms (target < 10 ms); uncompressed the listing is bound by bytes: "
          f"{si[3] / 1000:.1f} GB/s")
    print(f"vs DeerFlow (2.5 req/s at 1 conn, 0 completed at 64): "
          f"{s1[0] / 2.5:,.0f}x at 1 connection")
    table("Process", ["what", "value"],
          [["idle RSS, 1,000 skills", f"{idle_rss:.1f} MB (target < 40 MB; DeerFlow 193-207 MB)"],
           ["RSS after the load", f"{loaded_rss:.1f} MB"],
           ["cold start to first /health 200", f"{cold:.0f} ms (DeerFlow 4-9 s; 17 s with 1,000 skills)"]])


if __name__ == "__main__":
    main()
