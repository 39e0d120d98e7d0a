#!/usr/bin/env python3
"""Package a skill folder as an installable <name>.skill archive.

Usage:
    package_skill.py <skill-dir> [output-dir]

Validates the folder first (same checks as quick_validate.py) and refuses to package when
there is any error. The output directory defaults to /mnt/user-data/outputs when it exists,
else the current directory; it is created when missing.

The archive is a ZIP (deflate) whose single top-level directory is <name>/, holding SKILL.md
and the rest of the folder. Left out: dotfiles and dot-directories, __pycache__, *.pyc and
*.pyo files, symbolic links (with a warning), anything that is not a regular file or
directory, and the output archive itself. Entries are sorted and carry a fixed timestamp
and fixed permissions (0755 for executables, 0644 otherwise), so the same folder always
gives the same bytes. The archive is written to a temporary file next to the target and
renamed into place, so a failed run never leaves a half-written .skill file.

Before writing, it refuses what Antler's installer would refuse: file names with '\\', ':'
or control characters, a second SKILL.md outside evals/ or tests/, native executables
(ELF, Mach-O, PE), files over 64 MiB, more than 4096 entries or 512 MiB in total, and
files over 1 MiB that compress more than 200:1.

Prints the archive path and the number of files. Exit status: 0 packaged, 1 refused or
failed, 2 bad command line.
"""

import os
import stat
import sys
import tempfile
import zipfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from quick_validate import validate_skill_dir  # noqa: E402

DEFAULT_OUTPUT_DIR = "/mnt/user-data/outputs"
FIXED_DATE_TIME = (1980, 1, 1, 0, 0, 0)
SKIPPED_DIR_NAMES = {"__pycache__"}
SKIPPED_SUFFIXES = (".pyc", ".pyo")
# Mirrors of the installer's limits (crates/skills/src/archive).
MAX_ENTRIES = 4096
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_TOTAL_BYTES = 512 * 1024 * 1024
MAX_RATIO = 200
RATIO_FLOOR_BYTES = 1024 * 1024
NESTED_SKILL_ALLOWED = ("evals/", "tests/")


class PackageError(Exception):
    """Packaging cannot go on."""


def is_skipped_name(name):
    return name.startswith(".") or name in SKIPPED_DIR_NAMES or name.endswith(SKIPPED_SUFFIXES)


def collect(skill_dir, excluded, warnings):
    """Returns sorted (archive-relative path, absolute path, is_dir) for the folder's content.

    `excluded` holds real paths never to include (the output archive and its temp file).
    """
    entries = []

    def walk(abs_dir, rel_dir):
        try:
            names = sorted(os.listdir(abs_dir))
        except OSError as exc:
            raise PackageError("cannot list %s: %s" % (abs_dir, exc.strerror or exc))
        for name in names:
            abs_path = os.path.join(abs_dir, name)
            rel_path = name if not rel_dir else rel_dir + "/" + name
            if is_skipped_name(name):
                continue
            if os.path.realpath(abs_path) in excluded and not os.path.islink(abs_path):
                continue
            try:
                info = os.lstat(abs_path)
            except OSError as exc:
                raise PackageError("cannot read %s: %s" % (abs_path, exc.strerror or exc))
            if stat.S_ISLNK(info.st_mode):
                warnings.append("skipped symbolic link %s" % rel_path)
            elif stat.S_ISDIR(info.st_mode):
                entries.append((rel_path + "/", abs_path, True))
                walk(abs_path, rel_path)
            elif stat.S_ISREG(info.st_mode):
                entries.append((rel_path, abs_path, False))
            else:
                warnings.append("skipped %s (not a regular file)" % rel_path)

    walk(skill_dir, "")
    entries.sort(key=lambda entry: entry[0])
    return entries


def native_executable(head):
    """Names the native executable format of a file's first bytes, or None."""
    if head[:4] == b"\x7fELF":
        return "ELF"
    if head[:4] in (b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe"):
        return "Mach-O"
    if head[:4] == b"\xca\xfe\xba\xbe" and len(head) >= 8 and int.from_bytes(head[4:8], "big") < 20:
        return "Mach-O"
    if head[:2] == b"MZ" and len(head) >= 0x40:
        offset = int.from_bytes(head[0x3C:0x40], "little")
        if head[offset : offset + 4] == b"PE\0\0":
            return "PE"
    return None


def check_entries(entries):
    """Returns the reasons the installer would refuse these entries (empty when fine)."""
    problems = []
    total = 0
    if len(entries) + 1 > MAX_ENTRIES:
        problems.append("%d entries; at most %d allowed" % (len(entries) + 1, MAX_ENTRIES))
    for rel_path, abs_path, is_dir in entries:
        name = rel_path.rstrip("/")
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            problems.append("%r: file names must be valid UTF-8" % name)
            continue
        if "\\" in name or ":" in name:
            problems.append("%s: file names may not contain '\\' or ':'" % name)
        elif any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in name):
            problems.append("%r: file names may not contain control characters" % name)
        elif any(len(part.encode("utf-8", "surrogateescape")) > 255 for part in name.split("/")):
            problems.append("%s: a path segment is longer than 255 bytes" % name)
        if is_dir:
            continue
        if name.rsplit("/", 1)[-1] == "SKILL.md" and "/" in name and not name.startswith(
            NESTED_SKILL_ALLOWED
        ):
            problems.append("%s: a second SKILL.md is only allowed under evals/ or tests/" % name)
        try:
            size = os.path.getsize(abs_path)
            with open(abs_path, "rb") as handle:
                head = handle.read(4096)
        except OSError as exc:
            raise PackageError("cannot read %s: %s" % (abs_path, exc.strerror or exc))
        total += size
        if size > MAX_FILE_BYTES:
            problems.append("%s: %d bytes; at most %d per file" % (name, size, MAX_FILE_BYTES))
        kind = native_executable(head)
        if kind:
            problems.append("%s: %s executables are not allowed in skills; ship scripts" % (name, kind))
    if total > MAX_TOTAL_BYTES:
        problems.append("%d bytes in total; at most %d allowed" % (total, MAX_TOTAL_BYTES))
    return problems


def zip_info(arcname, is_dir, executable):
    info = zipfile.ZipInfo(arcname, date_time=FIXED_DATE_TIME)
    info.create_system = 3  # Unix, so the permission bits below are honoured
    if is_dir:
        info.external_attr = ((stat.S_IFDIR | 0o755) << 16) | 0x10
        info.compress_type = zipfile.ZIP_STORED
    else:
        mode = 0o755 if executable else 0o644
        info.external_attr = (stat.S_IFREG | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
    return info


def write_archive(path, name, entries):
    """Writes the entries under the top directory `name`/; returns the number of files."""
    files = 0
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(zip_info(name + "/", True, False), b"")
        for rel_path, abs_path, is_dir in entries:
            arcname = name + "/" + rel_path
            if is_dir:
                archive.writestr(zip_info(arcname, True, False), b"")
                continue
            try:
                with open(abs_path, "rb") as handle:
                    data = handle.read()
                executable = bool(os.stat(abs_path).st_mode & 0o111)
            except OSError as exc:
                raise PackageError("cannot read %s: %s" % (abs_path, exc.strerror or exc))
            archive.writestr(zip_info(arcname, False, executable), data, compresslevel=9)
            files += 1
    with zipfile.ZipFile(path) as archive:
        bad = archive.testzip()
        if bad is not None:
            raise PackageError("the archive failed its integrity check at %s" % bad)
        for info in archive.infolist():
            if info.file_size > RATIO_FLOOR_BYTES and (
                info.file_size // max(info.compress_size, 1) > MAX_RATIO
            ):
                raise PackageError(
                    "%s compresses more than %d:1, which the installer refuses as a likely "
                    "zip bomb; remove or shrink it" % (info.filename, MAX_RATIO)
                )
    return files


def package(skill_dir, output_dir=None, out=print, err=None):
    """Validates and packages `skill_dir`; returns (archive path, file count)."""
    err = err or (lambda message: print(message, file=sys.stderr))
    if not os.path.isdir(skill_dir):
        raise PackageError("%s is not a directory" % skill_dir)
    skill_dir = os.path.realpath(skill_dir)

    report = validate_skill_dir(skill_dir)
    for message in report.warnings:
        err("warning: %s" % message)
    if report.errors:
        for message in report.errors:
            err("error: %s" % message)
        raise PackageError(
            "%s is not a valid skill (%d error%s); fix it and try again"
            % (skill_dir, len(report.errors), "" if len(report.errors) == 1 else "s")
        )
    name = report.name

    if output_dir is None:
        output_dir = DEFAULT_OUTPUT_DIR if os.path.isdir(DEFAULT_OUTPUT_DIR) else os.getcwd()
    try:
        os.makedirs(output_dir, exist_ok=True)
    except OSError as exc:
        raise PackageError("cannot create %s: %s" % (output_dir, exc.strerror or exc))
    if not os.path.isdir(output_dir):
        raise PackageError("%s is not a directory" % output_dir)
    output_dir = os.path.realpath(output_dir)
    target = os.path.join(output_dir, name + ".skill")
    if os.path.isdir(target):
        raise PackageError("%s is a directory; remove it first" % target)

    try:
        fd, temp_path = tempfile.mkstemp(prefix=".%s." % name, suffix=".tmp", dir=output_dir)
    except OSError as exc:
        raise PackageError("cannot write in %s: %s" % (output_dir, exc.strerror or exc))
    os.close(fd)
    try:
        warnings = []
        entries = collect(skill_dir, {target, os.path.realpath(temp_path)}, warnings)
        for message in warnings:
            err("warning: %s" % message)
        problems = check_entries(entries)
        if problems:
            for message in problems:
                err("error: %s" % message)
            raise PackageError(
                "%d problem%s would make the installer refuse this skill"
                % (len(problems), "" if len(problems) == 1 else "s")
            )
        files = write_archive(temp_path, name, entries)
        os.chmod(temp_path, 0o644)
        os.replace(temp_path, target)
    except (OSError, zipfile.BadZipFile) as exc:
        _remove_quietly(temp_path)
        raise PackageError("cannot write %s: %s" % (target, getattr(exc, "strerror", None) or exc))
    except BaseException:
        _remove_quietly(temp_path)
        raise
    out("Packaged %s (%d file%s)" % (target, files, "" if files == 1 else "s"))
    return target, files


def _remove_quietly(path):
    try:
        os.remove(path)
    except OSError:
        pass


def main(argv):
    args = argv[1:]
    if args and args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if len(args) not in (1, 2) or any(a.startswith("-") and a != "-" for a in args):
        sys.stderr.write("usage: package_skill.py <skill-dir> [output-dir]\n")
        return 2
    try:
        package(args[0], args[1] if len(args) == 2 else None)
    except PackageError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
