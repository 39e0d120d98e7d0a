#!/usr/bin/env python3
"""Prints what the full sandbox image installs, read from full-manifest.json (the one list the
coverage script checks skills against): `debian`, `pip`, `pip-constraints` or `npm`, one item
per line. Optional groups (browser, science) are left out unless named in SANDBOX_EXTRAS
(space-separated)."""

import json
import os
import sys
from pathlib import Path

KINDS = {"debian": "debian_packages", "pip": "pip_packages", "npm": "npm_global_packages"}


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in (*KINDS, "pip-constraints"):
        print(f"usage: packages.py {{{'|'.join([*KINDS, 'pip-constraints'])}}} MANIFEST",
              file=sys.stderr)
        return 2
    kind, manifest = sys.argv[1], json.loads(Path(sys.argv[2]).read_text())
    if kind == "pip-constraints":
        print("\n".join(manifest["pip_constraints"]["pins"]))
        return 0
    extras = set(os.environ.get("SANDBOX_EXTRAS", "").split())
    chosen = [name for name, entry in manifest[KINDS[kind]].items()
              if entry.get("group") is None or entry["group"] in extras]
    print("\n".join(chosen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
