"""Real-world-style skill scripts end to end in the full sandbox image, through Antler's own
sandbox (`antler sandbox exec`: a container hardened as a server's, no network): fill a PDF
form with pypdf, recalculate an xlsx with LibreOffice, build a pptx with python-pptx and render
it, draw a matplotlib chart with Chinese labels, convert docx to PDF, and convert a 50-page
PDF to Markdown as an upload is (its time in the check column). Each script checks its own
result; the table gives each one's median wall time over BENCH_FULL_RUNS runs (default 3),
container start included, against `true` run the same way (the floor)."""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ANTLER, table

RUNS = int(os.environ.get("BENCH_FULL_RUNS", "3"))
IMAGE = "antler-sandbox:full"
HERE = Path(__file__).parent / "full_scripts"


def command(script: Path) -> str:
    runner = "python3 -" if script.suffix == ".py" else "bash -s"
    return f"{runner} <<'ANTLER_SCRIPT'\n{script.read_text()}\nANTLER_SCRIPT\n"


def main():
    if subprocess.run(["docker", "image", "inspect", IMAGE], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        print(f"\n(skipped the full image's scripts: {IMAGE} is not built; `make sandbox-image`)")
        return
    work = Path(tempfile.mkdtemp(prefix="antler-bench-full-"))
    (work / "skills" / "public").mkdir(parents=True)
    env = dict(os.environ, ANTLER_DATA_DIR=str(work / "data"), ANTLER_SKILLS_DIR=str(work / "skills"),
               ANTLER_SANDBOX_PROVIDER="docker", ANTLER_SANDBOX_IMAGE=IMAGE, ANTLER_LOG_LEVEL="warn")

    def run(name, line, thread):
        started = time.perf_counter()
        done = subprocess.run([str(ANTLER), "sandbox", "exec", "--thread", thread, "--timeout", "300",
                               "--", line], env=env, capture_output=True, text=True)
        ms = (time.perf_counter() - started) * 1000
        if done.returncode != 0:
            sys.exit(f"{name} failed in {IMAGE}:\n{done.stdout}{done.stderr}")
        return ms, (done.stdout.strip().splitlines() or [""])[-1]

    try:
        floor = statistics.median(run("true", "true", f"floor-{i}")[0] for i in range(RUNS))
        rows = [["`true` (the floor: a container started, one command)", f"{floor:,.0f}", "", "-"]]
        for script in sorted(HERE.iterdir()):
            results = [run(script.name, command(script), f"{script.stem}-{i}".replace("_", "-"))
                       for i in range(RUNS)]
            ms = statistics.median(r[0] for r in results)
            rows.append([script.name, f"{ms:,.0f}", results[-1][1], f"{ms / floor:.1f}x"])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    table(f"Skill scripts in {IMAGE} through the sandbox (median of {RUNS} runs, ms)",
          ["script", "wall time", "its own check", "vs floor"], rows)


if __name__ == "__main__":
    main()
