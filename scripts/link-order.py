"""Writes crates/cli/link-order.txt: the functions the server runs as it starts, then those it
runs serving requests, for the linker to place first and together (`--symbol-ordering-file`,
passed by crates/cli/build.rs in release builds).

Why: the kernel maps a program's code 64 KiB at a time around each page first touched. Left in
the compiler's order, the few thousand functions a start-up runs are spread over the whole 30 MB
of code, and most of it ends up resident; placed together, only their own pages are.

How: the release server runs under valgrind's callgrind, which names every function executed:
once only starting (with generated skills, the default sandbox, then the local one) and idling
(with the `antler token create` the bench runs beside it),
once serving a workload (skills listed, toggled, installed, reloaded; threads and streamed runs
against antler-mock-llm). Start-up functions come first, then the workload's others; each group
is sorted by name so a regeneration's diff shows what changed. Names not in the binary (libc's)
are left out. Symbol names are stable for the same toolchain, lock file and profile; a name
that no longer exists is skipped by the linker, so a stale file only orders less.

It builds what it runs first, each in a command of its own: symbol names carry a hash of each
crate's features, and an example built in the same command (its dev-dependencies' features
unified in) would give the binary other names than `cargo build --release -p antler-cli` does.
Then rebuild the release binary to use the new list. Needs valgrind (installed when missing
and run as root)."""

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "bench"))
import common  # noqa: E402
from catalog_scale import call, skill_archive, upload  # noqa: E402
from skills_api import generate  # noqa: E402

OUT = common.ROOT / "crates" / "cli" / "link-order.txt"
STARTUP_SKILLS = 2000


def executed(outputs):
    """Every function named in callgrind output files (mangled: run with --demangle=no)."""
    names = set()
    for path in outputs:
        ids = {}
        for line in path.read_text(errors="replace").splitlines():
            m = re.match(r"^c?fn=\((\d+)\)(?: (.+))?$", line)
            if not m:
                continue
            if m.group(2):
                ids[m.group(1)] = m.group(2).strip()
            if line.startswith("fn="):
                # A recursive call's levels are named `f'2`, `f'3`...
                names.add(re.sub(r"'\d+$", "", ids.get(m.group(1), "")))
    names.discard("")
    return names


class Traced:
    """`antler` (server and CLI) under callgrind, each process to its own output file."""

    def __init__(self, work):
        self.dir = work / "callgrind"
        self.dir.mkdir()
        self.wrapper = work / "antler-traced"
        self.wrapper.write_text(
            "#!/bin/sh\nexec valgrind -q --tool=callgrind --demangle=no --dump-instr=no "
            f"--callgrind-out-file={self.dir}/cg.%p {common.ANTLER} \"$@\"\n")
        self.wrapper.chmod(0o755)

    def take(self):
        """The output files so far, then removed (each phase counts its own)."""
        files = sorted(self.dir.glob("cg.*"))
        names = executed(files)
        for f in files:
            f.unlink()
        return names


def stop(server):
    # Valgrind writes its output as the program exits: give a slowed-down shutdown time.
    if not server.stop(timeout=300):
        sys.exit("link-order: the traced server did not stop in 5 minutes")


def startup(traced, skills, env):
    server = common.Server(skills, env=env, binary=traced.wrapper)
    try:
        call("GET", server.base + "/health")
        time.sleep(2)
    finally:
        stop(server)


def workload(traced, work, skills):
    script = work / "mock.yaml"
    script.write_text("options: {chunk_size: 4}\nscenarios:\n"
                      f"  - match: \"twenty chunks\"\n    turns: [{{content: \"{'abcd' * 20}\"}}]\n")
    mock = subprocess.Popen([str(common.TARGET / "release/antler-mock-llm"), "--script",
                             str(script)], stdout=subprocess.PIPE, text=True)
    try:
        model = mock.stdout.readline().strip().removeprefix("listening on ") + "/v1"
        server = common.Server(skills, binary=traced.wrapper, env={
            "ANTLER_MODEL_BASE_URL": model, "ANTLER_MODEL": "mock",
            "ANTLER_AGENT_GENERATE_TITLES": "false",
            "ANTLER_AGENT_SUGGESTIONS_ENABLED": "false", "ANTLER_SANDBOX_PROVIDER": "local"})
        try:
            base = server.base
            for gzip in (False, True):
                headers = {"Accept-Encoding": "gzip"} if gzip else {}
                call("GET", base + "/api/skills", headers=headers)
            name = "generated-skill-0000"
            for enabled in (False, True):
                call("PUT", f"{base}/api/skills/{name}", {"enabled": enabled})
            upload(base, skill_archive("link-order-install"))
            call("POST", base + "/api/skills/reload")
            subprocess.run([str(common.TARGET / "release/examples/runs_bench"), base, model, "20",
                            "throughput"], check=True, capture_output=True, text=True)
        finally:
            stop(server)
    finally:
        mock.kill()
        mock.wait()


def build():
    """The release binary as every script builds it, and the tools the workload uses."""
    for args in (["-p", "antler-mock-llm", "--bin", "antler-mock-llm"],
                 ["-p", "antler-agent-runtime", "--example", "runs_bench"],
                 ["-p", "antler-cli", "--bin", "antler"]):
        subprocess.run(["cargo", "build", "--release", *args], cwd=common.ROOT, check=True)


def main():
    common.need("valgrind")
    if os.environ.get("LINK_ORDER_BUILD", "1") != "0":
        build()
    functions = common.defined_functions(common.ANTLER)
    with tempfile.TemporaryDirectory(prefix="antler-link-order-") as tmp:
        work = Path(tmp)
        skills = work / "skills"
        generate(skills, STARTUP_SKILLS)
        traced = Traced(work)
        print("tracing start-up (default sandbox, then local) ...", flush=True)
        startup(traced, skills, {})
        startup(traced, skills, {"ANTLER_SANDBOX_PROVIDER": "local"})
        first = traced.take() & functions
        print("tracing a workload ...", flush=True)
        workload(traced, work, skills)
        then = (traced.take() & functions) - first
    header = (
        "# Functions the release server runs at start-up, then serving requests: the linker\n"
        "# places them first and together (crates/cli/build.rs). Generated by\n"
        "# scripts/link-order.py; regenerate it after large changes.\n")
    OUT.write_text(header + "".join(f"{n}\n" for n in sorted(first) + sorted(then)))
    print(f"{OUT}: {len(first)} start-up functions, {len(then)} more serving requests "
          f"(of {len(functions)} in the binary); now rebuild: cargo build --release -p antler-cli")


if __name__ == "__main__":
    main()
