"""One server vs two replicas, SQLite vs PostgreSQL, in one run: GET /api/skills throughput
(wrk against each replica at once) and streaming-run throughput (concurrent runs spread over
the replicas)."""

import json
import os
import shutil
import subprocess
import tempfile
import threading
import uuid
from pathlib import Path

from common import TARGET, Server, table, wrk
from skills_api import generate

SECONDS = int(os.environ.get("BENCH_SECONDS", "10"))
RUNS = int(os.environ.get("BENCH_REPLICA_RUNS", "200"))


def postgres_admin_url():
    out = subprocess.run(["bash", "scripts/postgres.sh"], check=True, capture_output=True, text=True)
    return out.stdout.strip().splitlines()[-1]


def fresh_database(admin):
    name = f"antler_bench_{uuid.uuid4().hex[:12]}"
    subprocess.run(["psql", admin, "-qc", f"CREATE DATABASE {name}"], check=True)
    return admin.rsplit("/", 1)[0] + "/" + name


def parallel(fns):
    results = [None] * len(fns)
    def run(i, fn):
        results[i] = fn()
    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate(fns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def measure(label, skills, data, model, database, replicas):
    env = {"ANTLER_MODEL_BASE_URL": model, "ANTLER_MODEL": "mock",
           "ANTLER_AGENT_GENERATE_TITLES": "false", "ANTLER_AGENT_SUGGESTIONS_ENABLED": "false",
           "ANTLER_SANDBOX_PROVIDER": "local",
           "ANTLER_SKILLS_WATCH": "false"}
    if database:
        env["ANTLER_DATABASE_URL"] = database
    servers = [Server(skills, env={**env, "ANTLER_SANDBOX_INSTANCE_ID": f"bench-{i}"}, cpu=i % 2, data=data)
               for i in range(replicas)]
    try:
        gz = ["Accept-Encoding: gzip"]
        for s in servers:
            wrk(s.base + "/api/skills", 32, 2, headers=gz)
        listing = parallel([lambda s=s: wrk(s.base + "/api/skills", 64 // replicas, SECONDS, cpu=1, headers=gz)
                            for s in servers])
        rps = sum(r[0] for r in listing)
        p99 = max(r[2] for r in listing)
        per = RUNS // replicas
        outs = parallel([lambda s=s: subprocess.run(
            [str(TARGET / "release/examples/runs_bench"), s.base, model, str(per), "concurrent-only"],
            check=True, capture_output=True, text=True).stdout for s in servers])
        rows = [json.loads(o.strip().splitlines()[-1]) for o in outs]
        ms = max(r["ms"] for r in rows)
        lost = sum(r["runs_with_lost_events"] + r["failed"] for r in rows)
        return [label, f"{rps:,.0f}", f"{p99:.2f}", f"{per * replicas / ms * 1000:,.0f}", f"{ms / 1000:.2f}", lost]
    finally:
        for s in servers:
            s.stop()


def main():
    work = Path(tempfile.mkdtemp(prefix="antler-bench-replicas-"))
    try:
        skills = work / "skills"
        generate(skills, 1000)
        script = work / "mock.yaml"
        script.write_text(f"scenarios:\n  - match: \"burst\"\n    turns: [{{content: \"{'wxyz' * 100}\", chunk_size: 4}}]\n"
                          "  - match: \"\"\n    turns: [{content: \"ok\"}]\n")
        admin = postgres_admin_url()
        mock = subprocess.Popen([str(TARGET / "release/antler-mock-llm"), "--script", str(script)],
                                stdout=subprocess.PIPE, text=True)
        model = mock.stdout.readline().strip().removeprefix("listening on ") + "/v1"
        rows = []
        try:
            for label, database, replicas in [
                ("SQLite, 1 server", None, 1),
                ("PostgreSQL, 1 server", fresh_database(admin), 1),
                ("PostgreSQL, 2 replicas", fresh_database(admin), 2),
            ]:
                data = tempfile.mkdtemp(prefix="antler-bench-rdata-", dir=work)
                rows.append(measure(label, skills, data, model, database, replicas))
        finally:
            mock.kill()
        table(f"Replicas and engines (1,000 skills; {RUNS} concurrent runs of 100 chunks; {SECONDS}s wrk, gzip)",
              ["setup", "GET /api/skills req/s", "p99 ms", "runs/s", "all runs done in s", "runs with lost events or failures"],
              rows)
        print("\n(2 cores: the replicas and the load generators share them, so two replicas cannot "
              "add CPU here; the rows show the cost of the shared database and notifications.)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
