"""Many viewers of one run: 10,000 concurrent joins (GET /runs/{run_id}/stream) of one run.
The run waits in a command (until the bench creates a file) while the streams open, then
streams its answer to all of them. Server RSS before and after opening them, bytes per
stream, the peak while the answer streams, and whether every stream received every event,
against the floor: the same number of plain keep-alive connections (one GET /health each,
then idle) on a fresh server."""

import json
import os
import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from common import TARGET, Server, pin, table

JOINERS = int(os.environ.get("BENCH_JOINERS", "10000"))
# Once every stream is open, the run streams this many chunks, one every CHUNK_MS.
CHUNKS = int(os.environ.get("BENCH_JOIN_CHUNKS", "200"))
CHUNK_MS = int(os.environ.get("BENCH_JOIN_CHUNK_MS", "20"))
CLIENT = TARGET / "release/examples/joins_bench"


def raise_fd_limit(wanted):
    """Children inherit it: the server and the client each hold a socket per connection."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return target


def settled_rss(server, seconds=2.0):
    """The lowest RSS over a short spell (transient buffers of the moment left out)."""
    end = time.time() + seconds
    low = server.rss_mb()
    while time.time() < end:
        time.sleep(0.1)
        low = min(low, server.rss_mb())
    return low


def client(*args):
    return subprocess.Popen(pin(1) + [str(CLIENT), *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)


def line(proc):
    text = proc.stdout.readline()
    if not text:
        raise RuntimeError(f"joins_bench ended early (exit {proc.wait()})")
    return json.loads(text)


def floor(skills, env):
    """RSS per idle keep-alive connection."""
    server = Server(skills, env=env)
    try:
        before = settled_rss(server)
        proc = client("idle", server.base, str(JOINERS))
        opened = line(proc)
        after = settled_rss(server)
        proc.stdin.close()
        proc.wait()
    finally:
        server.stop()
    return before, after, opened["connections"]


def joins(skills, env, gate):
    server = Server(skills, env=env)
    try:
        proc = client("join", server.base, str(JOINERS), "long join")
        line(proc)  # started: the run waits for the gate
        before = settled_rss(server)
        proc.stdin.write("go\n")
        proc.stdin.flush()
        joined = line(proc)
        after = settled_rss(server)
        gate.touch()
        done = line(proc)
        peak = peak_rss_mb(server.proc.pid)
        proc.wait()
    finally:
        server.stop()
    return before, after, peak, joined, done


def peak_rss_mb(pid):
    for text in Path(f"/proc/{pid}/status").read_text().splitlines():
        if text.startswith("VmHWM:"):
            return int(text.split()[1]) / 1024
    return float("nan")


def main():
    raise_fd_limit(2 * JOINERS + 1024)
    work = Path(tempfile.mkdtemp(prefix="antler-bench-joins-"))
    try:
        gate = work / "go"
        script = work / "mock.yaml"
        wait = f"while [ ! -e {gate} ]; do sleep 0.05; done"
        script.write_text(
            "options: {chunk_size: 4}\nscenarios:\n"
            "  - match: \"long join\"\n    turns:\n"
            f"      - tool_calls: [{{name: bash, arguments: {{command: \"{wait}\"}}}}]\n"
            f"      - {{content: \"{'abcd' * CHUNKS}\", chunk_delay_ms: {CHUNK_MS}}}\n")
        mock = subprocess.Popen([str(TARGET / "release/antler-mock-llm"), "--script", str(script)],
                                stdout=subprocess.PIPE, text=True)
        model = mock.stdout.readline().strip().removeprefix("listening on ") + "/v1"
        skills = work / "skills"
        (skills / "public").mkdir(parents=True)
        env = {"ANTLER_MODEL_BASE_URL": model, "ANTLER_MODEL": "mock",
               "ANTLER_AGENT_GENERATE_TITLES": "false", "ANTLER_AGENT_SUGGESTIONS_ENABLED": "false",
               "ANTLER_SANDBOX_PROVIDER": "local",
               "ANTLER_SANDBOX_ALLOW_HOST_BASH": "true"}
        try:
            idle_before, idle_after, idle_n = floor(skills, env)
            before, after, peak, joined, done = joins(skills, env, gate)
        finally:
            mock.kill()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    per_idle = (idle_after - idle_before) * 1024 * 1024 / max(idle_n, 1)
    per_stream = (after - before) * 1024 * 1024 / max(joined["streams"], 1)
    table(f"{JOINERS:,} viewers joining one run, then its answer streaming to all ({CHUNKS} chunks, one every {CHUNK_MS} ms)",
          ["what", "value"],
          [["floor: RSS idle -> with idle keep-alive connections",
            f"{idle_before:.0f} MB -> {idle_after:.0f} MB ({idle_n:,} connections)"],
           ["floor: bytes per keep-alive connection", f"{per_idle / 1024:.1f} KB"],
           ["RSS with the run under way -> with every stream open",
            f"{before:.0f} MB -> {after:.0f} MB ({joined['streams']:,} streams, opened in {joined['ms'] / 1000:.1f} s)"],
           ["peak RSS, the answer streaming to every stream", f"{peak:.0f} MB (target < 200 MB)"],
           ["bytes per open stream", f"{per_stream / 1024:.1f} KB (target < 17 KB); "
                                     f"{(per_stream - per_idle) / 1024:.1f} KB over the floor"],
           ["streams that received every event in order, then end",
            f"{done['complete']:,} of {done['streams']:,} ({done['events']:,} events)"]])


if __name__ == "__main__":
    main()
