"""End-to-end tests of the built-in skills' scripts (skills/public/*/scripts).

Run from the repository root:
    python3 -m unittest discover -s tests/skills -v

Every script is run as a subprocess, the way the agent runs it, in temporary directories.
"""

import html.parser
import importlib.util
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest
import zipfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PUBLIC = os.path.join(REPO, "skills", "public")
CREATOR = os.path.join(PUBLIC, "skill-creator", "scripts")
INIT = os.path.join(CREATOR, "init_skill.py")
VALIDATE = os.path.join(CREATOR, "quick_validate.py")
PACKAGE = os.path.join(CREATOR, "package_skill.py")
PROFILE = os.path.join(PUBLIC, "csv-insights", "scripts", "profile_csv.py")
MD_TO_HTML = os.path.join(PUBLIC, "markdown-report", "scripts", "md_to_html.py")
BUILTIN = ("skill-creator", "csv-insights", "markdown-report", "deep-research")


def run(script, *args, cwd=None, stdin=None):
    """Runs a script with the current interpreter; never writes __pycache__ into skills/."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [sys.executable, script, *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
    )


def write(path, text, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode, **({} if "b" in mode else {"encoding": "utf-8", "newline": ""})) as f:
        f.write(text)


def skill_md(name, description="Does a useful thing for tests. Use when the tests need it.",
             extra=""):
    return "---\nname: %s\ndescription: %s\n%s---\n\n# Title\n\nRun the thing.\n" % (
        name, description, extra)


class TempDirTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()


# --------------------------------------------------------------------------- skill-creator


class BuiltinSkillsTest(TempDirTest):
    def test_builtin_skills_are_valid_and_well_formed(self):
        for name in BUILTIN:
            folder = os.path.join(PUBLIC, name)
            result = run(VALIDATE, folder)
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            self.assertIn("ok: skill '%s' is valid" % name, result.stdout)
            self.assertNotIn("warning", result.stdout)
            with open(os.path.join(folder, "SKILL.md"), encoding="utf-8") as f:
                body = f.read().split("\n---\n", 1)[1]
            lines = body.strip().count("\n") + 1
            self.assertLess(lines, 160, "%s SKILL.md body is %d lines" % (name, lines))
            self.assertIn("/mnt/skills/public/%s/scripts/" % name, body)

    def test_scripts_are_executable_with_shebang_and_docstring(self):
        for name in BUILTIN:
            scripts = os.path.join(PUBLIC, name, "scripts")
            for entry in sorted(os.listdir(scripts)):
                if not entry.endswith(".py"):
                    continue
                path = os.path.join(scripts, entry)
                self.assertFalse(entry.startswith("test_"), "tests do not belong in skills")
                self.assertTrue(os.stat(path).st_mode & stat.S_IXUSR, "%s not executable" % path)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                self.assertTrue(text.startswith("#!/usr/bin/env python3\n"), path)
                self.assertIn('"""', text.split("\n", 2)[1], "%s lacks a module docstring" % path)

    def test_builtin_skills_package_cleanly(self):
        for name in BUILTIN:
            result = run(PACKAGE, os.path.join(PUBLIC, name), self.tmp)
            self.assertEqual(result.returncode, 0, result.stderr)
            with zipfile.ZipFile(os.path.join(self.tmp, name + ".skill")) as archive:
                names = archive.namelist()
            self.assertIn(name + "/SKILL.md", names)
            self.assertTrue(all(n.startswith(name + "/") for n in names))
            self.assertFalse([n for n in names if "__pycache__" in n or n.endswith(".pyc")])


class SkillCreatorTest(TempDirTest):
    def init(self, *args):
        return run(INIT, "--path", os.path.join(self.tmp, "ws"), *args)

    def make_complete_skill(self, name="demo-skill"):
        result = self.init(name, "--description", "Placeholder", "--resources", "scripts,references")
        self.assertEqual(result.returncode, 0, result.stderr)
        folder = os.path.join(self.tmp, "ws", name)
        write(os.path.join(folder, "SKILL.md"), skill_md(
            name,
            description='"Converts demo files: counts lines. Use when the user asks for a demo."',
            extra='license: Apache-2.0\nmetadata:\n  author: tests\n  version: "1.0"\n',
        ))
        write(os.path.join(folder, "scripts", "tool.py"), "#!/usr/bin/env python3\nprint('hi')\n")
        os.chmod(os.path.join(folder, "scripts", "tool.py"), 0o755)
        write(os.path.join(folder, "references", "guide.md"), "# Guide\n")
        write(os.path.join(folder, "assets", "data.bin"), b"\x00\x01\x02", mode="wb")
        # Things that must never be packaged.
        write(os.path.join(folder, ".hidden"), "secret\n")
        write(os.path.join(folder, ".git", "config"), "[core]\n")
        write(os.path.join(folder, "scripts", "__pycache__", "tool.cpython-311.pyc"), b"\x00", "wb")
        write(os.path.join(folder, "scripts", "stale.pyc"), b"\x00", mode="wb")
        write(os.path.join(folder, "references", ".DS_Store"), b"\x00", mode="wb")
        os.symlink("/etc/hostname", os.path.join(folder, "link-out"))
        return folder

    def test_init_creates_a_skeleton_with_requested_folders(self):
        result = self.init("my-skill", "--resources", "scripts,assets")
        self.assertEqual(result.returncode, 0, result.stderr)
        folder = os.path.join(self.tmp, "ws", "my-skill")
        self.assertEqual(sorted(os.listdir(folder)), ["SKILL.md", "assets", "scripts"])
        with open(os.path.join(folder, "SKILL.md"), encoding="utf-8") as f:
            text = f.read()
        self.assertTrue(text.startswith("---\nname: my-skill\n"))
        self.assertIn("[TODO", text)
        bare = self.init("bare-skill")
        self.assertEqual(bare.returncode, 0, bare.stderr)
        self.assertEqual(os.listdir(os.path.join(self.tmp, "ws", "bare-skill")), ["SKILL.md"])

    def test_init_refuses_bad_names_existing_folders_and_bad_usage(self):
        for bad in ("Bad_Name", "-lead", "trail-", "dou--ble", "a" * 65, "sp ace"):
            result = self.init("--", bad) if bad.startswith("-") else self.init(bad)
            self.assertEqual(result.returncode, 1, bad)
            self.assertIn("invalid skill name", result.stderr)
        self.assertEqual(self.init("taken").returncode, 0)
        again = self.init("taken")
        self.assertEqual(again.returncode, 1)
        self.assertIn("already exists", again.stderr)
        self.assertEqual(run(INIT).returncode, 2)
        self.assertEqual(self.init("ok-name", "--resources", "bogus").returncode, 2)
        long_description = self.init("long-one", "--description", "x" * 1025)
        self.assertEqual(long_description.returncode, 1)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "ws", "long-one")))

    def test_init_stores_any_description_safely(self):
        tricky = 'Reads "quoted": values, #hashes, back\\slashes and [brackets]. Use when: always.'
        self.assertEqual(self.init("tricky", "--description", tricky).returncode, 0)
        sys.dont_write_bytecode = True
        spec = importlib.util.spec_from_file_location("quick_validate_under_test", VALIDATE)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        with open(os.path.join(self.tmp, "ws", "tricky", "SKILL.md"), encoding="utf-8") as f:
            data, _, _ = module.parse_skill_md(f.read())
        self.assertEqual(data["description"], tricky)
        result = run(VALIDATE, os.path.join(self.tmp, "ws", "tricky"))
        self.assertEqual(result.returncode, 0, result.stdout)

    def test_unfinished_template_is_refused(self):
        self.assertEqual(self.init("draft").returncode, 0)
        folder = os.path.join(self.tmp, "ws", "draft")
        result = run(VALIDATE, folder)
        self.assertEqual(result.returncode, 1)
        self.assertIn("placeholder", result.stdout)
        packaged = run(PACKAGE, folder, os.path.join(self.tmp, "out"))
        self.assertEqual(packaged.returncode, 1)
        self.assertIn("not a valid skill", packaged.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "out", "draft.skill")))

    def test_init_validate_package_round_trip(self):
        folder = self.make_complete_skill()
        validated = run(VALIDATE, folder)
        self.assertEqual(validated.returncode, 0, validated.stdout)
        self.assertIn("ok: skill 'demo-skill' is valid", validated.stdout)

        out = os.path.join(self.tmp, "out")
        other_cwd = os.path.join(self.tmp, "elsewhere")
        os.makedirs(other_cwd)
        first = run(PACKAGE, folder, out, cwd=other_cwd)
        self.assertEqual(first.returncode, 0, first.stderr)
        archive_path = os.path.join(out, "demo-skill.skill")
        self.assertIn(archive_path, first.stdout)
        self.assertIn("(4 files)", first.stdout)
        self.assertIn("symbolic link link-out", first.stderr)
        self.assertEqual(sorted(os.listdir(out)), ["demo-skill.skill"], "no temp file left")

        with zipfile.ZipFile(archive_path) as archive:
            self.assertIsNone(archive.testzip())
            infos = archive.infolist()
            names = [i.filename for i in infos]
            self.assertEqual(names, sorted(names))
            self.assertEqual({n.split("/", 1)[0] for n in names}, {"demo-skill"})
            files = sorted(n for n in names if not n.endswith("/"))
            self.assertEqual(files, [
                "demo-skill/SKILL.md",
                "demo-skill/assets/data.bin",
                "demo-skill/references/guide.md",
                "demo-skill/scripts/tool.py",
            ])
            for n in names:
                parts = [p for p in n.split("/") if p]
                self.assertFalse(any(p.startswith(".") for p in parts), n)
                self.assertNotIn("__pycache__", parts)
                self.assertFalse(n.endswith(".pyc"))
            for info in infos:
                self.assertEqual(info.date_time, (1980, 1, 1, 0, 0, 0))
                if not info.filename.endswith("/"):
                    self.assertEqual(info.compress_type, zipfile.ZIP_DEFLATED)
            mode = archive.getinfo("demo-skill/scripts/tool.py").external_attr >> 16
            self.assertTrue(mode & 0o111, "executable bit kept")
            self.assertEqual(archive.read("demo-skill/assets/data.bin"), b"\x00\x01\x02")

        with open(archive_path, "rb") as f:
            first_bytes = f.read()
        os.utime(os.path.join(folder, "SKILL.md"), (1_700_000_000, 1_700_000_000))
        second = run(PACKAGE, folder, out)
        self.assertEqual(second.returncode, 0, second.stderr)
        with open(archive_path, "rb") as f:
            self.assertEqual(f.read(), first_bytes, "same input must give the same bytes")

    def test_package_into_the_skill_folder_skips_its_own_output(self):
        folder = self.make_complete_skill("self-output")
        for _ in range(2):
            result = run(PACKAGE, folder, folder)
            self.assertEqual(result.returncode, 0, result.stderr)
        with zipfile.ZipFile(os.path.join(folder, "self-output.skill")) as archive:
            self.assertFalse([n for n in archive.namelist() if n.endswith(".skill")])

    def test_package_refuses_what_the_installer_refuses(self):
        folder = self.make_complete_skill("guarded")
        write(os.path.join(folder, "evals", "case1", "SKILL.md"), "allowed fixture\n")
        self.assertEqual(run(PACKAGE, folder, self.tmp).returncode, 0)
        for rel, data in (
            ("nested/SKILL.md", b"---\n"),
            ("bin/tool", b"\x7fELF\x02\x01\x01" + b"\x00" * 64),
            ("odd:name.txt", b"x"),
        ):
            path = os.path.join(folder, *rel.split("/"))
            write(path, data, mode="wb")
            result = run(PACKAGE, folder, os.path.join(self.tmp, "refused"))
            self.assertEqual(result.returncode, 1, rel)
            self.assertIn(rel, result.stderr)
            self.assertFalse(os.path.exists(os.path.join(self.tmp, "refused", "guarded.skill")))
            self.assertEqual(os.listdir(os.path.join(self.tmp, "refused")), [], "no temp file left")
            os.remove(path)

    def test_package_reports_problems(self):
        self.assertEqual(run(PACKAGE).returncode, 2)
        missing = run(PACKAGE, os.path.join(self.tmp, "nope"), self.tmp)
        self.assertEqual(missing.returncode, 1)
        self.assertIn("error:", missing.stderr)
        folder = os.path.join(self.tmp, "mismatch")
        write(os.path.join(folder, "SKILL.md"), skill_md("other-name"))
        refused = run(PACKAGE, folder, self.tmp)
        self.assertEqual(refused.returncode, 1)
        self.assertIn("does not match its directory", refused.stderr)


class ValidatorTest(TempDirTest):
    def check(self, dir_name, text, raw=False):
        folder = os.path.join(self.tmp, dir_name)
        if raw:
            write(os.path.join(folder, "SKILL.md"), text, mode="wb")
        else:
            write(os.path.join(folder, "SKILL.md"), text)
        return run(VALIDATE, folder)

    def assert_rejected(self, dir_name, text, fragment):
        result = self.check(dir_name, text)
        self.assertEqual(result.returncode, 1, "%r should be rejected:\n%s" % (text, result.stdout))
        self.assertIn(fragment, result.stdout)
        for line in result.stdout.strip().splitlines():
            self.assertTrue(line.startswith(("error: ", "warning: ")), line)

    def test_rejects_bad_names(self):
        cases = {
            "Upper": "lowercase letters",
            "under_score": "lowercase letters",
            "-lead": "start or end",
            "trail-": "start or end",
            "dou--ble": "'--'",
            "a" * 65: "at most 64",
        }
        for index, (name, fragment) in enumerate(cases.items()):
            self.assert_rejected("dir%d" % index, skill_md(name), fragment)

    def test_rejects_missing_or_blank_description(self):
        self.assert_rejected("a", "---\nname: a\n---\nbody\n", "no 'description'")
        self.assert_rejected("a", "---\nname: a\ndescription: '   '\n---\nbody\n", "no 'description'")
        self.assert_rejected("a", "---\nname: a\ndescription:\n---\nbody\n", "no 'description'")
        self.assert_rejected("a", "---\ndescription: Something long enough to pass.\n---\n", "no 'name'")

    def test_rejects_name_directory_mismatch(self):
        self.assert_rejected("pdf-tools", skill_md("pdf"), "does not match its directory 'pdf-tools'")

    def test_rejects_length_and_shape_problems(self):
        self.assert_rejected("a", skill_md("a", "x" * 1025), "at most 1024")
        self.assert_rejected("a", skill_md("a", extra="compatibility: %s\n" % ("c" * 501)), "at most 500")
        self.assert_rejected("a", skill_md("a", extra="metadata: [1]\n"), "'metadata' must be a mapping")
        self.assert_rejected("a", skill_md("a", extra="metadata:\n  deep:\n    x: y\n"), "must be a string")
        self.assert_rejected("a", skill_md("a", extra="allowed-tools: {a: b}\n"), "allowed-tools")
        self.assert_rejected("a", skill_md("a", "{x: 1}"), "'description' must be a string")

    def test_rejects_broken_files_and_yaml(self):
        self.assert_rejected("a", "# no frontmatter\n", "must start with a '---'")
        self.assert_rejected("a", "---\nname: a\ndescription: d\n", "not closed")
        self.assert_rejected("a", skill_md("a", "Use when: the user asks"), "put the whole value in quotes")
        self.assert_rejected("a", "---\nname: [unclosed\n---\n", "closed on the same line")
        self.assert_rejected("a", "---\n- a\n- b\n---\n", "mapping")
        self.assert_rejected("a", skill_md("a", extra="name: b\n"), "duplicate key")
        self.assert_rejected("a", '---\nname: a\ndescription: "unterminated\n---\n', "unterminated")
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(empty)
        result = run(VALIDATE, empty)
        self.assertEqual(result.returncode, 1)
        self.assertIn("has no SKILL.md", result.stdout)
        latin = self.check("lat", b"---\nname: lat\ndescription: caf\xe9\n---\n", raw=True)
        self.assertEqual(latin.returncode, 1)
        self.assertIn("not UTF-8", latin.stdout)
        self.assertEqual(run(VALIDATE).returncode, 2)

    def test_accepts_valid_yaml_forms(self):
        forms = [
            skill_md("a", ">-\n  Folded description that spans\n  two lines. Use when testing."),
            skill_md("a", "|\n  Literal description line one.\n  Use when testing literal blocks."),
            skill_md("a", "'Single-quoted: it''s fine. Use when testing quotes.'"),
            skill_md("a", '"Double-quoted: with \\"escapes\\" \\u00e9. Use when testing."'),
            skill_md("a", "Plain text that continues\n  on a second line. Use when testing.  # note"),
            skill_md("a", extra="allowed-tools: bash read_file\n"),
            skill_md("a", extra="allowed-tools:\n  - bash\n  - read_file\n"),
            skill_md("a", extra="allowed-tools:\n- bash\n- write_file\nlicense: Apache-2.0\n"),
            skill_md("a", extra="allowed-tools: [bash, 'read_file']\n"),
            skill_md("a", extra='metadata:\n  author: antler\n  version: "1.0"\n'),
            skill_md("a", extra="# a comment line\nlicense: MIT # trailing comment\n"),
        ]
        for text in forms:
            result = self.check("a", text)
            self.assertEqual(result.returncode, 0, "%r\n%s" % (text, result.stdout))
            self.assertNotIn("warning", result.stdout, text)
        crlf_bom = ("\ufeff" + skill_md("a")).replace("\n", "\r\n").encode("utf-8")
        self.assertEqual(self.check("a", crlf_bom, raw=True).returncode, 0)

    def test_unknown_keys_and_numeric_metadata_are_warnings(self):
        result = self.check("a", skill_md("a", extra="version: 2\ntags: [x, y]\n"))
        self.assertEqual(result.returncode, 0, result.stdout)
        self.assertIn("warning: unknown frontmatter key 'version'", result.stdout)
        self.assertIn("warning: unknown frontmatter key 'tags'", result.stdout)
        numeric = self.check("a", skill_md("a", extra="metadata:\n  version: 1.0\n"))
        self.assertEqual(numeric.returncode, 0)
        self.assertIn("warning: metadata 'version' should be a string", numeric.stdout)
        anchored = self.check("a", skill_md("a", extra="odd: &anchor value\n"))
        self.assertEqual(anchored.returncode, 0, anchored.stdout)
        self.assertIn("warning:", anchored.stdout)


# --------------------------------------------------------------------------- csv-insights

SAMPLE_CSV = (
    "\ufeffid,name,score,joined,active,city\r\n"
    '1,Alice,90.5,2024-01-15,true,"Paris, France"\r\n'
    "2,Bob,,2024-02-01,false,Berlin\r\n"
    '3,"Carol ""CJ"" Jones",78,2024-03-10,yes,\r\n'
    "2,Bob,,2024-02-01,false,Berlin\r\n"
    '4,Dan,NA,2023-12-31,no,"Paris, France"\r\n'
    "5,Eve,88.25,,TRUE,Oslo\r\n"
)


class CsvInsightsTest(TempDirTest):
    def profile(self, content, *args, name="data.csv"):
        path = os.path.join(self.tmp, name)
        write(path, content.encode("utf-8") if isinstance(content, str) else content, mode="wb")
        out = os.path.join(self.tmp, "report.md")
        result = run(PROFILE, path, "--out", out, *args)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(out, encoding="utf-8") as f:
            return f.read(), result

    def test_profile_of_mixed_sample(self):
        report, result = self.profile(SAMPLE_CSV)
        self.assertIn("6 rows, 6 columns, 1 duplicate row", result.stderr)
        expected = [
            "| Encoding | UTF-8 with BOM (BOM ignored) |",
            "| Delimiter | comma (`,`) |",
            "| Data rows | 6 |",
            "| Columns | 6 |",
            "| Missing cells | 5 of 36 (13.9%) |",
            "| Duplicate rows | 1 (16.7% of rows) |",
            "| Rows with wrong field count | 0 |",
            "| 1 | `id` | integer | 6 | 0 | 0.0% | 5 | `1` |",
            "| 2 | `name` | text | 6 | 0 | 0.0% | 5 | `Alice` |",
            "| 3 | `score` | float | 3 | 3 | 50.0% | 3 | `90.5` |",
            "| 4 | `joined` | date | 5 | 1 | 16.7% | 4 | `2024-01-15` |",
            "| 5 | `active` | boolean | 6 | 0 | 0.0% | 5 | `true` |",
            "| 6 | `city` | text | 5 | 1 | 16.7% | 3 | `Paris, France` |",
            "| `id` | 1 | 5 | 2.8333 | 2.5 | 1.472 | 17 |",
            "| `score` | 78 | 90.5 | 85.5833 | 88.25 | 6.663 | 256.75 |",
            "| `joined` | 2023-12-31 | 2024-03-10 | 70 |",
            "3 true, 3 false",
            "| `Paris, France` | 2 | 40.0% |",
            "| `Berlin` | 2 | 40.0% |",
            '| `Carol "CJ" Jones` | 1 | 16.7% |',
            "line 5 repeats line 3",
        ]
        for line in expected:
            self.assertIn(line, report)
        self.assertNotIn("\ufeff", report)

    def test_stdout_tsv_semicolon_and_explicit_delimiter(self):
        path = os.path.join(self.tmp, "t.tsv")
        write(path, "a\tb\n1\tx\n2\ty\n")
        result = run(PROFILE, path)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("| Delimiter | tab (`\\t`) |", result.stdout)
        self.assertIn("| Columns | 2 |", result.stdout)

        report, _ = self.profile("x;y;z\n1,5;2;a\n3,5;4;b\n", name="semi.csv")
        self.assertIn("| Delimiter | semicolon (`;`) |", report)
        self.assertIn("| Columns | 3 |", report)

        report, _ = self.profile("p|q\n1|2\n", "--delimiter", "pipe", name="pipe.txt")
        self.assertIn("| Columns | 2 |", report)

    def test_no_header_ragged_rows_and_max_rows(self):
        report, _ = self.profile("1,2\n3,4\n5\n6,7,8\n", "--no-header")
        self.assertIn("| Header row | no (columns numbered) |", report)
        self.assertIn("| Data rows | 4 |", report)
        self.assertIn("`column_1`", report)
        self.assertIn("| Rows with wrong field count | 2 |", report)
        self.assertIn("1 row(s) had fewer fields", report)

        rows = "n\n" + "".join("%d\n" % i for i in range(100))
        report, _ = self.profile(rows, "--max-rows", "10")
        self.assertIn("| Data rows | 10 (stopped at --max-rows 10) |", report)
        self.assertIn("| `n` | 0 | 9 | 4.5 | 4.5 |", report)

    def test_type_hints_escaping_and_leading_zeros(self):
        rows = ["amount,code,label"]
        for i in range(1, 20):
            rows.append("%d,0%d,a|b" % (i, i))
        rows.append("oops,07,a|b")
        report, _ = self.profile("\n".join(rows) + "\n")
        self.assertIn("| 1 | `amount` | text |", report)
        self.assertIn("mostly numeric: 1 of 20 values are not (e.g. `oops`)", report)
        self.assertIn("leading zeros", report)
        self.assertIn("`a\\|b`", report)

    def test_latin1_file_is_read(self):
        report, _ = self.profile("name,city\nJos\xe9,M\xe1laga\n".encode("cp1252"), name="l.csv")
        self.assertIn("Windows-1252", report)
        self.assertIn("`Jos\xe9`", report)

    def test_errors(self):
        self.assertEqual(run(PROFILE, os.path.join(self.tmp, "missing.csv")).returncode, 1)
        empty = os.path.join(self.tmp, "empty.csv")
        write(empty, "")
        result = run(PROFILE, empty)
        self.assertEqual(result.returncode, 1)
        self.assertIn("empty", result.stderr)
        self.assertEqual(run(PROFILE).returncode, 2)
        self.assertEqual(run(PROFILE, empty, "--delimiter", "ab").returncode, 2)


# --------------------------------------------------------------------------- markdown-report


class TagCollector(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


SAMPLE_MD = textwrap.dedent("""\
    # Sales *Report*

    Intro with **bold**, *italic*, `code <b>` and a [link](https://example.com "Ex").

    <script>alert("x")</script>

    [bad](javascript:alert(1)) [sneaky](JaVa&#x09;Script:alert(2)) ![img](javascript:evil)
    [quote](https://x.org "a\\" onmouseover=\\"alert(3)")

    ## Data

    | Region | Sales |
    |:-------|------:|
    | North | 1,200 |
    | <img src=x onerror=alert(1)> | 3 |

    - one
    - two
      - nested

    1. first
    2. second

    ```python
    print("<hi>")
    ```

    ### Details

    ![chart](chart.png "Chart")
    """)


class MarkdownReportTest(TempDirTest):
    def convert(self, text, *args):
        source = os.path.join(self.tmp, "report.md")
        write(source, text)
        out = os.path.join(self.tmp, "report.html")
        result = run(MD_TO_HTML, source, "-o", out, *args)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(out, encoding="utf-8") as f:
            return f.read(), result

    def test_conversion_and_escaping(self):
        write(os.path.join(self.tmp, "chart.png"), b"\x89PNG\r\n\x1a\nfake", mode="wb")
        page, result = self.convert(SAMPLE_MD, "--toc", "--embed-images")
        self.assertTrue(page.startswith("<!DOCTYPE html>"))
        self.assertIn("<title>Sales Report</title>", page)
        self.assertIn('<h1 id="sales-report">Sales <em>Report</em></h1>', page)
        self.assertIn("<strong>bold</strong>", page)
        self.assertIn("<code>code &lt;b&gt;</code>", page)
        self.assertIn('<a href="https://example.com" title="Ex">link</a>', page)
        self.assertIn("&lt;script&gt;alert(\"x\")&lt;/script&gt;", page)
        self.assertIn('<th class="al-r">Sales</th>', page)
        self.assertIn('<td class="al-r">1,200</td>', page)
        self.assertIn("&lt;img src=x onerror=alert(1)&gt;", page)
        self.assertIn('<pre><code class="language-python">print("&lt;hi&gt;")', page)
        self.assertIn('<nav class="toc"', page)
        self.assertIn('<a href="#data">Data</a>', page)
        self.assertIn('src="data:image/png;base64,', page)
        self.assertIn("Content-Security-Policy", page)
        self.assertIn("disallowed URL", result.stderr)

        collector = TagCollector()
        collector.feed(page)
        tags = [t for t, _ in collector.tags]
        self.assertNotIn("script", tags)
        self.assertEqual(tags.count("img"), 1)
        self.assertEqual(tags.count("ul"), 3)  # toc, list, nested list
        self.assertEqual(tags.count("ol"), 1)
        for tag, attrs in collector.tags:
            for key, value in attrs.items():
                self.assertFalse(key.startswith("on"), (tag, attrs))
                if key in ("href", "src"):
                    self.assertNotIn("script:", (value or "").lower().replace("\t", ""))
        quoted = [a for t, a in collector.tags if t == "a" and a.get("href") == "https://x.org"]
        self.assertEqual(quoted[0]["title"], 'a" onmouseover="alert(3)')

    def test_default_output_path_stdin_and_warnings(self):
        source = os.path.join(self.tmp, "notes.md")
        write(source, "Just *text* and ![missing](nope.png)\n\n```\nunclosed\n")
        result = run(MD_TO_HTML, source)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(os.path.isfile(os.path.join(self.tmp, "notes.html")))
        self.assertIn("image not found: nope.png", result.stderr)
        self.assertIn("never closed", result.stderr)
        with open(os.path.join(self.tmp, "notes.html"), encoding="utf-8") as f:
            self.assertIn("<title>notes</title>", f.read())

        piped = run(MD_TO_HTML, "-", "--title", "T <x>", stdin="# Hi & bye\n")
        self.assertEqual(piped.returncode, 0, piped.stderr)
        self.assertIn("<title>T &lt;x&gt;</title>", piped.stdout)
        self.assertIn('<h1 id="hi-bye">Hi &amp; bye</h1>', piped.stdout)

    def test_front_matter_setext_and_reference_links(self):
        page, _ = self.convert(
            "---\ntitle: From Meta\n---\nHeading\n=======\n\nSee [the docs][d].\n\n"
            "[d]: https://docs.example \"Docs\"\n"
        )
        self.assertIn("<title>From Meta</title>", page)
        self.assertIn('<h1 id="heading">Heading</h1>', page)
        self.assertIn('<a href="https://docs.example" title="Docs">the docs</a>', page)
        self.assertNotIn("[d]:", page)

    def test_errors(self):
        self.assertEqual(run(MD_TO_HTML, os.path.join(self.tmp, "none.md")).returncode, 1)
        self.assertEqual(run(MD_TO_HTML).returncode, 2)


if __name__ == "__main__":
    unittest.main()
