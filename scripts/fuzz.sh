#!/usr/bin/env bash
# `make fuzz`: fuzzes the .skill archive inspector and the SKILL.md frontmatter parser for
# FUZZ_SECONDS each (default 60); a crash or panic fails. cargo-fuzz needs nightly features;
# RUSTC_BOOTSTRAP lets the stable toolchain provide them. Build output and the corpus go
# under CARGO_TARGET_DIR (or target/), never into the clone.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"
target="$(realpath -m "${CARGO_TARGET_DIR:-target}")"
export RUSTC_BOOTSTRAP=1
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz ..."
  cargo install --locked --quiet cargo-fuzz
fi
corpus="$target/fuzz-corpus"
mkdir -p "$corpus/archive_inspector" "$corpus/skill_frontmatter"
# Seeds: small real archives (a valid skill, a zip-slip, a symlink, a nested skill) and
# SKILL.md files of the shapes real collections use.
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
    (out / "archive_inspector" / name).write_bytes(buf.getvalue())
skill = b"---\nname: seed\ndescription: A seed skill.\n---\n# Seed\n"
make("valid.zip", [("seed/SKILL.md", skill, 0o100644), ("seed/scripts/run.sh", b"#!/bin/sh\n", 0o100755)])
make("slip.zip", [("seed/SKILL.md", skill, 0o100644), ("seed/../evil", b"x", 0o100644)])
make("symlink.zip", [("seed/SKILL.md", skill, 0o100644), ("seed/link", b"/etc/passwd", 0o120777)])
make("nested.zip", [("seed/SKILL.md", skill, 0o100644), ("seed/x/SKILL.md", skill, 0o100644)])
md = {
    "plain.md": "---\nname: pdf\ndescription: Read PDFs.\n---\n# PDF\n",
    "capitals.md": "---\nname: Active Directory Attacks\ndescription: Spaces and capitals.\n---\nbody\n",
    "lists.md": "---\nname: lists\ndescription: d\nmetadata:\n  trigger-keywords: [a, b]\n---\n",
    "mapping.md": "---\nname: chart\ndescription: d\ncompatibility:\n  tools: [x]\nallowed-tools: Bash Read\n---\n",
    "quoted.md": "---\nname: \"quoted\"\ndescription: >\n  folded\n  text\nlicense: MIT\n---\n",
    "broken.md": "---\nname: [unclosed\n---\n",
    "bom.md": "\ufeff---\r\nname: crlf\r\ndescription: d\r\n---\r\n",
}
for name, text in md.items():
    (out / "skill_frontmatter" / name).write_text(text, encoding="utf-8")
PY
for fuzz_target in archive_inspector skill_frontmatter; do
  echo "fuzz: $fuzz_target for ${seconds}s"
  cargo fuzz run --fuzz-dir fuzz --target-dir "$target/fuzz" "$fuzz_target" \
    "$corpus/$fuzz_target" -- \
    -max_total_time="$seconds" -rss_limit_mb=1024 -max_len=65536 -print_final_stats=0
done
