"""Fuzzes the whole API with Schemathesis (every check, bounded in time) against the real
debug server with the scripted model and the local sandbox. Needs ANTLER_BIN, MOCK_LLM_BIN,
SCHEMATHESIS (the `st` executable) and API_FUZZ_SECONDS; run by scripts/api-fuzz.sh, whose
arguments are passed on to `st run` (e.g. `--include-operation-id create_run`). The run
fails on any failed check and on the warnings schemathesis.toml makes fatal (operations the
fuzzer could not reach: refused or 404 for every valid request)."""

import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent("""
    scenarios:
      # hooks.py cancels runs of this one while they work.
      - match: "fuzz-slow"
        turns:
          - content: "A slow answer, one character at a time."
            chunk_size: 1
            chunk_delay_ms: 100
      - match: ""
        turns:
          - content: "A short answer."
""")


def start(cmd, env=None):
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env, text=True)
    line = proc.stdout.readline().strip()
    if not line.startswith("listening on "):
        proc.kill()
        raise RuntimeError(f"{cmd[0]} did not start: {line!r}")
    return proc, line[len("listening on "):]


def git_repository(path):
    """A Git repository holding one skill, for the import operation (`file://` URLs work
    offline)."""
    skill = path / "fuzz-import"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: fuzz-import\ndescription: A skill the fuzzer imports.\n---\n# Import\n"
    )
    git = ["git", "-C", str(path), "-c", "user.name=fuzz", "-c", "user.email=fuzz@antler.test"]
    for args in (["init", "--quiet"], ["add", "."], ["commit", "--quiet", "-m", "A skill"]):
        subprocess.run(git + args, check=True)
    return path.as_uri()


def main():
    here = Path(__file__).resolve().parent
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "skills/public").mkdir(parents=True)
        (root / "skills/custom").mkdir(parents=True)
        # A real skill so skill operations reach their logic, not only their 404.
        demo = root / "skills/public/demo-skill"
        demo.mkdir()
        (demo / "SKILL.md").write_text(
            "---\nname: demo-skill\ndescription: A skill the fuzzer can read and toggle.\n---\n# Demo\n"
        )
        script = root / "mock.yaml"
        script.write_text(SCRIPT)
        mock, mock_url = start([os.environ["MOCK_LLM_BIN"], "--script", str(script)])
        env = dict(os.environ)
        env.update({
            "ANTLER_DATA_DIR": str(root / "data"),
            "ANTLER_SKILLS_DIR": str(root / "skills"),
            "ANTLER_SKILLS_WATCH": "false",
            # Sources the fuzzer makes up cannot be fetched here; fail them fast.
            "ANTLER_SKILLS_IMPORT_TIMEOUT_SECS": "5",
            # The import operation fetches a local repository (hooks.py), under this root.
            "ANTLER_SKILLS_IMPORT_ALLOWED_FILE_ROOTS": str(root),
            "ANTLER_SANDBOX_PROVIDER": "local",
            "ANTLER_MODEL_BASE_URL": f"{mock_url}/v1",
            "ANTLER_MODEL": "mock",
            "ANTLER_AGENT_GENERATE_TITLES": "false",
            "ANTLER_AGENT_SUGGESTIONS_ENABLED": "false",
            "ANTLER_LOG_LEVEL": "error",
            # The schema cannot say "at most uploads.max_files files" (configurable), and the
            # fuzzer's lists of files sometimes have more than the default 10: a documented 413
            # it would count as valid input refused.
            "ANTLER_UPLOADS_MAX_FILES": "1000",
            "ANTLER_ADMIN_EMAIL": "fuzz-admin@antler.test",
            "ANTLER_ADMIN_PASSWORD": "fuzz-password-1",
            # Secrets can be stored (without a key their writes are a documented 503).
            "ANTLER_SECRETS_KEY": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
        })
        server, base = start([os.environ["ANTLER_BIN"], "serve", "--bind", "127.0.0.1:0"], env)
        # The admin's token: with it every operation reaches its logic; Schemathesis also
        # sends requests without it and checks that protected operations refuse them.
        token = subprocess.run(
            [os.environ["ANTLER_BIN"], "token", "create", "--user", "fuzz-admin@antler.test", "--name", "fuzz"],
            env=env, capture_output=True, text=True, check=True,
        ).stdout.strip()
        # What hooks.py needs to put existing resources into some of the cases.
        fuzz_env = dict(os.environ)
        fuzz_env.update({
            "SCHEMATHESIS_HOOKS": "hooks",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(here), os.environ.get("PYTHONPATH")])),
            "FUZZ_BASE": base,
            "FUZZ_TOKEN": token,
            "FUZZ_ADMIN_PASSWORD": env["ANTLER_ADMIN_PASSWORD"],
            "FUZZ_IMPORT_URL": git_repository(root / "import-repo"),
        })
        try:
            seconds = os.environ.get("API_FUZZ_SECONDS", "100")
            cmd = [
                os.environ["SCHEMATHESIS"], "--no-color",
                "--config-file", str(here / "schemathesis.toml"),
                "run", f"{base}/api/openapi.json",
                "--url", base,
                "--header", f"Authorization: Bearer {token}",
                "--checks", "all",
                "--max-time", seconds,
                # One worker: with threads, CPython 3.11's AST constructor can raise a
                # spurious "recursion depth mismatch" inside Hypothesis (cpython#106905).
                "--workers", "1",
                "--request-timeout", "20",
                "--continue-on-failure",
                "--seed", os.environ.get("API_FUZZ_SEED", "1"),
                *sys.argv[1:],
            ]
            # Schemathesis keeps a cache in its working directory: the temporary one, never
            # the repository.
            return subprocess.call(cmd, cwd=tmp, env=fuzz_env)
        finally:
            for proc in (server, mock):
                proc.terminate()
                proc.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
