#!/usr/bin/env python3
"""Checks the citations of a research report written in Markdown.

Usage: check_report.py REPORT.md

The report cites sources inline as [n] (several as [2][5] or [2, 5]) and lists them under a
"Sources" heading (also "References" or "Bibliography"), one per line: "[n] Title — URL".

Errors (exit status 1): no sources list, a cited number missing from it, an entry without
an http(s) URL, the same number listed twice with different URLs, no citation at all.
Warnings: listed sources never cited, one URL under two numbers, a missing Summary,
Findings or Open questions section, and Summary or Findings lines without a citation.
Prints one line per problem and, when there is no error, a final "ok: ..." line.
Exit status 2: the file cannot be read.
"""

import re
import sys

SOURCES_HEADINGS = ("sources", "references", "bibliography", "works cited")
EXPECTED = (("summary", "Summary"), ("finding", "Findings"), ("open question", "Open questions"))
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
BRACKET = re.compile(r"\[([^\[\]\n]*)\]")
NUMBERS = re.compile(r"^\s*\d+(\s*,\s*\d+)*\s*$")
ENTRY = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?\\?\[(\d+)\\?\]:?\s*(.*)$")
URL = re.compile(r"https?://[^\s<>()\[\]]+(?:\([^\s()]*\))?[^\s<>()\[\].,;:!?'\"]*")
MAX_SHOWN = 15


def strip_code(line):
    """The line without inline code spans."""
    return re.sub(r"`[^`]*`", "", line)


def citations(line):
    """The numbers cited in one line: [n] and [n, m], not link texts like [1](url)."""
    found = []
    prev_end, prev_was_citation = -1, False
    for m in BRACKET.finditer(line):
        inner = m.group(1)
        after = line[m.end():m.end() + 1]
        before = line[m.start() - 1:m.start()] if m.start() else ""
        is_citation = bool(NUMBERS.match(inner)) and after not in ("(", ":")
        if is_citation and before == "]" and not (prev_end == m.start() and prev_was_citation):
            is_citation = False  # the label of a reference-style link: [text][1]
        if before == "\\":
            is_citation = False
        if is_citation:
            found.extend(int(n) for n in re.findall(r"\d+", inner))
        prev_end, prev_was_citation = m.end(), is_citation
    return found


def sections(lines):
    """(level, title, first line index, end index) of each heading's section."""
    heads = []
    in_fence = False
    for i, line in enumerate(lines):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        m = None if in_fence else HEADING.match(line)
        if m:
            heads.append((len(m.group(1)), m.group(2).strip(), i))
    out = []
    for k, (level, title, start) in enumerate(heads):
        end = len(lines)
        for level2, _, start2 in heads[k + 1:]:
            if level2 <= level:
                end = start2
                break
        out.append((level, title, start, end))
    return out


def is_sources_title(title):
    t = title.lower().strip(" :")
    return any(t.startswith(h) for h in SOURCES_HEADINGS)


def claim_lines(lines, start, end, code_lines):
    """Lines in [start, end) that state something: text, bullets, table rows."""
    for i in range(start + 1, end):
        if i in code_lines:
            continue
        text = lines[i].strip()
        if not text or HEADING.match(text) or text.startswith(">"):
            continue
        if re.fullmatch(r"[|:\-\s]+", text) or re.fullmatch(r"[-*_]{3,}", text):
            continue
        if text.startswith("_") and text.endswith("_"):
            continue  # an italic note such as "_Researched 2026-05-01. 12 sources._"
        if text.startswith("|") and i + 1 < end and re.fullmatch(r"[|:\-\s]+", lines[i + 1].strip()):
            continue  # a table's header row
        if len(re.sub(r"[^A-Za-z0-9]", "", text)) < 25 or text.endswith(":"):
            continue  # too short to be a claim, or it introduces a list
        yield i, text


def check(text):
    errors, warnings = [], []
    lines = text.splitlines()
    code_lines, in_fence = set(), False
    for i, line in enumerate(lines):
        if FENCE.match(line):
            code_lines.add(i)
            in_fence = not in_fence
        elif in_fence:
            code_lines.add(i)
    secs = sections(lines)
    source_secs = [s for s in secs if is_sources_title(s[1])]
    source_lines = set()
    for _, _, start, end in source_secs:
        source_lines.update(range(start, end))

    entries = {}
    for i in sorted(source_lines):
        if i in code_lines:
            continue
        m = ENTRY.match(lines[i])
        if not m:
            continue
        n, rest = int(m.group(1)), m.group(2).strip()
        url = URL.search(rest)
        if not url:
            errors.append("line %d: source [%d] has no http(s) URL: %s" % (i + 1, n, rest[:80]))
            continue
        title = rest[:url.start()].strip(" -—–:|[](<").strip()
        if not title:
            warnings.append("line %d: source [%d] has no title (write '[n] Title — URL')" % (i + 1, n))
        if n in entries and entries[n][1] != url.group(0):
            errors.append("line %d: [%d] is listed twice with different URLs (%s, %s)"
                          % (i + 1, n, entries[n][1], url.group(0)))
        elif n in entries:
            warnings.append("line %d: [%d] is listed twice" % (i + 1, n))
        else:
            entries[n] = (i, url.group(0))
    if not source_secs:
        errors.append("no sources list: add a '## Sources' section with one '[n] Title — URL' per line")
    elif not entries:
        errors.append("the sources section lists no entries like '[n] Title — URL'")
    by_url = {}
    for n, (_, url) in sorted(entries.items()):
        by_url.setdefault(url.rstrip("/"), []).append(n)
    for url, numbers in by_url.items():
        if len(numbers) > 1:
            warnings.append("%s is listed as %s; cite one number" % (
                url, " and ".join("[%d]" % n for n in numbers)))

    cited = {}
    for i, line in enumerate(lines):
        if i in code_lines or i in source_lines:
            continue
        for n in citations(strip_code(line)):
            cited.setdefault(n, i)
    if not cited:
        errors.append("the report cites no source: put [n] right after each claim")
    for n, i in sorted(cited.items()):
        if entries and n not in entries:
            errors.append("line %d: [%d] is cited but not in the sources list" % (i + 1, n))
    unused = [n for n in sorted(entries) if n not in cited]
    if unused:
        warnings.append("listed but never cited: %s (cite them or remove them)"
                        % ", ".join("[%d]" % n for n in unused))

    titles = [s[1].lower() for s in secs]
    for key, name in EXPECTED:
        if not any(key in t for t in titles):
            warnings.append("no '%s' section (ignore when the headings are in another language)" % name)
    uncited = []
    for _, title, start, end in secs:
        t = title.lower()
        if any(key in t for key in ("summary", "finding")) and not is_sources_title(title):
            for i, line in claim_lines(lines, start, end, code_lines):
                if not citations(strip_code(line)):
                    uncited.append("line %d: no citation: %s" % (i + 1, line[:90]))
    uncited = sorted(set(uncited), key=lambda s: int(s.split(":")[0].split()[1]))
    warnings.extend(uncited[:MAX_SHOWN])
    if len(uncited) > MAX_SHOWN:
        warnings.append("... and %d more lines without a citation" % (len(uncited) - MAX_SHOWN))
    return errors, warnings, cited, entries


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        print("error: cannot read %s: %s" % (argv[1], e), file=sys.stderr)
        return 2
    errors, warnings, cited, entries = check(text)
    for e in errors:
        print("error: " + e)
    for w in warnings:
        print("warning: " + w)
    if errors:
        return 1
    print("ok: %d sources cited, all of them listed (%d entries in the sources list)"
          % (len(cited), len(entries)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
