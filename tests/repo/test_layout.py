"""Checks of the repository's own build files that no compiler runs: the server image's
dependency layer names every crate, and scripts hand absolute build paths to programs that
run from other working directories."""

import re
import subprocess
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class DockerfileTest(unittest.TestCase):
    def test_dependency_layer_copies_every_crate_manifest(self):
        dockerfile = (ROOT / "Dockerfile").read_text()
        copied = set(re.findall(r"^COPY (crates/[^/\s]+/Cargo\.toml) ", dockerfile, re.M))
        crates = {
            str(p.relative_to(ROOT)) for p in (ROOT / "crates").glob("*/Cargo.toml")
        }
        self.assertEqual(crates - copied, set(), "crates missing from the Dockerfile")
        self.assertEqual(copied - crates, set(), "the Dockerfile copies crates that do not exist")


class TargetPathTest(unittest.TestCase):
    def test_scripts_resolve_the_default_target_dir_to_an_absolute_path(self):
        # A relative `target` passed on to a program that changes directory breaks the
        # README's `make test` on a fresh clone (no CARGO_TARGET_DIR set).
        for script in sorted((ROOT / "scripts").glob("*.sh")):
            for line in script.read_text().splitlines():
                if re.match(r'\s*target="\$\{CARGO_TARGET_DIR', line):
                    self.fail(f"{script.name}: relative default target dir: {line.strip()}")

    def test_the_resolved_target_dir_is_absolute_from_a_fresh_clone(self):
        # The scripts' own line, run in a directory with CARGO_TARGET_DIR unset.
        line = next(
            l for l in (ROOT / "scripts/api-fuzz.sh").read_text().splitlines()
            if l.startswith("target=")
        )
        with tempfile.TemporaryDirectory() as tmp:
            out = subprocess.run(
                ["bash", "-c", f"{line}; echo \"$target\""],
                cwd=tmp, env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
                check=True,
            ).stdout.strip()
            self.assertEqual(out, str(Path(tmp).resolve() / "target"))


if __name__ == "__main__":
    unittest.main()
