"""A real Antler server (and, given a script, the scripted mock model) for the Python SDK
tests: both from the built binaries (ANTLER_BIN, MOCK_LLM_BIN), on port 0, in a temporary
directory of their own."""

import os
import subprocess
import tempfile
from pathlib import Path


def start(cmd, env=None):
    """Starts `cmd` and answers (process, url) once it prints `listening on <url>`."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env, text=True)
    line = proc.stdout.readline().strip()
    if not line.startswith("listening on "):
        proc.kill()
        raise RuntimeError(f"{cmd[0]} did not start: {line!r}")
    return proc, line[len("listening on "):]


class SdkServer:
    """The server with an admin `admin`; `script` (mock-llm YAML) adds the scripted model
    (`mock_url`), `env` adds or overrides settings."""

    def __init__(self, admin, script=None, env=None, model_settings=None):
        self.tmp = tempfile.TemporaryDirectory()
        root = Path(self.tmp.name)
        (root / "skills/public").mkdir(parents=True)
        (root / "skills/custom").mkdir(parents=True)
        self.mock = None
        self.env = dict(os.environ)
        self.env.update({
            "ANTLER_DATA_DIR": str(root / "data"),
            "ANTLER_SKILLS_DIR": str(root / "skills"),
            "ANTLER_SKILLS_WATCH": "false",
            "ANTLER_SANDBOX_PROVIDER": "local",
            # Follow-up suggestions would add a model call the scripts do not expect.
            "ANTLER_AGENT_SUGGESTIONS_ENABLED": "false",
            "ANTLER_LOG_LEVEL": "warn",
            "ANTLER_ADMIN_EMAIL": admin,
            "ANTLER_ADMIN_PASSWORD": "sdk-password-1",
        })
        if script is not None:
            (root / "mock.yaml").write_text(script)
            self.mock, self.mock_url = start([os.environ["MOCK_LLM_BIN"], "--script", str(root / "mock.yaml")])
            extra = model_settings or ""
            self.env["ANTLER_MODELS"] = f"- {{name: mock, base_url: \"{self.mock_url}/v1\", model: mock{extra}}}\n"
        self.env.update(env or {})
        try:
            self.server, self.base = start([os.environ["ANTLER_BIN"], "serve", "--bind", "127.0.0.1:0"], self.env)
        except Exception:
            self._stop_mock()
            raise

    def token(self, email):
        """A personal access token from the command line, as an operator makes one (the SDK
        sends it as X-Api-Key, given as api_key)."""
        token = self._cli(["token", "create", "--user", email, "--name", "sdk"]).strip()
        assert token.startswith("antler_pat_"), token
        return token

    def create_user(self, email):
        """A second, non-admin account."""
        self._cli(["user", "create", email, "--password-stdin"], stdin="user-password-1\n")

    def close(self):
        self.server.terminate()
        self.server.wait(timeout=30)
        self._stop_mock()
        self.tmp.cleanup()

    def _stop_mock(self):
        if self.mock is not None:
            self.mock.terminate()
            self.mock.wait(timeout=30)

    def _cli(self, args, stdin=None):
        return subprocess.run(
            [os.environ["ANTLER_BIN"], *args],
            env=self.env, input=stdin, capture_output=True, text=True, check=True,
        ).stdout
