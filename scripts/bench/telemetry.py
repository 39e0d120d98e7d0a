"""Tracing overhead: the 2,000-chunk answer through POST /runs/stream and
BENCH_CONCURRENT_RUNS (default 500) concurrent streaming runs, with traces off and with every
run's trace exported over OTLP/HTTP to a local collector (a sink that answers 200), in
alternating rounds; medians of BENCH_TELEMETRY_ROUNDS (default 5) rounds each, and the
model's own stream as the floor (goal: traces on costs at most 3%)."""

import http.server
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import threading
from pathlib import Path

from common import TARGET, Server, table

CHUNKS = 2000
CONCURRENT = int(os.environ.get("BENCH_CONCURRENT_RUNS", "500"))
ROUNDS = int(os.environ.get("BENCH_TELEMETRY_ROUNDS", "5"))


class Sink(http.server.BaseHTTPRequestHandler):
    """An OTLP/HTTP collector that keeps only counts."""

    requests = 0
    bytes = 0

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        Sink.requests += 1
        Sink.bytes += len(body)
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def measure(skills, model, env):
    server = Server(skills, env={
        "ANTLER_MODEL_BASE_URL": model, "ANTLER_MODEL": "mock",
        "ANTLER_AGENT_GENERATE_TITLES": "false", "ANTLER_AGENT_SUGGESTIONS_ENABLED": "false",
        "ANTLER_SANDBOX_PROVIDER": "local", **env,
    })
    try:
        out = subprocess.run([str(TARGET / "release/examples/runs_bench"), server.base, model,
                              str(CONCURRENT)], check=True, capture_output=True, text=True).stdout
    finally:
        server.stop()
    rows = [json.loads(line) for line in out.splitlines()]
    through = min(r["ms"] for r in rows if r["name"] == "through")
    floor = min(r["ms"] for r in rows if r["name"] == "floor")
    concurrent = next(r for r in rows if r["name"] == "concurrent")
    return floor, through, concurrent["ms"], concurrent["failed"]


def main():
    work = Path(tempfile.mkdtemp(prefix="antler-bench-telemetry-"))
    sink = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    collector = f"http://127.0.0.1:{sink.server_address[1]}"
    try:
        script = work / "mock.yaml"
        script.write_text(
            "options: {chunk_size: 4}\nscenarios:\n"
            f"  - match: \"long answer\"\n    turns: [{{content: \"{'abcd' * CHUNKS}\"}}]\n"
            f"  - match: \"burst\"\n    turns: [{{content: \"{'wxyz' * 100}\"}}]\n")
        mock = subprocess.Popen([str(TARGET / "release/antler-mock-llm"), "--script", str(script)],
                                stdout=subprocess.PIPE, text=True)
        model = mock.stdout.readline().strip().removeprefix("listening on ") + "/v1"
        skills = work / "skills"
        (skills / "public").mkdir(parents=True)
        modes = {"off": {}, "on": {"ANTLER_TELEMETRY_OTLP_ENDPOINT": collector}}
        got = {m: [] for m in modes}
        try:
            for i in range(ROUNDS):
                # Alternating which goes first: drift on the machine hits both alike.
                for mode in (["off", "on"] if i % 2 == 0 else ["on", "off"]):
                    got[mode].append(measure(skills, model, modes[mode]))
        finally:
            mock.kill()
        med = {m: [statistics.median(r[k] for r in got[m]) for k in range(3)] for m in modes}
        failed = {m: sum(r[3] for r in got[m]) for m in modes}
        overhead = lambda k: (med["on"][k] / med["off"][k] - 1) * 100
        table(f"Traces off vs on (OTLP/HTTP to a local collector), median of {ROUNDS} rounds each",
              ["measure", "floor (model directly)", "traces off", "traces on", "overhead"],
              [[f"one answer of {CHUNKS} chunks through runs/stream, ms",
                f"{statistics.median([med['off'][0], med['on'][0]]):.1f}",
                f"{med['off'][1]:.1f}", f"{med['on'][1]:.1f}", f"{overhead(1):+.1f}%"],
               [f"{CONCURRENT} concurrent streaming runs, s", "",
                f"{med['off'][2] / 1000:.2f}", f"{med['on'][2] / 1000:.2f}", f"{overhead(2):+.1f}%"]])
        print(f"\ncollector received {Sink.requests} export requests ({Sink.bytes / 1e6:.1f} MB of spans); "
              f"failed runs: off {failed['off']}, on {failed['on']} (goal: overhead <= 3%)")
    finally:
        sink.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
