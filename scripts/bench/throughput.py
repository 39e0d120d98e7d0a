"""Run throughput: BENCH_THROUGHPUT_RUNS (default 200) runs of a 20-chunk answer started at
once (SQLite, the local sandbox, the server on one CPU), against the same answers streamed by
the model directly in the same rounds (the floor); the median of five rounds after a warm-up,
and the server's CPU time per run. BENCH_PERF=1 also records a `perf` profile of the server
into target/bench-throughput.perf.data (`perf report -i` it)."""

import json
import os
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

from common import TARGET, Server, table

RUNS = int(os.environ.get("BENCH_THROUGHPUT_RUNS", "200"))
PEERS = "LangGraph's dev server 4.95 s, DeerFlow 24.8 s (issue 25, same scripted model)"


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    work = Path(tempfile.mkdtemp(prefix="antler-bench-throughput-"))
    try:
        script = work / "mock.yaml"
        script.write_text(
            "options: {chunk_size: 4}\nscenarios:\n"
            f"  - match: \"twenty chunks\"\n    turns: [{{content: \"{'abcd' * 20}\"}}]\n")
        mock = subprocess.Popen([str(TARGET / "release/antler-mock-llm"), "--script", str(script)],
                                stdout=subprocess.PIPE, text=True)
        model = mock.stdout.readline().strip().removeprefix("listening on ") + "/v1"
        skills = work / "skills"
        (skills / "public").mkdir(parents=True)
        server = Server(skills, env={
            "ANTLER_MODEL_BASE_URL": model, "ANTLER_MODEL": "mock",
            "ANTLER_AGENT_GENERATE_TITLES": "false", "ANTLER_AGENT_SUGGESTIONS_ENABLED": "false",
            "ANTLER_SANDBOX_PROVIDER": "local",
        })
        perf = None
        try:
            if os.environ.get("BENCH_PERF") == "1" and shutil.which("perf"):
                perf = subprocess.Popen(
                    ["perf", "record", *os.environ.get("BENCH_PERF_ARGS", "--call-graph dwarf,32768 -F 999").split(), "-p", str(server.proc.pid),
                     "-o", str(TARGET / "bench-throughput.perf.data")],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            cpu_before = cpu_seconds(server.proc.pid)
            out = subprocess.run([str(TARGET / "release/examples/runs_bench"), server.base, model,
                                  str(RUNS), "throughput"],
                                 check=True, capture_output=True, text=True).stdout
            cpu = cpu_seconds(server.proc.pid) - cpu_before
        finally:
            if perf:
                perf.send_signal(2)
                perf.wait()
            server.stop()
            mock.kill()
        rounds = [json.loads(line) for line in out.splitlines()]
        floor = statistics.median(r["floor_ms"] for r in rounds)
        runs = statistics.median(r["runs_ms"] for r in rounds)
        # The warm-up round counts in the CPU time too: six rounds in all.
        per_run = cpu * 1000 / (RUNS * (len(rounds) + 1))
        table(f"{RUNS} runs of a {rounds[0]['chunks']}-chunk answer at once (median of {len(rounds)} rounds)",
              ["path", "s", "ratio to floor"],
              [["model -> client directly, the same answers at once (floor)", f"{floor / 1000:.3f}", "1.0"],
               ["model -> antler -> client (runs/stream on fresh threads)", f"{runs / 1000:.3f}",
                f"{runs / floor:.1f}"]])
        print(f"\nserver CPU time per run (its thread created too): {per_run:.2f} ms; runs that ended well: "
              f"{min(r['ok'] for r in rounds)} of {RUNS} in every round (goal < 0.25 s; {PEERS})")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
