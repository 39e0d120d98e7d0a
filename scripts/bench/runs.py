"""Runs: a 2,000-chunk answer streamed by the model directly (the floor) vs through
POST /runs/stream; three subagents streaming 2,000 chunks each through their parent's stream
vs three direct streams (at full speed and at a chunk a millisecond); and 500 concurrent
streaming runs (completion time, peak RSS, lost events); a short answer streamed again and
again over one reused connection, directly and through a run (Nagle's algorithm and delayed
ACKs would hold each for ~40 ms)."""

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from common import TARGET, Server, table

CHUNKS = 2000
CONCURRENT = int(os.environ.get("BENCH_CONCURRENT_RUNS", "500"))


def main():
    work = Path(tempfile.mkdtemp(prefix="antler-bench-runs-"))
    try:
        script = work / "mock.yaml"
        task = "{name: task, arguments: {description: \"Part\", prompt: \"long answer please\"}}"
        paced = "{name: task, arguments: {description: \"Part\", prompt: \"paced answer please\"}}"
        script.write_text(
            "options: {chunk_size: 4}\nscenarios:\n"
            f"  - system: \"<subagent\"\n    match: \"long answer\"\n    turns: [{{content: \"{'efgh' * CHUNKS}\"}}]\n"
            f"  - system: \"<subagent\"\n    match: \"paced answer\"\n"
            f"    turns: [{{content: \"{'ijkl' * CHUNKS}\", chunk_delay_ms: 1}}]\n"
            f"  - match: \"three subtasks\"\n    turns:\n      - tool_calls: [{task}, {task}, {task}]\n"
            "      - content: \"done\"\n"
            f"  - match: \"three paced subtasks\"\n    turns:\n      - tool_calls: [{paced}, {paced}, {paced}]\n"
            "      - content: \"done\"\n"
            f"  - match: \"long answer\"\n    turns: [{{content: \"{'abcd' * CHUNKS}\"}}]\n"
            f"  - match: \"burst\"\n    turns: [{{content: \"{'wxyz' * 100}\"}}]\n"
            "  - match: \"short answer\"\n    turns: [{content: \"a short answer\", chunk_delay_ms: 1}]\n")
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
        try:
            idle_rss = server.rss_mb()
            out = subprocess.run([str(TARGET / "release/examples/runs_bench"), server.base, model,
                                  str(CONCURRENT)], check=True, capture_output=True, text=True).stdout
            peak = peak_rss_mb(server.proc.pid)
            out += subprocess.run([str(TARGET / "release/examples/runs_bench"), server.base, model, "0",
                                   "subtasks"], check=True, capture_output=True, text=True).stdout
            out += subprocess.run([str(TARGET / "release/examples/runs_bench"), server.base, model, "0",
                                   "latency"], check=True, capture_output=True, text=True).stdout
        finally:
            server.stop()
            mock.kill()
        rows = [json.loads(line) for line in out.splitlines()]
        floor = min(r["ms"] for r in rows if r["name"] == "floor")
        through = min(r["ms"] for r in rows if r["name"] == "through")
        chunks = next(r["chunks"] for r in rows if r["name"] == "through")
        table(f"One answer of {CHUNKS} chunks (best of 2)", ["path", "ms", "chunks/s", "µs per chunk"],
              [["model -> client directly (floor)", f"{floor:.1f}", f"{CHUNKS / floor * 1000:,.0f}", f"{floor * 1000 / CHUNKS:.1f}"],
               ["model -> antler -> client (runs/stream)", f"{through:.1f}", f"{chunks / through * 1000:,.0f}", f"{through * 1000 / chunks:.1f}"]])
        print(f"\nthroughput overhead: {(through / floor - 1) * 100:.1f}% over the floor (target <= 10%); "
              f"{(through - floor) * 1000 / CHUNKS:.1f} µs added per chunk")
        sub_floor = min(r["ms"] for r in rows if r["name"] == "subtask_floor")
        sub = min((r for r in rows if r["name"] == "subtask_through"), key=lambda r: r["ms"])
        table(f"Three subagents streaming {CHUNKS} chunks each at once (best of 2)",
              ["path", "ms", "chunks", "µs per chunk"],
              [["model -> client directly, 3 streams (floor)", f"{sub_floor:.1f}", 3 * CHUNKS,
                f"{sub_floor * 1000 / (3 * CHUNKS):.1f}"],
               ["model -> 3 subagents -> parent stream (task_event)", f"{sub['ms']:.1f}", sub["chunks"],
                f"{sub['ms'] * 1000 / max(sub['chunks'], 1):.1f}"]])
        print(f"\nsubtask event overhead at full mock speed: {(sub['ms'] / sub_floor - 1) * 100:.1f}% over the floor; "
              f"{sub['completed']} of 3 tasks completed, {sub['chunks']} of {3 * CHUNKS} chunks forwarded")
        paced_floor = min(r["ms"] for r in rows if r["name"] == "paced_floor")
        paced_run = min((r for r in rows if r["name"] == "paced_through"), key=lambda r: r["ms"])
        table("The same, the model streaming a chunk a millisecond (best of 2)", ["path", "ms", "chunks"],
              [["model -> client directly, 3 streams (floor)", f"{paced_floor:.1f}", 3 * CHUNKS],
               ["model -> 3 subagents -> parent stream (task_event)", f"{paced_run['ms']:.1f}", paced_run["chunks"]]])
        print(f"\nsubtask event overhead at a chunk a millisecond: {(paced_run['ms'] / paced_floor - 1) * 100:.1f}% "
              f"over the floor (goal <= 10%); {paced_run['completed']} of 3 tasks completed")
        lat_direct = next(r for r in rows if r["name"] == "latency_direct")
        lat_through = next(r for r in rows if r["name"] == "latency_through")
        table("A short answer (4 chunks) streamed again and again over one reused connection (median of 20)",
              ["path", "median ms", "slowest ms"],
              [["model -> client directly (floor)", f"{lat_direct['median_ms']:.1f}", f"{lat_direct['max_ms']:.1f}"],
               ["model -> antler -> client (runs/stream)", f"{lat_through['median_ms']:.1f}", f"{lat_through['max_ms']:.1f}"]])
        c = next(r for r in rows if r["name"] == "concurrent")
        table(f"{CONCURRENT} concurrent streaming runs (100 chunks each, no tools)", ["what", "value"],
              [["all runs completed in", f"{c['ms'] / 1000:.2f} s"],
               ["events received", f"{c['events']:,}"],
               ["runs with lost or duplicated events", c["runs_with_lost_events"]],
               ["failed runs", c["failed"]],
               ["server RSS idle -> peak", f"{idle_rss:.0f} MB -> {peak:.0f} MB (target < 300 MB)"]])
    finally:
        shutil.rmtree(work, ignore_errors=True)


def peak_rss_mb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


if __name__ == "__main__":
    main()
