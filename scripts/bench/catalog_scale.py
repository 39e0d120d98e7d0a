"""The skills catalog at 100 and 10,000 skills: cold start, idle RSS, toggle, small install,
reload and listing throughput, each at 10,000 against the same at 100 (the floor, measured in
the same run), next to the goals of issue 14 (toggle p50 < 5 ms, install p50 < 10 ms, reload
< 400 ms, cold start < 400 ms, idle RSS < 40 MB). Server pinned to CPU 0, clients to CPU 1.

Each figure is the median of BENCH_RUNS runs (default 5), each run a fresh server with a fresh
data dir on the same generated skills (100 and 10,000 alternate, so both see the same machine).
Every phase starts once the server is idle (its CPU time stopped growing), so a figure is not
inflated by work the previous phase left behind (the file watcher refreshing installed skills,
the skills view being filled at startup); the CPU time the server used is reported beside the
wall times because it varies far less on a shared machine."""

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

from common import Server, link_order_note, table, wrk
from skills_api import generate


def timed(fn):
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def call(method, url, body=None, content_type="application/json", headers=None):
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
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


TICK = os.sysconf("SC_CLK_TCK")


def cpu_ms(pid):
    """User + system CPU time of a process so far, in ms."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / TICK


def wait_idle(pid, window=0.3, limit=60.0):
    """Waits until the process used at most one clock tick of CPU time in `window` seconds
    (at most `limit` seconds)."""
    deadline = time.monotonic() + limit
    last = cpu_ms(pid)
    while time.monotonic() < deadline:
        time.sleep(window)
        now = cpu_ms(pid)
        if now - last <= 1000 / TICK:
            return
        last = now


def measure(skills, seconds):
    # Installs of an earlier run are taken out: every run starts from the same skills.
    shutil.rmtree(skills / "custom", ignore_errors=True)
    (skills / "custom").mkdir()
    server = Server(skills)
    try:
        pid = server.proc.pid
        cold_cpu = cpu_ms(pid)
        base = server.base
        wait_idle(pid)
        idle = server.rss_mb()
        name = "generated-skill-0000"

        def phase(count, op):
            wait_idle(pid)
            before = cpu_ms(pid)
            times = [timed(lambda i=i: op(i)) for i in range(count)]
            return statistics.median(times), (cpu_ms(pid) - before) / count

        toggle, toggle_cpu = phase(30, lambda i: call(
            "PUT", f"{base}/api/skills/{name}", {"enabled": i % 2 == 1}))
        install, install_cpu = phase(10, lambda i: upload(
            base, skill_archive(f"bench-install-{i}")))
        reload, reload_cpu = phase(5, lambda i: call("POST", base + "/api/skills/reload"))
        wait_idle(pid)
        gz = ["Accept-Encoding: gzip"]
        listing = wrk(base + "/api/skills", 64, seconds, headers=gz)
        return {
            "cold": server.cold_start_ms, "cold_cpu": cold_cpu, "rss": idle,
            "toggle": toggle, "install": install, "install_cpu": install_cpu,
            "reload": reload, "reload_cpu": reload_cpu, "listing": listing[0],
        }
    finally:
        server.stop()


ROWS = [
    ("cold start to first /health 200", "cold", "ms", 400),
    ("  CPU time used by then", "cold_cpu", "ms", None),
    ("idle RSS", "rss", "MB", 40),
    ("toggle p50 (PUT, with a token)", "toggle", "ms", 5),
    ("small install p50 (upload)", "install", "ms", 10),
    ("  CPU time per install", "install_cpu", "ms", None),
    ("reload p50", "reload", "ms", 400),
    ("  CPU time per reload", "reload_cpu", "ms", None),
    ("listing, gzip, 64 conns", "listing", "req/s", None),
]


def main():
    seconds = int(os.environ.get("BENCH_SECONDS", "10"))
    runs = int(os.environ.get("BENCH_RUNS", "5"))
    root = Path(tempfile.mkdtemp(prefix="antler-bench-scale-"))
    try:
        sizes = {100: root / "small", 10_000: root / "large"}
        for count, skills in sizes.items():
            generate(skills, count)
        # Skills that were there before the server started: folders written in the last
        # instant before it would (rightly) cost a catch-up rescan once its watcher runs.
        time.sleep(1.0)
        results = {count: [] for count in sizes}
        for _ in range(runs):
            for count, skills in sizes.items():
                results[count].append(measure(skills, seconds))
    finally:
        shutil.rmtree(root, ignore_errors=True)

    def median(count, key):
        return statistics.median(r[key] for r in results[count])

    def spread(count, key):
        values = [r[key] for r in results[count]]
        return f"{min(values):,.1f}-{max(values):,.1f}"

    rows = []
    for what, key, unit, goal in ROWS:
        small, large = median(100, key), median(10_000, key)
        verdict = "-"
        if goal is not None:
            verdict = f"< {goal} {unit}: " + ("met" if large < goal else "NOT met")
        elif key == "listing":
            verdict = "unchanged"
        rows.append([what, f"{small:,.1f} {unit}", f"{large:,.1f} {unit}", spread(10_000, key),
                     f"{large / small:.2f}x" if small else "-", verdict])
    table(f"The catalog at 100 and 10,000 skills (median of {runs} runs)",
          ["what", "100 skills (floor)", "10,000 skills", "10,000: range", "10,000 / 100",
           "goal at 10,000"], rows)
    print(f"\n{link_order_note()}")


if __name__ == "__main__":
    main()
