"""LangGraph store (`/api/store/…`) with 100,000 items on the release server (SQLite unless
ANTLER_DATABASE_URL says otherwise): put throughput (items/s, 8 keep-alive connections from
Python threads), then search throughput with wrk for a namespace prefix with a filter and for
a full-text `query` over every item. Each is set against a floor measured in the same run by
the same client: `GET /api/ok` (authenticated, no database)."""

import http.client
import json
import os
import random
import re
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from common import AUTH, Server, ms, pin, table

ITEMS = int(os.environ.get("BENCH_STORE_ITEMS", "100000"))
SECONDS = int(os.environ.get("BENCH_SECONDS", "10"))
THREADS = 8
NAMESPACES = 100

WORDS = ("bread baker lyon tea coffee garden python rust hiking piano paris berlin cats dogs "
         "running cycling chess jazz novels cooking vegan mornings evenings deadlines meetings "
         "spreadsheets kubernetes postgres travel spanish german french guitar photography "
         "climbing swimming yoga painting pottery wine cheese chocolate sushi ramen tacos").split()


def item(i, rng):
    # A rarer word per item (one of 2,000) next to common ones, as real notes have.
    text = " ".join(rng.choice(WORDS) for _ in range(8)) + f" topic{i % 2000}"
    return {"namespace": ["bench", f"u{i % NAMESPACES}"], "key": f"k{i}",
            "value": {"text": text, "score": i % 100, "kind": ("note", "task", "idea")[i % 3]}}


def run_threads(base, token, work):
    """Runs `work(conn, n)` for n in 0..THREADS on keep-alive connections; answers seconds."""
    host = base.removeprefix("http://")
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    errors = []

    def worker(n):
        conn = http.client.HTTPConnection(host, timeout=60)
        try:
            work(conn, headers, n)
        except Exception as e:  # reported after the run
            errors.append(e)
        finally:
            conn.close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(THREADS)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return time.perf_counter() - started


def request(conn, headers, method, path, body=None):
    conn.request(method, path, body=body, headers=headers)
    r = conn.getresponse()
    data = r.read()
    if r.status >= 300:
        raise RuntimeError(f"{method} {path}: {r.status} {data[:200]!r}")
    return data


def load(server):
    """Puts ITEMS items; answers items/s."""
    def work(conn, headers, n):
        rng = random.Random(n)
        for i in range(n, ITEMS, THREADS):
            request(conn, headers, "PUT", "/api/store/items", json.dumps(item(i, rng)))
    return ITEMS / run_threads(server.base, server.token, work)


def python_floor(server, count=20000):
    """GET /api/ok from the same Python threads: requests/s."""
    def work(conn, headers, n):
        for _ in range(count // THREADS):
            request(conn, headers, "GET", "/api/ok")
    return count / run_threads(server.base, server.token, work)


LUA = """
math.randomseed(%(seed)d)
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local words = {%(words)s}
request = function()
  local body
  if "%(kind)s" == "filter" then
    body = string.format('{"namespace_prefix":["bench","u%%d"],"filter":{"kind":"note","score":{"$gt":50}},"limit":10}', math.random(0, %(spaces)d - 1))
  else
    body = string.format('{"namespace_prefix":["bench"],"query":"%%s topic%%d","limit":10}', words[math.random(#words)], math.random(0, 1999))
  end
  return wrk.format(nil, "/api/store/items/search", nil, body)
end
"""


def wrk(url, script=None, connections=8):
    cmd = pin(1) + ["wrk", "-t1", f"-c{connections}", f"-d{SECONDS}s", "--latency"]
    for h in AUTH:
        cmd += ["-H", h]
    if script:
        cmd += ["-s", str(script)]
    out = subprocess.run(cmd + [url], capture_output=True, text=True, check=True).stdout
    if re.search(r"Non-2xx or 3xx responses: (\d+)", out):
        raise RuntimeError(f"wrk saw failed responses:\n{out}")
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    lat = dict(re.findall(r"^\s+(50|99)%\s+([\d.]+\w+)", out, re.M))
    return rps, ms(lat["50"]), ms(lat["99"])


def main():
    work = Path(tempfile.mkdtemp(prefix="antler-bench-store-"))
    try:
        skills = work / "skills"
        (skills / "public").mkdir(parents=True)
        env = {"ANTLER_SANDBOX_PROVIDER": "local", "ANTLER_SKILLS_WATCH": "false"}
        server = Server(skills, env=env, data=str(work / "data"))
        try:
            floor_py = python_floor(server)
            puts = load(server)
            floor = wrk(server.base + "/api/ok")
            scripts = {}
            for kind in ("filter", "query"):
                scripts[kind] = work / f"{kind}.lua"
                scripts[kind].write_text(LUA % {
                    "seed": 7, "kind": kind, "spaces": NAMESPACES,
                    "words": ", ".join(f'"{w}"' for w in WORDS)})
            # A check that the searches find something before timing them.
            host = server.base.removeprefix("http://")
            conn = http.client.HTTPConnection(host, timeout=60)
            headers = {"Content-Type": "application/json", "Authorization": f"Bearer {server.token}"}
            found = json.loads(request(conn, headers, "POST", "/api/store/items/search", json.dumps(
                {"namespace_prefix": ["bench"], "query": "rust topic7", "limit": 10})))
            conn.close()
            if len(found["items"]) != 10 or found["items"][0]["score"] is None:
                raise RuntimeError(f"query search found {found}")
            filtered = wrk(server.base + "/api/store/items/search", scripts["filter"])
            ranked = wrk(server.base + "/api/store/items/search", scripts["query"])
        finally:
            server.stop()
        table(f"Store with {ITEMS:,} items (SQLite; {THREADS} connections)",
              ["operation", "rate", "floor (GET /api/ok, same client)", "ratio", "p50 ms", "p99 ms"],
              [["put (Python client)", f"{puts:,.0f} items/s", f"{floor_py:,.0f} req/s",
                f"{puts / floor_py:.2f}", "", ""],
               ["search: prefix + filter (wrk)", f"{filtered[0]:,.0f} searches/s",
                f"{floor[0]:,.0f} req/s", f"{filtered[0] / floor[0]:.3f}",
                f"{filtered[1]:.2f}", f"{filtered[2]:.2f}"],
               ["search: full-text query over all (wrk)", f"{ranked[0]:,.0f} searches/s",
                f"{floor[0]:,.0f} req/s", f"{ranked[0] / floor[0]:.3f}",
                f"{ranked[1]:.2f}", f"{ranked[2]:.2f}"]])
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
