#!/usr/bin/env python3
"""Validate an Agent Skill folder: its SKILL.md and the YAML frontmatter in it.

Usage:
    quick_validate.py <skill-dir>

Checks, following the Agent Skills specification as Antler applies it when installing:
  * <skill-dir>/SKILL.md exists, is a regular UTF-8 file of at most 1 MiB, and starts with
    YAML frontmatter between a first line '---' and the next '---' line;
  * name: 1-64 characters, lowercase letters, digits and '-', no leading or trailing '-',
    no '--', and equal to the folder name;
  * description: present, not blank, at most 1024 characters, no template TODO left;
  * license: text; compatibility: text of at most 500 characters;
  * metadata: a mapping of text keys to text values;
  * allowed-tools: a space-separated string or a list of strings;
  * any other top-level key is reported as a warning (Antler ignores it).

Prints one line per problem ("error: ..." or "warning: ...") and, when there is no error,
a final "ok: ..." line. Exit status: 0 valid (warnings allowed), 1 invalid, 2 usage error.

PyYAML is not needed: a small parser reads the YAML subset that frontmatter uses (plain,
single- and double-quoted scalars, '|' and '>' block scalars, nested mappings, '- item'
lists and one-line [flow, lists]). Other YAML features are reported, not guessed at.

Importable: validate_skill_dir(path) returns a Report; parse_skill_md(text) and
check_name(name) are used by the other scripts in this folder.
"""

import os
import re
import sys

MAX_NAME_LEN = 64
MAX_DESCRIPTION_LEN = 1024
MAX_COMPATIBILITY_LEN = 500
MAX_SKILL_FILE_BYTES = 1024 * 1024
LONG_BODY_LINES = 500
SKILL_FILE = "SKILL.md"
KNOWN_KEYS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
TODO_MARKER = "[TODO"


class FrontmatterError(Exception):
    """The frontmatter cannot be read."""


class Report:
    """Errors and warnings found in one skill, plus what was read."""

    def __init__(self):
        self.errors = []
        self.warnings = []
        self.frontmatter = None
        self.body = None
        self.name = None

    @property
    def ok(self):
        return not self.errors

    def error(self, message):
        self.errors.append(message)

    def warn(self, message):
        self.warnings.append(message)


# --------------------------------------------------------------------------- names


def check_name(name):
    """Returns why `name` is not a valid skill name, or None when it is valid."""
    if not isinstance(name, str) or name == "":
        return "name must not be empty"
    if len(name) > MAX_NAME_LEN:
        return "name is %d characters long; at most %d allowed" % (len(name), MAX_NAME_LEN)
    for ch in name:
        if not (("a" <= ch <= "z") or ("0" <= ch <= "9") or ch == "-"):
            return "name may contain only lowercase letters, digits and '-'; found %r" % ch
    if name.startswith("-") or name.endswith("-"):
        return "name must not start or end with '-'"
    if "--" in name:
        return "name must not contain '--'"
    return None


# --------------------------------------------------------------------------- YAML subset

_NULLS = {"", "~", "null", "Null", "NULL"}
_TRUES = {"true", "True", "TRUE"}
_FALSES = {"false", "False", "FALSE"}
_INT_RE = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_FLOAT_RE = re.compile(
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)
_KEY_SEP_RE = re.compile(r":(?:[ \t]|$)")
_BLOCK_HEADER_RE = re.compile(r"^([|>])(?:([+-]?)([1-9]?)|([1-9])([+-]))[ \t]*(?:#.*)?$")
_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v",
    "f": "\f", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\",
    "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


class YamlNumber:
    """A number read from YAML, kept with its source text."""

    def __init__(self, text):
        self.text = text

    def __str__(self):
        return self.text

    def __repr__(self):
        return "YamlNumber(%r)" % self.text

    def __eq__(self, other):
        return isinstance(other, YamlNumber) and other.text == self.text

    def __hash__(self):
        return hash(self.text)


def _resolve_plain(text):
    """Types an unquoted scalar the way YAML 1.2 (core schema) does."""
    if text in _NULLS:
        return None
    if text in _TRUES:
        return True
    if text in _FALSES:
        return False
    if _INT_RE.fullmatch(text) or _FLOAT_RE.fullmatch(text):
        return YamlNumber(text)
    return text


def _indent_of(line):
    return len(line) - len(line.lstrip(" "))


def _is_ignorable(line):
    stripped = line.strip()
    return stripped == "" or stripped.startswith("#")


def _strip_comment(text):
    """Cuts a trailing ' # comment' from a plain scalar."""
    if text.startswith("#"):
        return ""
    match = re.search(r"[ \t]#", text)
    if match:
        text = text[: match.start()]
    return text.rstrip()


def _describe(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, YamlNumber):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "a value"


class _Parser:
    """Recursive-descent reader for the block YAML that frontmatter uses."""

    def __init__(self, lines, first_line_number):
        self.lines = lines
        self.first = first_line_number
        self.i = 0
        self.notes = []

    def fail(self, message, index=None):
        index = self.i if index is None else index
        index = min(index, len(self.lines) - 1) if self.lines else 0
        raise FrontmatterError("line %d: %s" % (self.first + index, message))

    def next_content(self, start):
        j = start
        while j < len(self.lines) and _is_ignorable(self.lines[j]):
            j += 1
        return j if j < len(self.lines) else None

    def check_tabs(self, index):
        line = self.lines[index]
        head = line[: len(line) - len(line.lstrip(" \t"))]
        if "\t" in head:
            self.fail("tabs cannot be used for indentation; use spaces", index)

    def document(self):
        j = self.next_content(0)
        if j is None:
            return {}
        self.check_tabs(j)
        content = self.lines[j].lstrip(" ")
        if content == "-" or content.startswith("- "):
            self.fail("the frontmatter must be a mapping of keys to values, not a list", j)
        self.i = j
        result = self.mapping(_indent_of(self.lines[j]), top_level=True)
        j = self.next_content(self.i)
        if j is not None:
            self.fail("unexpected text %r" % self.lines[j].strip(), j)
        return result

    def split_key(self, content, index):
        """Splits 'key: rest' into (key, rest)."""
        if content[0] in "\"'":
            raw, after = self.scan_quoted_line(content, index)
            key = self.decode_quoted(content[0], raw, index)
            after = after.lstrip(" \t")
            if not _KEY_SEP_RE.match(after):
                self.fail("expected ':' after the quoted key", index)
            return key, after[1:].lstrip(" \t")
        if content[0] in "?[{&*!|>%@`,":
            self.fail("unsupported key syntax %r" % content, index)
        match = _KEY_SEP_RE.search(content)
        if not match:
            self.fail("expected 'key: value', found %r" % content, index)
        key = content[: match.start()].rstrip()
        if " #" in key or "\t#" in key:
            self.fail("expected 'key: value', found %r" % content, index)
        return key, content[match.start() + 1 :].lstrip(" \t")

    def mapping(self, indent, top_level=False):
        result = {}
        while True:
            j = self.next_content(self.i)
            if j is None:
                self.i = len(self.lines)
                break
            self.check_tabs(j)
            line = self.lines[j]
            ind = _indent_of(line)
            if ind < indent:
                self.i = j
                break
            if ind > indent:
                self.fail("unexpected indentation", j)
            content = line[ind:]
            if content == "-" or content.startswith("- "):
                if top_level:
                    self.fail("a list item where a 'key: value' line was expected", j)
                self.i = j
                break
            key, rest = self.split_key(content, j)
            if key in result:
                self.fail("duplicate key %r" % key, j)
            self.i = j + 1
            if top_level and key not in KNOWN_KEYS:
                result[key] = self.lenient_value(rest, indent, j, key)
            else:
                result[key] = self.value(rest, indent, j)
        return result

    def lenient_value(self, rest, indent, index, key):
        """Reads the value of a key Antler ignores; skips it if it uses unsupported YAML."""
        saved = self.i
        try:
            return self.value(rest, indent, index)
        except FrontmatterError as exc:
            self.notes.append("could not read the value of unknown key %r (%s)" % (key, exc))
            self.i = saved
            while self.i < len(self.lines):
                line = self.lines[self.i]
                if line.strip() and _indent_of(line) <= indent:
                    break
                self.i += 1
            return None

    def sequence(self, indent):
        items = []
        while True:
            j = self.next_content(self.i)
            if j is None:
                self.i = len(self.lines)
                break
            self.check_tabs(j)
            line = self.lines[j]
            ind = _indent_of(line)
            if ind < indent:
                self.i = j
                break
            if ind > indent:
                self.fail("unexpected indentation", j)
            content = line[ind:]
            if not (content == "-" or content.startswith("- ")):
                self.i = j
                break
            rest = content[1:].lstrip(" ")
            self.i = j + 1
            if rest and rest[0] not in "\"'[{#" and _KEY_SEP_RE.search(_strip_comment(rest)):
                self.fail("mappings inside list items are not supported here", j)
            items.append(self.value(rest, indent, j))
        return items

    def value(self, rest, indent, index):
        """Reads the value that follows 'key:' (or '-') on line `index`."""
        if rest == "" or rest.startswith("#"):
            j = self.next_content(self.i)
            if j is None:
                return None
            self.check_tabs(j)
            ind = _indent_of(self.lines[j])
            content = self.lines[j][ind:]
            is_item = content == "-" or content.startswith("- ")
            if ind > indent:
                self.i = j
                return self.sequence(ind) if is_item else self.mapping(ind)
            if ind == indent and is_item:
                self.i = j
                return self.sequence(ind)
            return None
        first = rest[0]
        if first in "|>":
            return self.block_scalar(rest, indent, index)
        if first in "\"'":
            return self.quoted(rest, indent, index)
        if first == "[":
            return self.flow(rest, index, "[", "]")
        if first == "{":
            return self.flow(rest, index, "{", "}")
        if first in "&*!":
            self.fail("anchors, aliases and tags are not supported; write the value out", index)
        if first in "%@`":
            self.fail("a value cannot start with %r; put it in quotes" % first, index)
        if rest == "-" or rest.startswith("- "):
            self.fail("a list must start on the line after its key", index)
        return self.plain(rest, indent, index)

    def plain(self, rest, indent, index):
        text = _strip_comment(rest)
        self.check_plain(text, index)
        parts = [text]
        blanks = 0
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if line.strip() == "":
                blanks += 1
                self.i += 1
                continue
            if _indent_of(line) <= indent or line.strip().startswith("#"):
                break
            segment = _strip_comment(line.strip())
            self.check_plain(segment, self.i)
            parts.append("\n" * blanks if blanks else " ")
            parts.append(segment)
            blanks = 0
            self.i += 1
        if blanks:
            # Blank lines after the value belong to nobody; let the caller see them again.
            self.i -= blanks
        text = "".join(parts)
        return _resolve_plain(text) if len(parts) == 1 else text

    def check_plain(self, text, index):
        if _KEY_SEP_RE.search(text):
            self.fail(
                "this value contains ': ' (or ends with ':'), which YAML reads as a nested "
                "key; put the whole value in quotes or use a '>-' block",
                index,
            )

    def scan_quoted_line(self, text, index):
        """Finds the closing quote in `text` (which starts with the quote); returns
        (raw inner text, text after the closing quote) or fails."""
        raw, after = self.find_close(text, 0)
        if raw is None:
            self.fail("unterminated quoted string", index)
        return raw, after

    @staticmethod
    def find_close(text, start):
        quote = text[start]
        k = start + 1
        while k < len(text):
            ch = text[k]
            if quote == '"' and ch == "\\":
                k += 2
                continue
            if ch == quote:
                if quote == "'" and k + 1 < len(text) and text[k + 1] == "'":
                    k += 2
                    continue
                return text[start + 1 : k], text[k + 1 :]
            k += 1
        return None, None

    def quoted(self, rest, indent, index):
        quote = rest[0]
        collected = rest
        raw, after = self.find_close(collected, 0)
        while raw is None:
            if self.i >= len(self.lines):
                self.fail("unterminated quoted string", index)
            collected += "\n" + self.lines[self.i]
            self.i += 1
            raw, after = self.find_close(collected, 0)
        after = after.strip()
        if after and not after.startswith("#"):
            self.fail("unexpected text %r after the closing quote" % after, index)
        return self.decode_quoted(quote, self.fold_flow(raw, quote == '"'), index)

    @staticmethod
    def fold_flow(raw, double):
        """Applies YAML line folding to a quoted scalar that spans lines."""
        if "\n" not in raw:
            return raw

        def escaped_break(text):
            return double and (len(text) - len(text.rstrip("\\"))) % 2 == 1

        lines = raw.split("\n")
        out = lines[0] if escaped_break(lines[0]) else lines[0].rstrip(" \t")
        empties = 0
        last = len(lines) - 1
        for k in range(1, len(lines)):
            if k == last:
                piece = lines[k].lstrip(" \t")
            else:
                piece = lines[k].lstrip(" \t")
                if not escaped_break(piece):
                    piece = piece.rstrip(" \t")
                if piece == "":
                    empties += 1
                    continue
            if escaped_break(out):
                out = out[:-1]
                sep = "\n" * empties
            else:
                sep = "\n" * empties if empties else " "
            out += sep + piece
            empties = 0
        return out

    def decode_quoted(self, quote, raw, index):
        if quote == "'":
            return raw.replace("''", "'")
        out = []
        k = 0
        while k < len(raw):
            ch = raw[k]
            if ch != "\\":
                out.append(ch)
                k += 1
                continue
            if k + 1 >= len(raw):
                self.fail("a double-quoted string ends with a lone backslash", index)
            code = raw[k + 1]
            if code in _ESCAPES:
                out.append(_ESCAPES[code])
                k += 2
            elif code in _HEX_ESCAPES:
                width = _HEX_ESCAPES[code]
                digits = raw[k + 2 : k + 2 + width]
                if len(digits) != width or not re.fullmatch(r"[0-9a-fA-F]+", digits):
                    self.fail("bad \\%s escape in a double-quoted string" % code, index)
                try:
                    out.append(chr(int(digits, 16)))
                except (ValueError, OverflowError):
                    self.fail("bad \\%s escape in a double-quoted string" % code, index)
                k += 2 + width
            else:
                self.fail(
                    "unknown escape '\\%s' in a double-quoted string (write '\\\\' for a "
                    "backslash, or use single quotes)" % code,
                    index,
                )
        return "".join(out)

    def block_scalar(self, header, indent, index):
        match = _BLOCK_HEADER_RE.match(header)
        if not match:
            self.fail("bad block scalar header %r" % header, index)
        style = match.group(1)
        chomp = match.group(2) or match.group(5) or ""
        explicit = match.group(3) or match.group(4)
        lines = []
        start = self.i
        content_indent = indent + int(explicit) if explicit else None
        k = start
        while k < len(self.lines):
            line = self.lines[k]
            if line.strip() == "":
                lines.append(line)
                k += 1
                continue
            ind = _indent_of(line)
            if content_indent is None:
                if ind <= indent:
                    break
                content_indent = ind
            if ind < content_indent:
                break
            lines.append(line)
            k += 1
        # Trailing blank lines are only kept by the '+' chomping indicator; leave them to
        # the caller otherwise (they are insignificant there).
        trailing = 0
        while lines and lines[-1].strip() == "":
            lines.pop()
            trailing += 1
        self.i = start + len(lines) + (trailing if chomp == "+" else 0)
        if content_indent is None:
            content_indent = indent + 1
        body = []
        for line in lines:
            if "\t" in line[:content_indent] and line.strip():
                self.fail("tabs cannot be used for indentation; use spaces", start)
            body.append(line[content_indent:] if len(line) > content_indent else "")
        if not body:
            return "\n" * trailing if chomp == "+" else ""
        if style == "|":
            text = "\n".join(body)
        else:
            text = self.fold_block(body)
        if chomp == "-":
            return text
        if chomp == "+":
            return text + "\n" + "\n" * trailing
        return text + "\n"

    @staticmethod
    def fold_block(body):
        out = ""
        prev_kind = None
        empties = 0
        for line in body:
            if line == "":
                if prev_kind is None:
                    out += "\n"
                else:
                    empties += 1
                continue
            kind = "more" if line[0] in " \t" else "text"
            if prev_kind is None:
                out += line
            elif prev_kind == "text" and kind == "text":
                out += ("\n" * empties if empties else " ") + line
            else:
                out += "\n" * (empties + 1) + line
            prev_kind = kind
            empties = 0
        return out

    def flow(self, rest, index, opening, closing):
        depth = 0
        k = 0
        end = None
        while k < len(rest):
            ch = rest[k]
            if ch in "\"'":
                raw, _ = self.find_close(rest, k)
                if raw is None:
                    self.fail("unterminated quoted string", index)
                k += len(raw) + 2
                continue
            if ch in "[{":
                depth += 1
            elif ch in "]}":
                depth -= 1
                if depth == 0:
                    end = k
                    break
            k += 1
        if end is None:
            self.fail(
                "a %s...%s collection must be closed on the same line" % (opening, closing),
                index,
            )
        if rest[end] != closing:
            self.fail("mismatched brackets", index)
        after = rest[end + 1 :].strip()
        if after and not after.startswith("#"):
            self.fail("unexpected text %r after %r" % (after, closing), index)
        inner = rest[1:end]
        items = self.split_flow(inner, index)
        if opening == "[":
            return [self.flow_scalar(item, index) for item in items]
        result = {}
        for item in items:
            if item[0] in "\"'":
                raw, after_key = self.find_close(item, 0)
                if raw is None:
                    self.fail("unterminated quoted string", index)
                key = self.decode_quoted(item[0], raw, index)
                after_key = after_key.strip()
                if not after_key.startswith(":"):
                    self.fail("expected 'key: value' inside {...}", index)
                value_text = after_key[1:].strip()
            else:
                match = _KEY_SEP_RE.search(item)
                if not match:
                    self.fail("expected 'key: value' inside {...}", index)
                key = item[: match.start()].strip()
                value_text = item[match.start() + 1 :].strip()
            if key in result:
                self.fail("duplicate key %r" % key, index)
            result[key] = self.flow_scalar(value_text, index) if value_text else None
        return result

    def split_flow(self, inner, index):
        items = []
        current = ""
        k = 0
        while k < len(inner):
            ch = inner[k]
            if ch in "\"'":
                raw, _ = self.find_close(inner, k)
                current += inner[k : k + len(raw) + 2]
                k += len(raw) + 2
                continue
            if ch in "[]{}":
                self.fail("nested collections inside [...] or {...} are not supported", index)
            if ch == ",":
                items.append(current.strip())
                current = ""
            else:
                current += ch
            k += 1
        if current.strip():
            items.append(current.strip())
        elif items:
            # A trailing comma is allowed: '[a, b,]'.
            pass
        if any(item == "" for item in items):
            self.fail("empty entry in a [...] or {...} collection", index)
        return items

    def flow_scalar(self, text, index):
        if text[0] in "\"'":
            raw, after = self.find_close(text, 0)
            if raw is None or after.strip():
                self.fail("bad quoted entry %r" % text, index)
            return self.decode_quoted(text[0], raw, index)
        return _resolve_plain(text)


def split_skill_md(text):
    """Returns (frontmatter lines, body) of a SKILL.md text; BOM and CRLF are accepted."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        raise FrontmatterError(
            "SKILL.md must start with a '---' line opening the YAML frontmatter"
        )
    for k in range(1, len(lines)):
        if lines[k].rstrip() == "---":
            return lines[1:k], "\n".join(lines[k + 1 :])
    raise FrontmatterError("the YAML frontmatter is not closed by a '---' line")


def parse_skill_md(text):
    """Parses a SKILL.md text into (frontmatter dict, body, parser notes).

    Raises FrontmatterError when the frontmatter cannot be read.
    """
    yaml_lines, body = split_skill_md(text)
    parser = _Parser(yaml_lines, first_line_number=2)
    data = parser.document()
    return data, body, parser.notes


# --------------------------------------------------------------------------- validation


def _text_field(report, data, key):
    """Returns the field as text (or None when absent/null), reporting wrong shapes."""
    if key not in data or data[key] is None:
        return None
    value = data[key]
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, YamlNumber)):
        text = str(value).lower() if isinstance(value, bool) else str(value)
        report.warn("'%s' should be a string; read %r (put it in quotes)" % (key, text))
        return text
    report.error("'%s' must be a string; found %s" % (key, _describe(value)))
    return None


def validate_frontmatter(data, dir_name=None, report=None):
    """Checks parsed frontmatter; returns the Report (errors and warnings)."""
    report = report or Report()
    report.frontmatter = data

    name = _text_field(report, data, "name")
    if name is None:
        if "name" not in data or data["name"] is None:
            report.error("frontmatter has no 'name'")
    else:
        why = check_name(name)
        if why:
            report.error(why)
        elif dir_name is not None and dir_name != name:
            report.error(
                "name '%s' does not match its directory '%s' (rename one of them)"
                % (name, dir_name)
            )
        else:
            report.name = name

    description = _text_field(report, data, "description")
    description = description.strip() if description is not None else None
    if not description:
        if "description" not in data or isinstance(data.get("description"), (str, type(None))):
            report.error("frontmatter has no 'description'")
    else:
        if len(description) > MAX_DESCRIPTION_LEN:
            report.error(
                "description is %d characters long; at most %d allowed"
                % (len(description), MAX_DESCRIPTION_LEN)
            )
        if TODO_MARKER in description:
            report.error("description still contains the template's '[TODO ...]' placeholder")
        elif len(description) < 40:
            report.warn(
                "description is very short; say what the skill does and when to use it "
                "(it is all the agent sees before opening the skill)"
            )

    _text_field(report, data, "license")

    compatibility = _text_field(report, data, "compatibility")
    if compatibility is not None and len(compatibility.strip()) > MAX_COMPATIBILITY_LEN:
        report.error(
            "compatibility is %d characters long; at most %d allowed"
            % (len(compatibility.strip()), MAX_COMPATIBILITY_LEN)
        )

    metadata = data.get("metadata")
    if metadata is not None:
        if not isinstance(metadata, dict):
            report.error(
                "'metadata' must be a mapping of strings to strings; found %s"
                % _describe(metadata)
            )
        else:
            for key, value in metadata.items():
                if isinstance(value, str):
                    continue
                if isinstance(value, (bool, YamlNumber)):
                    report.warn(
                        "metadata '%s' should be a string; write it in quotes (e.g. %s: \"%s\")"
                        % (key, key, str(value).lower() if isinstance(value, bool) else value)
                    )
                else:
                    report.error("metadata '%s' must be a string; found %s" % (key, _describe(value)))

    tools = data.get("allowed-tools")
    if tools is not None and not isinstance(tools, str):
        if isinstance(tools, list):
            for item in tools:
                if not isinstance(item, str):
                    report.error("'allowed-tools' entries must be strings; found %s" % _describe(item))
        else:
            report.error(
                "'allowed-tools' must be a space-separated string or a list; found %s"
                % _describe(tools)
            )

    for key in data:
        if key not in KNOWN_KEYS:
            report.warn(
                "unknown frontmatter key '%s' (ignored; allowed keys: %s)"
                % (key, ", ".join(KNOWN_KEYS))
            )
    return report


def validate_text(text, dir_name=None):
    """Validates the text of a SKILL.md found in a folder named `dir_name`."""
    report = Report()
    try:
        data, body, notes = parse_skill_md(text)
    except FrontmatterError as exc:
        report.error(str(exc))
        return report
    report.body = body
    validate_frontmatter(data, dir_name, report)
    for note in notes:
        report.warn(note)
    if not body.strip():
        report.warn("SKILL.md has no instructions after the frontmatter")
    else:
        lines = body.count("\n") + 1
        if lines > LONG_BODY_LINES:
            report.warn(
                "the SKILL.md body is %d lines long; move detail into references/ files "
                "and keep SKILL.md under %d lines" % (lines, LONG_BODY_LINES)
            )
        if TODO_MARKER in body:
            report.warn("the SKILL.md body still contains '[TODO ...]' placeholders")
    return report


def validate_skill_dir(path):
    """Validates the skill folder at `path`; returns a Report."""
    report = Report()
    if not os.path.isdir(path):
        report.error("%s is not a directory" % path)
        return report
    dir_name = os.path.basename(os.path.realpath(path))
    skill_file = os.path.join(path, SKILL_FILE)
    if not os.path.lexists(skill_file):
        others = [n for n in os.listdir(path) if n.lower() == SKILL_FILE.lower()]
        if others:
            report.error("found %s; the file must be named exactly %s" % (others[0], SKILL_FILE))
        else:
            report.error("%s has no %s" % (path, SKILL_FILE))
        return report
    if os.path.islink(skill_file) or not os.path.isfile(skill_file):
        report.error("%s must be a regular file (not a link or a directory)" % SKILL_FILE)
        return report
    size = os.path.getsize(skill_file)
    if size > MAX_SKILL_FILE_BYTES:
        report.error("%s is %d bytes; at most %d allowed" % (SKILL_FILE, size, MAX_SKILL_FILE_BYTES))
        return report
    try:
        with open(skill_file, "rb") as handle:
            raw = handle.read()
    except OSError as exc:
        report.error("cannot read %s: %s" % (skill_file, exc.strerror or exc))
        return report
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        report.error("%s is not UTF-8" % SKILL_FILE)
        return report
    result = validate_text(text, dir_name)
    return result


def main(argv):
    args = argv[1:]
    if len(args) != 1 or args[0] in ("-h", "--help"):
        sys.stderr.write("usage: quick_validate.py <skill-dir>\n")
        return 0 if args and args[0] in ("-h", "--help") else 2
    path = args[0]
    report = validate_skill_dir(path)
    for message in report.errors:
        print("error: %s" % message)
    for message in report.warnings:
        print("warning: %s" % message)
    if report.errors:
        return 1
    suffix = " (%d warning%s)" % (len(report.warnings), "" if len(report.warnings) == 1 else "s")
    print("ok: skill '%s' is valid%s" % (report.name, suffix if report.warnings else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
