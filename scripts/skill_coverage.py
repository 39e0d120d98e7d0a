#!/usr/bin/env python3
"""Measure how many skills' script dependencies a sandbox image provides.

A *skill* is a folder that contains a ``SKILL.md``.  A skill *ships scripts* when
script files (``.py``, ``.js``, ``.mjs``, ``.cjs``, ``.ts``, ``.sh``) sit anywhere
beneath it.  A script belongs to the nearest enclosing skill, so a skill nested
inside another skill is counted on its own.

For every skill that ships scripts this tool collects what the scripts need:

* Python imports (top-level module names, found with ``ast``), minus the standard
  library (``sys.stdlib_module_names``), relative imports, and modules that are
  files or packages inside the skill itself;
* Node packages from ``require()`` / ``import`` (not relative, not builtins);
* external programs: shebang interpreters, the implied interpreter of a script
  without one, commands run by shell scripts, and commands run from Python
  (``subprocess``, ``os.system`` ...) or JavaScript (``execSync``, ``spawn`` ...).

Things a script only *probes* for (an import inside ``try/except ImportError``,
``command -v X``, ``shutil.which("X")``) are recorded as optional and do not make
a skill fail.  Dependencies that a ``SKILL.md`` merely mentions ("pip install X")
are reported as secondary information and do not count either.

It then compares the requirements with a manifest of what the image provides
(see ``docker/sandbox/full-manifest.json``) and prints per-root and overall
coverage: the share of skills with scripts whose every required item is provided.

Usage::

    python3 scripts/skill_coverage.py --manifest docker/sandbox/full-manifest.json \
        [--json out.json] [--show-passing] [--include-tests] [--runnable-only] \
        [--with GROUP ...] [--no-waivers] ROOT [ROOT ...]

    # inside a built image: does it really provide what the manifest claims?
    python3 scripts/skill_coverage.py --manifest full-manifest.json --verify-here

Each ROOT is reported as its own group (a repository checkout, say).  A ROOT may be
written ``label=path`` to choose the group's name.  Scripts under tests/ (and
test_*.py ...) are ignored unless --include-tests; --runnable-only also ignores
templates/, assets/, examples/ and the like.  Manifest entries that carry a "group"
(optional add-ons) count only with --with GROUP.

The analysis is static and heuristic: it finds what scripts import or run, not
whether a given code path is ever taken, and not versions.  Standard library only,
Python 3.11+.
"""

from __future__ import annotations

import argparse
import ast
import collections
import hashlib
import json
import os
import re
import sys
from dataclasses import dataclass, field

# --------------------------------------------------------------------------------------
# Discovery
# --------------------------------------------------------------------------------------

SCRIPT_EXTENSIONS = (".py", ".js", ".mjs", ".cjs", ".ts", ".sh")

# Folders never descended into: VCS data, installed dependencies, caches.
SKIPPED_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache"}

# Folders and file names that hold tests.  Agents do not run a skill's tests, so by
# default their imports (pytest ...) are not counted; --include-tests counts them.
TEST_DIRS = {"tests", "test", "__tests__", "testing"}
TEST_FILE_RE = re.compile(
    r"(^test_.*\.py$)|(_test\.py$)|(^conftest\.py$)|(\.(test|spec)\.(js|mjs|cjs|ts)$)"
)

# Folders whose scripts are material the skill hands to the user (project templates,
# examples, benchmarks) rather than tools the agent runs.  Counted by default, as the
# brief defines "ships scripts" as "anywhere beneath"; --runnable-only leaves them out.
NON_RUNNABLE_DIRS = {
    "templates", "template", "assets", "examples", "example", "benchmarks",
    "benchmark", "fixtures", "evals", "references", "reference", "demo", "samples",
}


def find_skills(root: str) -> dict[str, list[str]]:
    """Return {skill_dir: [script paths relative to skill_dir]} for one root."""
    skill_dirs: set[str] = set()
    scripts: list[str] = []
    for current, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        if "SKILL.md" in files:
            skill_dirs.add(current)
        scripts.extend(os.path.join(current, f) for f in files if f.endswith(SCRIPT_EXTENSIONS))
    result: dict[str, list[str]] = {d: [] for d in skill_dirs}
    for path in sorted(scripts):
        # Walk up to the nearest folder that holds a SKILL.md.
        parent = os.path.dirname(path)
        while parent not in skill_dirs:
            up = os.path.dirname(parent)
            if up == parent or not parent.startswith(root):
                parent = None
                break
            parent = up
        if parent is not None:
            result[parent].append(os.path.relpath(path, parent))
    return result


def is_test_path(rel: str) -> bool:
    parts = rel.split(os.sep)
    return any(p in TEST_DIRS for p in parts[:-1]) or bool(TEST_FILE_RE.search(parts[-1]))


def is_non_runnable_path(rel: str) -> bool:
    return any(p.lower() in NON_RUNNABLE_DIRS for p in rel.split(os.sep)[:-1])


def local_python_modules(skill_dir: str) -> set[str]:
    """Names importable from inside the skill: every .py stem and every folder name
    (scripts put their own folders on sys.path and import "pkg.sub.module" from them,
    and a folder need not hold an __init__.py to be a namespace package)."""
    names: set[str] = set()
    for current, dirs, files in os.walk(skill_dir):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS]
        names.update(dirs)
        for f in files:
            if f.endswith((".py", ".pyi", ".so")):
                names.add(f.split(".")[0])
    return names


# --------------------------------------------------------------------------------------
# Requirements of one skill
# --------------------------------------------------------------------------------------


@dataclass
class Needs:
    """What a skill needs.  Each dict maps an item to the first file that needs it."""

    python: dict[str, str] = field(default_factory=dict)
    node: dict[str, str] = field(default_factory=dict)
    programs: dict[str, str] = field(default_factory=dict)
    optional_python: dict[str, str] = field(default_factory=dict)
    optional_node: dict[str, str] = field(default_factory=dict)
    optional_programs: dict[str, str] = field(default_factory=dict)
    declared: set[str] = field(default_factory=set)  # from SKILL.md, informational
    parse_errors: list[str] = field(default_factory=list)
    shell_functions: set[str] = field(default_factory=set)  # defined by the skill's .sh files

    def add(self, kind: str, name: str, where: str, optional: bool = False) -> None:
        table = getattr(self, ("optional_" if optional else "") + kind)
        table.setdefault(name, where)

    def finish(self) -> None:
        """An item both required and optional somewhere is simply required."""
        for kind in ("python", "node", "programs"):
            required = getattr(self, kind)
            optional = getattr(self, "optional_" + kind)
            for name in list(optional):
                if name in required:
                    del optional[name]


# ---- Node ----------------------------------------------------------------------------

# Node's builtin modules (Node 18/20), usable with or without the "node:" prefix.
NODE_BUILTINS = {
    "assert", "assert/strict", "async_hooks", "buffer", "child_process", "cluster",
    "console", "constants", "crypto", "dgram", "diagnostics_channel", "dns",
    "dns/promises", "domain", "events", "fs", "fs/promises", "http", "http2", "https",
    "inspector", "module", "net", "os", "path", "path/posix", "path/win32",
    "perf_hooks", "process", "punycode", "querystring", "readline",
    "readline/promises", "repl", "stream", "stream/consumers", "stream/promises",
    "stream/web", "string_decoder", "sys", "timers", "timers/promises", "tls",
    "trace_events", "tty", "url", "util", "util/types", "v8", "vm", "wasi",
    "worker_threads", "zlib", "test", "sqlite",
}


def node_package_name(spec: str) -> str | None:
    """Map an import specifier to the npm package it needs, or None when it needs none
    (relative path, builtin, URL, path alias)."""
    spec = spec.strip()
    if not spec or spec.startswith((".", "/", "~", "#", "http:", "https:", "file:", "data:")):
        return None
    if spec.startswith(("node:", "bun:")):
        return None
    if spec.startswith("@/") or spec.startswith("$"):  # bundler path aliases
        return None
    if spec.startswith("npm:"):
        spec = spec[4:]
    if spec.startswith("jsr:"):
        spec = spec[4:]
    if spec in NODE_BUILTINS:
        return None
    parts = spec.split("/")
    if spec.startswith("@"):
        if len(parts) < 2:
            return None
        name = "/".join(parts[:2])
    else:
        name = parts[0]
    # Strip a version suffix such as "pkg@1.2" (deno/npx style).
    at = name.find("@", 1)
    if at > 0:
        name = name[:at]
    if not re.fullmatch(r"(@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*", name, re.I):
        return None
    if name.startswith("@types/"):
        return None  # type declarations only: never loaded at run time
    return name


def strip_js_comments(src: str) -> str:
    """Blank out // and /* */ comments, leaving string literals alone."""
    out: list[str] = []
    i, n = 0, len(src)
    quote: str | None = None
    while i < n:
        c = src[i]
        if quote:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(src[i + 1])
                i += 2
                continue
            if c == quote:
                quote = None
            i += 1
            continue
        if c in "'\"`":
            quote = c
            out.append(c)
            i += 1
        elif src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            # keep newlines so that nothing else shifts lines
            chunk = src[i: n if j < 0 else j + 2]
            out.append("\n" * chunk.count("\n"))
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


JS_IMPORT_PATTERNS = [
    # import x from 'y' / import {a} from "y" / export * from 'y'  (not "import type")
    re.compile(r"""(?:^|[;\s])(?:import|export)\s+(?!type\s)[\w*{}\s,$]*?\bfrom\s*['"]([^'"\n]+)['"]""", re.M),
    # import 'side-effect'
    re.compile(r"""(?:^|[;\s])import\s*['"]([^'"\n]+)['"]""", re.M),
    # require('x'), require.resolve('x')
    re.compile(r"""\brequire(?:\.resolve)?\s*\(\s*['"]([^'"\n]+)['"]\s*\)"""),
    # dynamic import('x')
    re.compile(r"""\bimport\s*\(\s*['"]([^'"\n]+)['"]\s*\)"""),
]

# child_process / execa / zx style calls whose first string argument is a command.
JS_EXEC_RE = re.compile(
    r"""\b(execSync|exec|execFileSync|execFile|spawnSync|spawn|execa|execaSync|execaCommand|"""
    r"""execaCommandSync|Bun\.spawn|Bun\.spawnSync|Deno\.Command)\s*\(\s*(\[\s*)?(['"`])((?:(?!\3).)*)\3""",
    re.S,
)
# Bun shell / zx:  $`cmd args`
JS_TEMPLATE_SHELL_RE = re.compile(r"""(?<![\w$.])\$`([^`]*)`""")


def scan_js(text: str, where: str, needs: Needs, skill_files: set[str]) -> None:
    code = strip_js_comments(text)
    for pattern in JS_IMPORT_PATTERNS:
        for m in pattern.finditer(code):
            name = node_package_name(m.group(1))
            if name and name not in skill_files:
                needs.add("node", name, where)
    for m in JS_EXEC_RE.finditer(code):
        command = m.group(4)
        if m.group(2) or m.group(1) in ("execFile", "execFileSync", "spawn", "spawnSync", "Deno.Command"):
            # program name only (argument list follows separately)
            add_program(command.strip().split(" ")[0] if command.strip() else "", where, needs)
        else:
            scan_shell_text(command, where, needs, skill_files, set())
    for m in JS_TEMPLATE_SHELL_RE.finditer(code):
        scan_shell_text(m.group(1), where, needs, skill_files, set())


# ---- Programs ------------------------------------------------------------------------

# Bash builtins and keywords: never external programs.
SHELL_BUILTINS = {
    "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command", "compgen",
    "complete", "compopt", "continue", "declare", "dirs", "disown", "echo", "enable",
    "eval", "exec", "exit", "export", "false", "fc", "fg", "getopts", "hash", "help",
    "history", "jobs", "kill", "let", "local", "logout", "mapfile", "popd", "printf",
    "pushd", "pwd", "read", "readarray", "readonly", "return", "set", "shift", "shopt",
    "source", "suspend", "test", "times", "trap", "true", "type", "typeset", "ulimit",
    "umask", "unalias", "unset", "wait", ".", ":", "[", "[[", "]]", "]", "!", "{", "}",
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while",
    "until", "do", "done", "in", "function", "time", "coproc",
}

# Words that run the *next* word as the program (after their own options).
COMMAND_PREFIXES = {"sudo", "exec", "env", "nohup", "nice", "time", "timeout", "xargs",
                    "stdbuf", "setsid", "unbuffer", "command", "builtin", "then", "do",
                    "else", "if", "while", "until", "!", "elif", "{", "doas"}

# Commands whose argument names a program that is only being looked for.
PROBE_COMMANDS = {"which", "type", "hash", "whereis"}

# Programs of other platforms (macOS, Windows, other Linux distributions, GPU vendors'
# tools).  Scripts call them in OS- or hardware-specific branches with a Linux path
# beside them, so they count as optional.
PLATFORM_SPECIFIC = {
    "gtimeout", "gdate", "gsed", "greadlink", "gstat", "vm_stat", "sips", "system_profiler",
    "osascript", "pbcopy", "pbpaste", "open", "sw_vers", "defaults", "launchctl", "diskutil",
    "pagesize", "brew", "mdfind", "caffeinate", "say", "afplay", "screencapture", "xcrun",
    "dnf", "yum", "pacman", "apk", "zypper", "choco", "winget", "scoop", "powershell",
    "pwsh", "cmd", "clip", "wslpath", "xdg-open", "nvidia-smi", "rocm-smi",
}

PROGRAM_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")

# Interpreters: "python3 -m X" needs module X; "npx X" needs package X.
PYTHON_NAMES = {"python", "python3", "python3.11", "python3.12", "py"}


def add_program(word: str, where: str, needs: Needs, optional: bool = False) -> None:
    """Record an external program, normalising /usr/bin/x to x.  Ignores paths into the
    skill (./x, scripts/x), variables, and anything that is not a plain command name."""
    if not word or "$" in word or "=" in word or word.startswith(("-", "./", "../", "~")):
        return
    if "__VALUE__" in word or "__SUBST__" in word:
        return  # computed at run time (an f-string value, a command substitution)
    if "/" in word:
        if not word.startswith("/"):
            return  # relative path: a file of the skill or of the user's project
        word = word.rsplit("/", 1)[1]
    if not PROGRAM_NAME_RE.fullmatch(word) or word in SHELL_BUILTINS:
        return
    if word in PLATFORM_SPECIFIC:
        optional = True  # another OS's tool: scripts branch around it
    if word.endswith((".sh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl")):
        return  # a script run by name: the skill's own file
    needs.add("programs", word, where, optional)


class ShellReader:
    """A small shell tokenizer: turns shell source into simple commands (lists of words,
    quotes removed).  It understands quoting, comments, $( ) and ` ` command
    substitution (read as commands of their own), arithmetic $(( )) and (( )),
    ${ } expansions, redirections (their targets are not words), here-documents
    (their bodies are not commands) and case patterns.  It is not a full shell
    parser; it only needs to find command names reliably."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)
        self.commands: list[list[str]] = []
        # (words of the command that owns it, body) for every here-document
        self.heredocs: list[tuple[list[str], str]] = []

    # -- helpers ------------------------------------------------------------------
    def closing(self, i: int, opener: str = "(", closer: str = ")") -> int:
        """Index of the bracket closing the one opened just before i (quotes skipped)."""
        depth, text = 1, self.text
        while i < self.n:
            c = text[i]
            if c == "\\":
                i += 2
                continue
            if c in "'\"":
                j = text.find(c, i + 1)
                i = self.n if j < 0 else j + 1
                continue
            if c == opener:
                depth += 1
            elif c == closer:
                depth -= 1
                if depth == 0:
                    return i
            i += 1
        return self.n

    def sub_commands(self, inner: str) -> None:
        reader = ShellReader(inner)
        reader.read()
        self.commands.extend(reader.commands)
        self.heredocs.extend(reader.heredocs)

    # -- main loop ----------------------------------------------------------------
    def read(self) -> None:
        text, n = self.text, self.n
        words: list[str] = []
        word: list[str] = []
        state = {"has": False, "discard": False, "pattern": False, "case": 0}
        pending_heredocs: list[tuple[str, bool]] = []

        def end_word() -> None:
            nonlocal word
            if state["has"]:
                w = "".join(word)
                if state["discard"]:
                    state["discard"] = False
                elif state["pattern"] and not words and w == "esac":
                    state["pattern"] = False
                    state["case"] -= 1
                elif words and words[0] == "case" and w == "in":
                    # "case WORD in": patterns come next
                    state["case"] += 1
                    state["pattern"] = True
                    words.clear()
                    word = []
                    state["has"] = False
                    return
                else:
                    words.append(w)
            word = []
            state["has"] = False

        def end_command() -> None:
            nonlocal words
            end_word()
            if words:
                if words[0] == "esac":
                    state["case"] = max(0, state["case"] - 1)
                self.commands.append(words)
            words = []

        i = 0
        while i < n:
            c = text[i]
            if c == "\\":
                if i + 1 < n and text[i + 1] != "\n":
                    word.append(text[i + 1])
                    state["has"] = True
                i += 2
            elif c == "'":
                j = text.find("'", i + 1)
                j = n if j < 0 else j
                word.append(text[i + 1: j])
                state["has"] = True
                i = j + 1
            elif c == '"':
                i = self.read_double_quoted(i + 1, word)
                state["has"] = True
            elif text.startswith("$((", i):
                j = text.find("))", i)
                i = n if j < 0 else j + 2
                word.append("0")
                state["has"] = True
            elif text.startswith("((", i) and not state["has"]:
                # arithmetic command (( i++ )): no program
                j = text.find("))", i)
                i = n if j < 0 else j + 2
            elif c == "(" and state["has"] and word and word[-1] == "=":
                # array assignment name=( a b c ): values, not commands
                j = self.closing(i + 1)
                word.append("()")
                i = j + 1
            elif text.startswith("$(", i) or (c in "<>" and text.startswith("(", i + 1)):
                j = self.closing(i + 2)
                self.sub_commands(text[i + 2: j])
                word.append("__SUBST__")
                state["has"] = True
                i = j + 1
            elif text.startswith("${", i):
                j = self.closing(i + 2, "{", "}")
                word.append("${}")
                state["has"] = True
                i = j + 1
            elif c == "`":
                j = text.find("`", i + 1)
                j = n if j < 0 else j
                self.sub_commands(text[i + 1: j])
                word.append("__SUBST__")
                state["has"] = True
                i = j + 1
            elif c == "#" and not state["has"]:
                j = text.find("\n", i)
                i = n if j < 0 else j
            elif c in "<>" or (c == "&" and text.startswith(">", i + 1)):
                if state["has"] and "".join(word).isdigit():
                    word, state["has"] = [], False  # a file descriptor number (2>&1)
                end_word()
                if text.startswith("<<", i) and not text.startswith("<<<", i):
                    m = re.match(r"<<(-?)\s*(['\"]?)([^\s'\";&|<>()]+)\2", text[i:])
                    if m:
                        pending_heredocs.append((m.group(3), bool(m.group(1))))
                        i += m.end()
                        continue
                while i < n and text[i] in "<>&|":
                    i += 1
                if text[i - 1] == "&" or (i < n and text[i] == "&"):
                    while i < n and (text[i] in "&-" or text[i].isdigit()):
                        i += 1
                else:
                    state["discard"] = True  # the next word is the redirection target
            elif state["pattern"] and c in "|(\n\t ;":
                # inside a case pattern such as "a|b)": not a command
                if c in " \t\n":
                    end_word()
                i += 1
            elif state["pattern"] and c == ")":
                words.clear()
                word, state["has"], state["pattern"] = [], False, False
                i += 1
            elif c == "\n":
                end_command()
                i += 1
                if pending_heredocs:
                    i = self.skip_heredocs(i, pending_heredocs)
                    pending_heredocs = []
            elif c in ";&|()":
                if state["case"] and text.startswith(";;", i):
                    end_command()
                    state["pattern"] = True
                    i += 3 if text.startswith(";;&", i) else 2
                    continue
                end_command()
                i += 1
            elif c in " \t\r":
                end_word()
                i += 1
            else:
                word.append(c)
                state["has"] = True
                i += 1
        end_command()

    def read_double_quoted(self, i: int, word: list[str]) -> int:
        """Read a double-quoted string starting after its quote; substitutions inside it
        are read as commands.  Returns the index after the closing quote."""
        text, n = self.text, self.n
        while i < n and text[i] != '"':
            if text[i] == "\\":
                word.append(text[i + 1: i + 2])
                i += 2
            elif text.startswith("$((", i):
                j = text.find("))", i)
                i = n if j < 0 else j + 2
                word.append("0")
            elif text.startswith("$(", i):
                j = self.closing(i + 2)
                self.sub_commands(text[i + 2: j])
                word.append("__SUBST__")
                i = j + 1
            elif text[i] == "`":
                j = text.find("`", i + 1)
                j = n if j < 0 else j
                self.sub_commands(text[i + 1: j])
                word.append("__SUBST__")
                i = j + 1
            else:
                word.append(text[i])
                i += 1
        return i + 1

    def skip_heredocs(self, i: int, pending: list[tuple[str, bool]]) -> int:
        """Skip the bodies of the here-documents opened on the line just ended."""
        owner = self.commands[-1] if self.commands else []
        for delimiter, _strip_tabs in pending:
            body: list[str] = []
            while i < self.n:
                j = self.text.find("\n", i)
                j = self.n if j < 0 else j
                line = self.text[i:j]
                i = j + 1
                if line.strip() == delimiter:
                    break
                body.append(line)
            self.heredocs.append((owner, "\n".join(body)))
        return i


FUNCTION_DEF_RE = re.compile(
    r"^\s*(?:function\s+)?([A-Za-z_][\w:.-]*)\s*\(\s*\)|^\s*function\s+([A-Za-z_][\w:.-]*)", re.M)


def shell_functions(text: str) -> set[str]:
    return {a or b for a, b in FUNCTION_DEF_RE.findall(text)}


def scan_shell_text(text: str, where: str, needs: Needs, skill_files: set[str],
                    local_modules: set[str]) -> None:
    """Find the programs a piece of shell code runs."""
    functions = needs.shell_functions | shell_functions(text)
    reader = ShellReader(text)
    reader.read()
    for words in reader.commands:
        scan_simple_command(words, where, needs, functions, skill_files)
    for owner, body in reader.heredocs:
        # Python fed to an interpreter through a here-document: read its imports.
        if any(os.path.basename(w) in PYTHON_NAMES for w in owner):
            scan_python_source(body, where, needs, local_modules, skill_files)


def scan_simple_command(words: list[str], where: str, needs: Needs, functions: set[str],
                        skill_files: set[str]) -> None:
    # Drop leading variable assignments (FOO=bar cmd) and prefixes (sudo, env, ...).
    k = 0
    while k < len(words):
        w = words[k]
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=.*", w, re.S):
            k += 1
            continue
        if w == "command" and k + 1 < len(words) and words[k + 1] in ("-v", "-V"):
            for probe in words[k + 2:]:
                add_program(probe, where, needs, optional=True)
            return
        if w in COMMAND_PREFIXES:
            k += 1
            # skip the prefix's own options (and timeout's duration, xargs -n 1 ...)
            while k < len(words) and (words[k].startswith("-") or (w == "timeout" and re.fullmatch(r"[\d.]+[smhd]?", words[k]))):
                k += 1
            continue
        break
    if k >= len(words):
        return
    words = words[k:]
    name = words[0]
    if name in ("for", "select", "case", "function", "[[", "[", "test", "export", "local",
                "declare", "readonly", "typeset", "let", "echo", "printf", "trap"):
        return  # the rest of these lines are not commands
    if name in functions or name == "__SUBST__":
        return
    if name in PROBE_COMMANDS:
        if name in ("which", "whereis"):
            needs.add("programs", name, where, optional=True)
        for probe in words[1:]:
            if not probe.startswith("-"):
                add_program(probe, where, needs, optional=True)
        return
    base = os.path.basename(name)
    if name.startswith("/") or "/" not in name:
        add_program(name, where, needs)
    # Interpreters with a module or package argument.
    args = words[1:]
    if base in PYTHON_NAMES and len(args) >= 2 and args[0] == "-m":
        module = args[1].split(".")[0]
        if module and module not in sys.stdlib_module_names:
            needs.add("python", module, where)
    elif base in ("pip", "pip3") or (base in PYTHON_NAMES and args[:2] == ["-m", "pip"]):
        pass  # install steps: the packages show up as imports where they are used
    elif base in ("npx", "pnpx", "bunx"):
        rest = [a for a in args if not a.startswith("-")]
        if "-p" in args or "--package" in args:
            idx = args.index("-p") if "-p" in args else args.index("--package")
            rest = args[idx + 1: idx + 2]
        if rest:
            pkg = node_package_name(rest[0])
            if pkg:
                needs.add("node", pkg, where)
    elif base in ("pnpm", "yarn", "bun") and args[:1] == ["dlx"] and len(args) > 1:
        pkg = node_package_name(args[1])
        if pkg:
            needs.add("node", pkg, where)


def scan_shell_file(text: str, where: str, needs: Needs, skill_files: set[str],
                    local_modules: set[str]) -> None:
    scan_shell_text(text, where, needs, skill_files, local_modules)


def shebang_program(first_line: str) -> str | None:
    """The interpreter named by a shebang line (#!/usr/bin/env -S uv run -> uv)."""
    if not first_line.startswith("#!"):
        return None
    words = first_line[2:].split()
    if not words:
        return None
    prog = os.path.basename(words[0])
    if prog == "env":
        rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        return os.path.basename(rest[0]) if rest else None
    return prog


# ---- Python --------------------------------------------------------------------------

# subprocess / os functions whose first argument is a command to run.
PY_RUN_FUNCS = {"run", "call", "check_call", "check_output", "Popen", "getoutput",
                "getstatusoutput", "system", "popen", "execvp", "execlp", "execv", "execl",
                "spawnlp", "spawnvp", "create_subprocess_exec", "create_subprocess_shell"}
PY_SHELL_FUNCS = {"system", "popen", "getoutput", "getstatusoutput", "create_subprocess_shell"}
IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def handler_catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(t, ast.Name) and t.id in IMPORT_ERRORS
               or isinstance(t, ast.Attribute) and t.attr in IMPORT_ERRORS for t in types)


def optional_import_nodes(tree: ast.AST) -> set[int]:
    """ids of import statements that are guarded: inside a try whose handlers catch
    ImportError, or under ``if TYPE_CHECKING``."""
    guarded: set[int] = set()
    for node in ast.walk(tree):
        bodies = []
        if isinstance(node, ast.Try) and any(handler_catches_import_error(h) for h in node.handlers):
            bodies = node.body
        elif isinstance(node, ast.If):
            test = node.test
            if (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
                    isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"):
                bodies = node.body
        for stmt in bodies:
            for inner in ast.walk(stmt):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    guarded.add(id(inner))
    return guarded


def literal_command_words(node: ast.AST, lists: dict[str, list[ast.AST]]) -> tuple[str | None, bool]:
    """First word of a command argument, and whether it is a whole shell string.
    Handles ["prog", ...], "prog args", f"prog {x}", and a name bound to a list literal."""
    if isinstance(node, ast.Name) and node.id in lists:
        for candidate in lists[node.id]:
            word, shell = literal_command_words(candidate, {})
            if word:
                return word, shell
        return None, False
    if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
        first = node.elts[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value, False
        if isinstance(first, ast.Attribute) and first.attr == "executable":
            return "python3", False  # sys.executable
        return None, False
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, True
    if isinstance(node, ast.JoinedStr):
        text = "".join(v.value if isinstance(v, ast.Constant) else " __VALUE__ " for v in node.values)
        return text, True
    if isinstance(node, ast.BinOp) and isinstance(node.left, (ast.List, ast.Constant)):
        return literal_command_words(node.left, lists)
    return None, False


def call_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def is_run_call(call: ast.Call) -> bool:
    """subprocess.run(...), os.system(...), or a bare run(...) imported from them."""
    name = call_name(call)
    if name not in PY_RUN_FUNCS:
        return False
    func = call.func
    if isinstance(func, ast.Attribute):
        owner = func.value
        owner_name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else ""
        return owner_name in ("subprocess", "os", "asyncio", "sp", "commands")
    return True


def find_wrappers(tree: ast.AST) -> dict[str, int]:
    """Functions that pass one of their parameters on as the command of a subprocess
    call (def _run_git(args): subprocess.run(args, ...)), mapped to that parameter's
    position, so that _run_git(["git", "clone", ...]) counts as running git.  Two
    rounds catch a wrapper of a wrapper."""
    wrappers: dict[str, int] = {}
    functions = [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for _ in range(2):
        for fn in functions:
            params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
            for call in ast.walk(fn):
                if not (isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.Name)):
                    continue
                if call.args[0].id in params and (is_run_call(call) or call_name(call) in wrappers):
                    index = params.index(call.args[0].id)
                    if params[0] in ("self", "cls"):
                        index -= 1  # called as self.method(...)
                    if index >= 0:
                        wrappers.setdefault(fn.name, index)
    return wrappers


IMPORT_LINE_RE = re.compile(r"^\s*(?:from\s+([A-Za-z_][\w.]*)\s+import\b|import\s+([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*))", re.M)


def scan_python_source(text: str, where: str, needs: Needs, local_modules: set[str],
                       skill_files: set[str]) -> None:
    def add_module(name: str, optional: bool = False) -> None:
        top = name.split(".")[0]
        if not top or top == "__future__" or top in sys.stdlib_module_names or top in local_modules:
            return
        needs.add("python", top, where, optional)

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        # Newer syntax than this Python (or a template with placeholders): fall back to
        # reading import lines with a regular expression.
        needs.parse_errors.append(where)
        for m in IMPORT_LINE_RE.finditer(text):
            if m.group(1):
                add_module(m.group(1))
            else:
                for part in m.group(2).split(","):
                    add_module(part.strip())
        return

    guarded = optional_import_nodes(tree)
    wrappers = find_wrappers(tree)
    # name = [ ... ] bindings, so that subprocess.run(cmd) can be followed to its list.
    lists: dict[str, list[ast.AST]] = collections.defaultdict(list)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.List, ast.Tuple, ast.Constant, ast.JoinedStr)):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    lists[target.id].append(node.value)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add_module(alias.name, id(node) in guarded)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                add_module(node.module, id(node) in guarded)
        elif isinstance(node, ast.Call):
            func = node.func
            fname = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if fname in ("import_module", "__import__") and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    add_module(arg.value, optional=True)  # usually a feature probe
            elif fname == "which" and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    add_program(arg.value, where, needs, optional=True)
            elif is_run_call(node) and node.args:
                word, shell = literal_command_words(node.args[0], lists)
                if not word:
                    continue
                use_shell = shell and (fname in PY_SHELL_FUNCS or any(
                    k.arg == "shell" and isinstance(k.value, ast.Constant) and k.value.value for k in node.keywords))
                if use_shell:
                    scan_shell_text(word, where, needs, skill_files, local_modules)
                else:
                    prog = word.split()[0] if shell and word.split() else word
                    add_program(prog, where, needs)
            elif fname in wrappers and len(node.args) > wrappers[fname]:
                word, shell = literal_command_words(node.args[wrappers[fname]], lists)
                if word and word.split():
                    add_program(word.split()[0] if shell else word, where, needs)


def scan_python_file(text: str, where: str, needs: Needs, local_modules: set[str],
                     skill_files: set[str]) -> None:
    scan_python_source(text, where, needs, local_modules, skill_files)


# ---- SKILL.md (secondary information) -------------------------------------------------

# An install command at the start of a line (shell prompt "$ ", notebook "!", list dash
# allowed) or right after a backtick: prose that merely mentions pip is not matched.
DECLARED_RE = re.compile(
    r"(?:^[ \t]*(?:[-*][ \t]+)?(?:\$[ \t]*|![ \t]*)?|`)"
    r"((?:uv[ \t]+)?pip3?[ \t]+install|npm[ \t]+(?:install|i)|apt(?:-get)?[ \t]+install|brew[ \t]+install)"
    r"[ \t]+([^\n`|;&#]+)", re.M)
PACKAGE_WORD_RE = re.compile(r"@?[A-Za-z0-9][A-Za-z0-9._/-]*")


def declared_dependencies(skill_md: str) -> set[str]:
    """Package names a SKILL.md tells the reader to install (informational only)."""
    found: set[str] = set()
    for m in DECLARED_RE.finditer(skill_md):
        kind = m.group(1).split()[0]
        kind = {"uv": "pip", "pip3": "pip", "apt-get": "apt"}.get(kind, kind)
        for word in m.group(2).split():
            word = word.strip("\"'")
            if word.startswith("-") or word in ("install", "-y"):
                continue
            word = re.split(r"[<>=!~\[]", word)[0].rstrip(".,")
            if word.endswith(".txt") or not PACKAGE_WORD_RE.fullmatch(word):
                continue
            found.add(f"{kind}:{word}")
    return found


# ---- One skill -----------------------------------------------------------------------


def read_text(path: str) -> str:
    with open(path, "rb") as f:
        data = f.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def analyse_skill(skill_dir: str, scripts: list[str]) -> Needs:
    needs = Needs()
    local_modules = local_python_modules(skill_dir)
    skill_files = {os.path.splitext(os.path.basename(s))[0] for s in scripts}
    # Shell functions defined anywhere in the skill (scripts source each other).
    for rel in scripts:
        if rel.endswith(".sh"):
            needs.shell_functions |= shell_functions(read_text(os.path.join(skill_dir, rel)))
    for rel in scripts:
        text = read_text(os.path.join(skill_dir, rel))
        first = text.split("\n", 1)[0]
        interpreter = shebang_program(first)
        ext = os.path.splitext(rel)[1]
        if interpreter:
            add_program(interpreter, rel, needs)
        elif ext == ".py":
            add_program("python3", rel, needs)
        elif ext in (".js", ".mjs", ".cjs"):
            add_program("node", rel, needs)
        elif ext == ".sh":
            add_program("bash", rel, needs)
        # .ts without a shebang: its runner is named by the skill's instructions
        # (npx tsx, bun, deno ...); those show up when a script invokes them.
        if ext == ".py" or interpreter in PYTHON_NAMES:
            scan_python_file(text, rel, needs, local_modules, skill_files)
        elif ext in (".js", ".mjs", ".cjs", ".ts"):
            scan_js(text, rel, needs, skill_files)
        else:
            scan_shell_file(text, rel, needs, skill_files, local_modules)
    skill_md = os.path.join(skill_dir, "SKILL.md")
    if os.path.exists(skill_md):
        needs.declared = declared_dependencies(read_text(skill_md))
    needs.finish()
    return needs


# --------------------------------------------------------------------------------------
# Manifest
# --------------------------------------------------------------------------------------


@dataclass
class Provided:
    python: set[str]
    node: set[str]
    programs: set[str]
    # kind -> {item: reason}: items deliberately left out of the image because the
    # skills only need them in situations that do not arise in Antler's sandbox.
    waived: dict[str, dict[str, str]]


MANIFEST_SECTIONS = ("debian_packages", "pip_packages", "npm_global_packages", "shims")


def load_manifest(path: str, groups: set[str], use_waivers: bool = True) -> Provided:
    """Flatten the manifest.  Each package entry lists the python modules ("python"),
    node packages ("node") and programs ("programs") it provides; "base" lists what the
    slim base image already has.  An entry with a "group" counts only when that group
    is selected with --with (optional add-ons such as a browser)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    python: set[str] = set()
    node: set[str] = set()
    programs: set[str] = set()
    entries = [data.get("base", {})]
    for key in MANIFEST_SECTIONS:
        entries.extend(data.get(key, {}).values())
    for entry in entries:
        if entry.get("group") and entry["group"] not in groups:
            continue
        python.update(entry.get("python", []))
        node.update(entry.get("node", []))
        programs.update(entry.get("programs", []))
    waived = data.get("waived", {}) if use_waivers else {}
    return Provided(python, node, programs, waived)


def manifest_groups(path: str) -> set[str]:
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    return {e["group"] for key in MANIFEST_SECTIONS for e in data.get(key, {}).values() if e.get("group")}


def missing_items(needs: Needs, provided: Provided) -> tuple[list[str], list[str]]:
    """(missing items, waived items) of one skill, as "py:x", "node:x", "bin:x"."""
    missing: list[str] = []
    waived: list[str] = []
    for kind, have, label in (("python", provided.python, "py"), ("node", provided.node, "node"),
                              ("programs", provided.programs, "bin")):
        for name in sorted(getattr(needs, kind)):
            if name in have:
                continue
            if name in provided.waived.get(kind, {}):
                waived.append(f"{label}:{name}")
            else:
                missing.append(f"{label}:{name}")
    return missing, waived


# --------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------


def content_key(skill_dir: str, scripts: list[str]) -> str:
    """Hash of a skill's scripts, to spot the same skill copied between collections."""
    h = hashlib.sha256()
    for rel in sorted(scripts):
        h.update(rel.encode())
        with open(os.path.join(skill_dir, rel), "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()[:16]


def verify_here(manifest: str, groups: set[str]) -> int:
    """Check, inside a built image, that everything the manifest claims is really there:
    each Python module imports (in a fresh interpreter), each program is on PATH, and
    each Node package resolves from a neutral directory.  Returns the number missing."""
    import shutil
    import subprocess

    provided = load_manifest(manifest, groups, use_waivers=False)
    bad: list[str] = []
    for module in sorted(provided.python):
        proc = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True)
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["?"])[-1]
            bad.append(f"py:{module}  ({last})")
    for program in sorted(provided.programs):
        if shutil.which(program) is None:
            bad.append(f"bin:{program}")
    for package in sorted(provided.node):
        proc = subprocess.run(["node", "-e", f"require.resolve({json.dumps(package)})"],
                              capture_output=True, text=True, cwd="/")
        if proc.returncode != 0:
            bad.append(f"node:{package}")
    total = len(provided.python) + len(provided.programs) + len(provided.node)
    print(f"verified {total - len(bad)} of {total} manifest items in this environment")
    for item in bad:
        print(f"  MISSING {item}")
    return len(bad)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="*", help="skill roots: PATH or LABEL=PATH")
    parser.add_argument("--manifest", required=True, help="JSON manifest of what the image provides")
    parser.add_argument("--json", help="also write per-skill results to this JSON file")
    parser.add_argument("--show-passing", action="store_true", help="list passing skills too")
    parser.add_argument("--include-tests", action="store_true",
                        help="count scripts in tests/ and test_*.py files (default: ignored)")
    parser.add_argument("--runnable-only", action="store_true",
                        help="ignore scripts under templates/, assets/, examples/, benchmarks/ ...")
    parser.add_argument("--with", dest="groups", action="append", default=[], metavar="GROUP",
                        help="also count manifest entries of this optional group (repeatable; 'all' for every group)")
    parser.add_argument("--no-waivers", action="store_true",
                        help="treat the manifest's waived items as missing")
    parser.add_argument("--top", type=int, default=40, help="how many common missing items to list")
    parser.add_argument("--verify-here", action="store_true",
                        help="instead of measuring skills, check that this machine (run it inside "
                             "the built image) really provides every manifest item")
    args = parser.parse_args(argv)

    groups = set(args.groups)
    if "all" in groups:
        groups = manifest_groups(args.manifest)
    if args.verify_here:
        return 1 if verify_here(args.manifest, groups) else 0
    if not args.roots:
        parser.error("give at least one skill root (or --verify-here)")
    provided = load_manifest(args.manifest, groups, use_waivers=not args.no_waivers)
    results = []
    for spec in args.roots:
        label, _, path = spec.rpartition("=") if "=" in spec else ("", "", spec)
        path = os.path.normpath(path)
        label = label or os.path.basename(path.rstrip("/")) or path
        for skill_dir, scripts in sorted(find_skills(path).items()):
            kept = [s for s in scripts
                    if (args.include_tests or not is_test_path(s))
                    and not (args.runnable_only and is_non_runnable_path(s))]
            if not kept:
                continue
            needs = analyse_skill(skill_dir, kept)
            missing, waived = missing_items(needs, provided)
            results.append({
                "root": label,
                "skill": os.path.relpath(skill_dir, path),
                "scripts": len(kept),
                "content": content_key(skill_dir, kept),
                "python": sorted(needs.python),
                "node": sorted(needs.node),
                "programs": sorted(needs.programs),
                "optional": sorted([f"py:{x}" for x in needs.optional_python]
                                   + [f"node:{x}" for x in needs.optional_node]
                                   + [f"bin:{x}" for x in needs.optional_programs]),
                "declared_in_skill_md": sorted(needs.declared),
                "missing": missing,
                "waived": waived,
                "ok": not missing,
                "parse_fallbacks": needs.parse_errors,
            })

    by_root: dict[str, list[dict]] = collections.defaultdict(list)
    for r in results:
        by_root[r["root"]].append(r)

    def pct(ok: int, total: int) -> str:
        return f"{100.0 * ok / total:5.1f}%" if total else "   n/a"

    print(f"manifest: {args.manifest}  ({len(provided.python)} python modules, "
          f"{len(provided.node)} node packages, {len(provided.programs)} programs)")
    print(f"options: include_tests={args.include_tests} runnable_only={args.runnable_only} "
          f"groups={sorted(groups) or '-'} waivers={'off' if args.no_waivers else 'on'}")
    waived_skills = sum(1 for r in results if r["ok"] and r["waived"])
    if waived_skills:
        print(f"         ({waived_skills} covered skills rely on waived items)")
    print()
    print(f"{'root':45} {'skills w/ scripts':>17} {'covered':>8} {'coverage':>9}")
    for label, rows in by_root.items():
        ok = sum(r["ok"] for r in rows)
        print(f"{label:45} {len(rows):17d} {ok:8d} {pct(ok, len(rows)):>9}")
    total_ok = sum(r["ok"] for r in results)
    print(f"{'OVERALL':45} {len(results):17d} {total_ok:8d} {pct(total_ok, len(results)):>9}")
    if len(by_root) > 1:
        shares = [sum(r["ok"] for r in rows) / len(rows) for rows in by_root.values()]
        print(f"{'MEAN OF PER-ROOT COVERAGE (each root weighs 1)':45} {'':17} {'':8} "
              f"{100.0 * sum(shares) / len(shares):8.1f}%")
    unique: dict[str, bool] = {}
    for r in results:
        unique.setdefault(r["content"], r["ok"])
    uok = sum(unique.values())
    print(f"{'OVERALL, identical copies counted once':45} {len(unique):17d} {uok:8d} {pct(uok, len(unique)):>9}")

    counter: collections.Counter[str] = collections.Counter()
    for r in results:
        counter.update(r["missing"])
    if counter:
        print(f"\nmost common missing items (number of skills):")
        for item, count in counter.most_common(args.top):
            print(f"  {count:4d}  {item}")

    for label, rows in by_root.items():
        failing = [r for r in rows if not r["ok"]]
        shown = rows if args.show_passing else failing
        if not shown:
            continue
        print(f"\n== {label}: {'skills' if args.show_passing else 'failing skills'}")
        for r in shown:
            status = "ok  " if r["ok"] else "FAIL"
            detail = ", ".join(r["missing"]) if r["missing"] else ""
            print(f"  {status} {r['skill']}: {detail}")

    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    import signal

    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped into head
    sys.exit(main())
