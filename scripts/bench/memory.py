"""Memory injection: how much the relevant-facts lookup adds to a run's start with 10,000
stored facts. Measured as the time from POST /runs/stream to the run's `metadata` event
(which lists the injected facts), p50 over many runs, against the same server and data with
memory switched off (the floor)."""

import http.client
import json
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from common import TARGET, Server, table

FACTS = int(os.environ.get("BENCH_MEMORY_FACTS", "10000"))
RUNS = int(os.environ.get("BENCH_MEMORY_RUNS", "300"))

WORDS = ("bread baker lyon tea coffee garden python rust hiking piano paris berlin cats dogs "
         "running cycling chess jazz novels cooking vegan mornings evenings deadlines meetings "
         "spreadsheets kubernetes postgres travel spanish german french guitar photography "
         "climbing swimming yoga painting pottery wine cheese chocolate sushi ramen tacos").split()
CATEGORIES = ["preference", "knowledge", "context", "behavior", "goal"]


def sentence(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def post(base, path, body):
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.loads(r.read() or b"null")


def load_facts(base, rng):
    for start in range(0, FACTS, 1000):
        facts = [{"content": f"Fact {i}: likes {sentence(rng, 6)}",
                  "category": rng.choice(CATEGORIES),
                  "confidence": round(rng.uniform(0.7, 1.0), 2)}
                 for i in range(start, min(start + 1000, FACTS))]
        post(base, "/api/memory/import", {"facts": facts})


def time_to_metadata(base, token, text):
    """Milliseconds from sending the run to reading its `metadata` event."""
    thread = post(base, "/api/threads", {})["thread_id"]
    host = base.removeprefix("http://")
    conn = http.client.HTTPConnection(host, timeout=60)
    body = json.dumps({"assistant_id": "agent", "stream_mode": ["values"],
                       "input": {"messages": [{"role": "user", "content": text}]}})
    started = time.perf_counter()
    conn.request("POST", f"/api/threads/{thread}/runs/stream", body=body,
                 headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    response = conn.getresponse()
    elapsed = None
    while True:
        line = response.readline()
        if not line:
            break
        if elapsed is None and line.startswith(b"event: metadata"):
            elapsed = (time.perf_counter() - started) * 1000
        if line.startswith(b"event: end"):
            break
    conn.close()
    if elapsed is None:
        raise RuntimeError("the run sent no metadata event")
    return elapsed


def measure(server, seed):
    rng = random.Random(seed)
    texts = [f"What do you think about {sentence(rng, 4)}?" for _ in range(RUNS)]
    for t in texts[:20]:  # warm-up
        time_to_metadata(server.base, server.token, t)
    return [time_to_metadata(server.base, server.token, t) for t in texts]


def main():
    work = Path(tempfile.mkdtemp(prefix="antler-bench-memory-"))
    try:
        script = work / "mock.yaml"
        script.write_text("scenarios:\n  - match: \"\"\n    turns: [{content: \"ok\"}]\n")
        mock = subprocess.Popen([str(TARGET / "release/antler-mock-llm"), "--script", str(script)],
                                stdout=subprocess.PIPE, text=True)
        model = mock.stdout.readline().strip().removeprefix("listening on ") + "/v1"
        skills = work / "skills"
        (skills / "public").mkdir(parents=True)
        data = str(work / "data")
        env = {"ANTLER_MODEL_BASE_URL": model, "ANTLER_MODEL": "mock",
               "ANTLER_AGENT_GENERATE_TITLES": "false", "ANTLER_AGENT_SUGGESTIONS_ENABLED": "false",
               "ANTLER_SANDBOX_PROVIDER": "local",
               "ANTLER_SKILLS_WATCH": "false", "ANTLER_MEMORY_EXTRACTION": "false",
               "ANTLER_MEMORY_MAX_FACTS": str(FACTS * 2)}
        try:
            rows = {}
            server = Server(skills, env=env, data=data)
            try:
                started = time.perf_counter()
                load_facts(server.base, random.Random(7))
                load_s = time.perf_counter() - started
                rows["on"] = measure(server, 11)
            finally:
                server.stop()
            server = Server(skills, env={**env, "ANTLER_MEMORY_ENABLED": "false"}, data=data)
            try:
                rows["off"] = measure(server, 11)
            finally:
                server.stop()
        finally:
            mock.kill()
        on, off = statistics.median(rows["on"]), statistics.median(rows["off"])
        p90 = lambda xs: statistics.quantiles(xs, n=10)[-1]
        table(f"Run start with {FACTS:,} stored facts ({RUNS} runs each; time to the metadata event)",
              ["memory", "p50 ms", "p90 ms"],
              [["off (floor)", f"{off:.2f}", f"{p90(rows['off']):.2f}"],
               ["on: relevant facts injected", f"{on:.2f}", f"{p90(rows['on']):.2f}"]])
        print(f"\ninjection adds {on - off:.2f} ms p50 ({on / off:.2f}x the floor; target < 2 ms); "
              f"{FACTS:,} facts imported in {load_s:.1f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
