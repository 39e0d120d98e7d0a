"""The skills catalog at 100 and 10,000 skills: cold start, idle RSS, toggle, small install,
reload and listing throughput, each at 10,000 against the same at 100, next to the goals of
issue 14 (toggle p50 < 5 ms, install p50 < 10 ms, reload < 400 ms, cold start < 400 ms, idle
RSS < 40 MB). Server pinned to CPU 0, clients to CPU 1."""

import io
import json
import os
import shutil
import statistics
import tempfile
import time
import urllib.request
import uuid
import zipfile
from pathlib import Path

from common import Server, table, wrk
from skills_api import generate


def timed(fn):
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def call(method, url, body=None, content_type="application/json"):
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("content-type", content_type)
    with urllib.request.urlopen(req) as r:
        return r.read()


def skill_archive(name):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(f"{name}/SKILL.md", f"---\nname: {name}\ndescription: A small skill to install.\n---\n# {name}\n")
    return buf.getvalue()


def upload(base, archive):
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x.skill\"\r\n"
            "Content-Type: application/zip\r\n\r\n").encode() + archive + f"\r\n--{boundary}--\r\n".encode()
    call("POST", base + "/api/skills/upload", body, f"multipart/form-data; boundary={boundary}")


def measure(count, seconds):
    skills = Path(tempfile.mkdtemp(prefix="antler-bench-scale-"))
    try:
        generate(skills, count)
        # Skills that were there before the server started: folders written in the last
        # instant before it would (rightly) cost a catch-up rescan once its watcher runs.
        time.sleep(1.0)
        server = Server(skills)
        try:
            time.sleep(1.0)
            idle = server.rss_mb()
            base = server.base
            name = "generated-skill-0000"
            toggles = [timed(lambda e=(i % 2 == 1): call("PUT", f"{base}/api/skills/{name}", {"enabled": e}))
                       for i in range(30)]
            installs = [timed(lambda i=i: upload(base, skill_archive(f"bench-install-{i}"))) for i in range(10)]
            reloads = [timed(lambda: call("POST", base + "/api/skills/reload")) for _ in range(5)]
            gz = ["Accept-Encoding: gzip"]
            listing = wrk(base + "/api/skills", 64, seconds, headers=gz)
            return {
                "cold": server.cold_start_ms, "rss": idle,
                "toggle": statistics.median(toggles), "install": statistics.median(installs),
                "reload": statistics.median(reloads), "listing": listing[0],
            }
        finally:
            server.stop()
    finally:
        shutil.rmtree(skills, ignore_errors=True)


def main():
    seconds = int(os.environ.get("BENCH_SECONDS", "10"))
    small = measure(100, seconds)
    large = measure(10_000, seconds)
    rows = [
        ("cold start to first /health 200", "cold", "ms", "< 400 ms"),
        ("idle RSS", "rss", "MB", "< 40 MB"),
        ("toggle p50 (PUT, with a token)", "toggle", "ms", "< 5 ms"),
        ("small install p50 (upload)", "install", "ms", "< 10 ms"),
        ("reload p50", "reload", "ms", "< 400 ms"),
        ("listing, gzip, 64 conns", "listing", "req/s", "unchanged"),
    ]
    table("The catalog at 100 and 10,000 skills",
          ["what", "100 skills", "10,000 skills", "10,000 / 100", "goal at 10,000"],
          [[what, f"{small[k]:,.1f} {unit}", f"{large[k]:,.1f} {unit}",
            f"{large[k] / small[k]:.2f}x" if small[k] else "-", goal]
           for what, k, unit, goal in rows])


if __name__ == "__main__":
    main()
