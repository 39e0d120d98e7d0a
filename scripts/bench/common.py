"""Shared helpers for `make bench`: start the server, run wrk, read RSS, print tables."""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
ANTLER = TARGET / "release" / "antler"


def need(tool, package=None):
    """Installs a Debian package when a tool is missing and we are root; else explains."""
    if shutil.which(tool):
        return
    package = package or tool
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print(f"installing {package} ...", flush=True)
        subprocess.run(["apt-get", "install", "-y", "-qq", package], check=False,
                       stdout=subprocess.DEVNULL)
        if not shutil.which(tool):
            subprocess.run(["apt-get", "update", "-qq"], check=False, stdout=subprocess.DEVNULL)
            subprocess.run(["apt-get", "install", "-y", "-qq", package], check=True,
                           stdout=subprocess.DEVNULL)
    if not shutil.which(tool):
        sys.exit(f"bench: '{tool}' is missing; install the Debian package '{package}'")


def pin(cpu):
    """Prefix pinning a process to one CPU when the machine has more than one."""
    if shutil.which("taskset") and (os.cpu_count() or 1) > 1:
        return ["taskset", "-c", str(cpu)]
    return []


BENCH_ADMIN = "bench@antler.test"
# The token sent with every request (urllib and wrk), set by the last server started.
AUTH = []


def use_token(token):
    """Sends `token` with every later urllib request and wrk run."""
    AUTH[:] = [f"Authorization: Bearer {token}"]
    opener = urllib.request.build_opener()
    opener.addheaders = [("Authorization", f"Bearer {token}")]
    urllib.request.install_opener(opener)
    os.environ["ANTLER_TOKEN"] = token


class Server:
    """`antler serve` on a free port with its own skills and data dirs (`binary`: another
    command for the `antler` executable, such as a tracing wrapper)."""

    def __init__(self, skills_dir, env=None, cpu=0, data=None, config=None, binary=None):
        binary = str(binary or ANTLER)
        self.own_data = data is None
        self.data = data or tempfile.mkdtemp(prefix="antler-bench-data-")
        full_env = dict(os.environ)
        full_env.update({
            "ANTLER_SKILLS_DIR": str(skills_dir),
            "ANTLER_DATA_DIR": self.data,
            "ANTLER_LOG_LEVEL": "warn",
            # Measured as deployed: accounts on, every request with a token.
            "ANTLER_ADMIN_EMAIL": BENCH_ADMIN,
            "ANTLER_ADMIN_PASSWORD": "bench-password-1",
        })
        full_env.update(env or {})
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            pin(cpu) + [binary, "serve", "--bind", "127.0.0.1:0"]
            + (["--config", str(config)] if config else []),
            stdout=subprocess.PIPE, env=full_env, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("listening on "):
            raise RuntimeError(f"server did not start: {line!r}")
        self.base = line[len("listening on "):]
        self.cold_start_ms = self.wait_healthy()
        self.token = subprocess.run(
            [binary, "token", "create", "--user", BENCH_ADMIN, "--name", "bench"],
            env=full_env, capture_output=True, text=True, check=True).stdout.strip()
        use_token(self.token)

    def wait_healthy(self):
        while True:
            try:
                with urllib.request.urlopen(self.base + "/health", timeout=1) as r:
                    if r.status == 200:
                        return (time.perf_counter() - self.started) * 1000
            except OSError:
                time.sleep(0.001)

    def rss_mb(self):
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self, timeout=10):
        """Stops the server (killed after `timeout` seconds); True when it ended by itself."""
        self.proc.send_signal(signal.SIGTERM)
        ended = True
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            ended = False
        if self.own_data:
            shutil.rmtree(self.data, ignore_errors=True)
        return ended


def defined_functions(binary):
    """Names of the functions `binary` itself defines (from `nm`)."""
    out = subprocess.run(["nm", "--defined-only", str(binary)], capture_output=True, text=True,
                         check=True).stdout
    return {p[2] for p in (line.split() for line in out.splitlines())
            if len(p) == 3 and p[1] in "tTwW"}


def link_order_note():
    """How much of crates/cli/link-order.txt the release binary holds (a list gone stale
    orders less code, and more of it is resident)."""
    listed = [line.strip() for line in (ROOT / "crates/cli/link-order.txt").read_text().splitlines()
              if line.strip() and not line.startswith("#")]
    defined = defined_functions(ANTLER)
    found = sum(name in defined for name in listed)
    note = f"link order: {found:,} of the {len(listed):,} functions listed are in the binary"
    if found < 0.9 * len(listed):
        note += " (stale: run scripts/link-order.py and rebuild)"
    return note


def wrk(url, connections, seconds, cpu=1, headers=()):
    """Runs wrk and returns (requests/s, p50 ms, p99 ms, transfer MB/s)."""
    cmd = pin(cpu) + ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency"]
    for h in list(headers) + AUTH:
        cmd += ["-H", h]
    out = subprocess.run(cmd + [url], capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    lat = dict(re.findall(r"^\s+(50|99)%\s+([\d.]+\w+)", out, re.M))
    transfer = re.search(r"Transfer/sec:\s+([\d.]+)(\w+)", out)
    mbs = float(transfer.group(1)) * {"B": 1e-6, "KB": 1e-3, "MB": 1, "GB": 1e3}.get(
        transfer.group(2), 1)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if errors:
        raise RuntimeError(f"wrk saw {errors.group(1)} failed responses for {url}")
    return rps, ms(lat["50"]), ms(lat["99"]), mbs


def ms(text):
    value, unit = re.match(r"([\d.]+)(\w+)", text).groups()
    return float(value) * {"us": 1e-3, "ms": 1, "s": 1e3}[unit]


def table(title, header, rows):
    print(f"\n## {title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")
    sys.stdout.flush()
