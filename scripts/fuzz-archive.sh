#!/usr/bin/env bash
# `make fuzz-archive`: fuzzes the .skill archive inspector for FUZZ_SECONDS (default 60).
# cargo-fuzz needs nightly features; RUSTC_BOOTSTRAP lets the stable toolchain provide them.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"
export RUSTC_BOOTSTRAP=1
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz ..."
  cargo install --locked cargo-fuzz
fi
corpus=fuzz/corpus/archive_inspector
mkdir -p "$corpus"
# Seed with small real archives: a valid skill, a zip-slip, a symlink, a nested skill.
python3 - "$corpus" <<'PY'
import io, sys, zipfile, pathlib
out = pathlib.Path(sys.argv[1])
def make(name, entries):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data, mode in entries:
            info = zipfile.ZipInfo(path)
            info.external_attr = mode << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    (out / name).write_bytes(buf.getvalue())
skill = b"---\nname: seed\ndescription: A seed skill.\n---\n# Seed\n"
make("valid.zip", [("seed/SKILL.md", skill, 0o100644), ("seed/scripts/run.sh", b"#!/bin/sh\n", 0o100755)])
make("slip.zip", [("seed/SKILL.md", skill, 0o100644), ("seed/../evil", b"x", 0o100644)])
make("symlink.zip", [("seed/SKILL.md", skill, 0o100644), ("seed/link", b"/etc/passwd", 0o120777)])
make("nested.zip", [("seed/SKILL.md", skill, 0o100644), ("seed/x/SKILL.md", skill, 0o100644)])
PY
cargo fuzz run --fuzz-dir fuzz archive_inspector "$corpus" -- \
  -max_total_time="$seconds" -rss_limit_mb=1024 -max_len=65536
