"""Cron scheduler overhead with 10,000 enabled crons (due times spread over a year, so none is
due during the measurement): the claim query's time, p50/p99 over many polls, against the same
query on an empty table (the floor), on SQLite and (when ANTLER_TEST_POSTGRES_URL is set) on
PostgreSQL; and the release server's CPU while idle for BENCH_CRONS_IDLE_SECONDS (default 20)
with those crons against the same server with none (the floor), read from /proc."""

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from common import TARGET, Server, table

CRONS = int(os.environ.get("BENCH_CRONS", "10000"))
IDLE = float(os.environ.get("BENCH_CRONS_IDLE_SECONDS", "20"))
EXAMPLE = TARGET / "release/examples/cron_claim_bench"


def claims(location):
    out = subprocess.run([str(EXAMPLE), location, str(CRONS)], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_cpu(skills, data):
    server = Server(skills, data=data, env={"ANTLER_SANDBOX_PROVIDER": "local"})
    try:
        time.sleep(2)  # past the start's own work
        before = cpu_seconds(server.proc.pid)
        time.sleep(IDLE)
        return (cpu_seconds(server.proc.pid) - before) / IDLE * 100
    finally:
        server.stop()


def main():
    rows = []
    work = Path(tempfile.mkdtemp(prefix="antler-bench-crons-"))
    try:
        sqlite = claims(str(work / "claims.db"))
        engines = [("SQLite", sqlite)]
        pg = os.environ.get("ANTLER_TEST_POSTGRES_URL")
        if pg:
            db = f"antler_bench_crons_{os.getpid()}"
            subprocess.run(["psql", pg, "-qc", f"CREATE DATABASE {db}"], check=True,
                           capture_output=True)
            try:
                engines.append(("PostgreSQL", claims(pg.rsplit("/", 1)[0] + "/" + db)))
            finally:
                subprocess.run(["psql", pg, "-qc", f"DROP DATABASE {db} WITH (FORCE)"],
                               capture_output=True)
        for name, r in engines:
            e, l = r["empty"], r["loaded"]
            rows.append((f"claim query, {name}", f"{e['p50_us']} / {e['p99_us']} µs",
                         f"{l['p50_us']} / {l['p99_us']} µs",
                         f"{l['p50_us'] / max(e['p50_us'], 1):.2f}x"))
        skills = work / "skills"
        (skills / "public").mkdir(parents=True)
        (skills / "custom").mkdir(parents=True)
        empty, loaded = work / "empty", work / "loaded"
        empty.mkdir()
        loaded.mkdir()
        claims(str(loaded / "antler.db"))
        floor = idle_cpu(skills, str(empty))
        busy = idle_cpu(skills, str(loaded))
        rows.append((f"server CPU at idle ({IDLE:.0f} s)", f"{floor:.2f} %", f"{busy:.2f} %",
                     f"{busy / floor:.2f}x" if floor > 0 else "n/a"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    table(f"Cron scheduler with {CRONS:,} enabled crons (none due)",
          ["measure", "no crons (floor)", f"{CRONS:,} crons", "ratio"], rows)


if __name__ == "__main__":
    main()
