# Run inside a sandbox container by `antler sandbox doctor`: what the image holds, as JSON.
# Standard library only (slim has nothing else); never imports what it checks, so a broken
# package cannot stop the report.
import importlib.util
import json
import os
import shutil
import subprocess

PROGRAMS = ["bash", "python3", "pip3", "node", "npm", "soffice", "pandoc", "pdftotext",
            "pdftoppm", "magick", "ffmpeg", "gs", "qpdf", "git", "curl", "jq", "sqlite3", "dot"]
PYTHON = ["numpy", "pandas", "scipy", "matplotlib", "PIL", "lxml", "defusedxml", "yaml",
          "openpyxl", "docx", "pptx", "pypdf", "pdfplumber", "pdf2image", "reportlab", "bs4",
          "requests", "jinja2", "markdown", "tabulate", "sympy", "networkx", "sklearn",
          "markitdown"]
NODE = ["docx", "pptxgenjs", "sharp"]
FONTS = {"latin": ":lang=en", "cjk": ":lang=zh", "emoji": ":charset=1f600"}
MANIFEST = "/usr/local/share/antler-sandbox/full-manifest.json"


def python_has(name):
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def node_has(name):
    dirs = [d for d in os.environ.get("NODE_PATH", "").split(":") if d]
    dirs += ["/usr/local/lib/node_modules", "/usr/lib/node_modules", "/usr/share/nodejs"]
    return any(os.path.isdir(os.path.join(d, name)) for d in dirs)


def font_families(pattern):
    if not shutil.which("fc-list"):
        return []
    try:
        out = subprocess.run(["fc-list", pattern, "family"], capture_output=True, text=True,
                             timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return sorted({line.split(",")[0].strip() for line in out.splitlines() if line.strip()})


def manifest():
    try:
        with open(MANIFEST, encoding="utf-8") as f:
            m = json.load(f)
    except (OSError, ValueError):
        return None
    missing, total = [], 0
    # Optional groups count only when the image was built with them (SANDBOX_EXTRAS).
    extras = set(os.environ.get("ANTLER_SANDBOX_EXTRAS", "").split())
    entries = list(m.get("debian_packages", {}).values()) + list(m.get("pip_packages", {}).values())
    entries += list(m.get("npm_global_packages", {}).values()) + list(m.get("shims", {}).values())
    for entry in entries:
        if entry.get("group") not in (None, *extras):
            continue
        for kind, check in (("python", python_has), ("programs", shutil.which), ("node", node_has)):
            for name in entry.get(kind, []):
                total += 1
                if not check(name):
                    missing.append(f"{kind}:{name}")
    return {"total": total, "missing": missing}


checks = [{"kind": "program", "name": p, "present": shutil.which(p) is not None} for p in PROGRAMS]
checks += [{"kind": "python", "name": p, "present": python_has(p)} for p in PYTHON]
checks += [{"kind": "node", "name": p, "present": node_has(p)} for p in NODE]
for name, pattern in FONTS.items():
    families = font_families(pattern)
    checks.append({"kind": "font", "name": name, "present": bool(families),
                   "detail": ", ".join(families[:3]) or None})
print(json.dumps({"checks": checks, "manifest": manifest()}))
