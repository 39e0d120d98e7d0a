#!/usr/bin/env python3
"""Profile a CSV/TSV file and write a Markdown report.

Usage:
    profile_csv.py <file> [--out REPORT.md] [--delimiter X] [--max-rows N]
                   [--no-header] [--encoding ENC] [--top N]

What it does:
  * detects the encoding (UTF-8 with or without BOM, UTF-16 with BOM, else Windows-1252)
    and the delimiter (comma, tab, semicolon or pipe; --delimiter overrides; .tsv files
    default to tab); quoted fields with delimiters, quotes and newlines are handled;
  * infers each column's type from its non-missing values: integer, float, boolean
    (true/false, yes/no, t/f, y/n), date (ISO 8601 YYYY-MM-DD), datetime (ISO 8601 date
    and time) or text; a cell is missing when empty or NA, N/A, null, None, NaN, #N/A;
  * per column: non-missing and missing counts, distinct values, and by type
    min/max/mean/median/sample standard deviation/sum (numbers), earliest/latest
    (dates), top values and lengths (text and booleans);
  * counts exact duplicate rows and rows with a wrong number of fields.

The file is streamed, so memory stays bounded: distinct values are tracked up to 10,000
per column (beyond that, counts are lower bounds and the median is estimated from a
10,000-value sample, as the report says), and duplicate detection remembers up to
500,000 distinct rows.

The report goes to --out (parent folder must exist) or to stdout.
Exit status: 0 done, 1 unreadable or unusable input, 2 bad command line.
"""

import argparse
import codecs
import csv
import datetime as dt
import hashlib
import math
import os
import random
import re
import sys

DISTINCT_CAP = 10_000
SAMPLE_SIZE = 10_000
ROW_FINGERPRINT_CAP = 500_000
DUPLICATE_EXAMPLES = 5
SNIFF_BYTES = 64 * 1024
ENCODING_PROBE_BYTES = 1024 * 1024
KEY_MAX_CHARS = 200
CELL_MAX_CHARS = 60
MISSING_TOKENS = {"", "na", "n/a", "null", "none", "nan", "#n/a"}
BOOL_TRUE = {"true", "yes", "t", "y"}
BOOL_FALSE = {"false", "no", "f", "n"}
DELIMITER_NAMES = {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe", " ": "space"}
DELIMITER_ALIASES = {
    "comma": ",", "tab": "\t", "\\t": "\t", "semicolon": ";", "pipe": "|", "space": " ",
}
CANDIDATE_DELIMITERS = (",", "\t", ";", "|")

INT_RE = re.compile(r"[+-]?[0-9]+")
FLOAT_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
DATETIME_RE = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:[.,][0-9]{1,9})?)?"
    r"(?:Z|[+-][0-9]{2}(?::?[0-9]{2})?)?"
)


class ProfileError(Exception):
    """The input cannot be profiled."""


# --------------------------------------------------------------------------- input


def detect_encoding(path):
    """Returns (codec name, label for the report)."""
    with open(path, "rb") as handle:
        head = handle.read(ENCODING_PROBE_BYTES)
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig", "UTF-8 with BOM (BOM ignored)"
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "utf-32", "UTF-32 with BOM"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16", "UTF-16 with BOM"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte character cut by the probe's end is not an error.
        if not (len(head) == ENCODING_PROBE_BYTES and exc.start >= len(head) - 3):
            return "cp1252", "Windows-1252 (the file is not valid UTF-8)"
    return "utf-8", "UTF-8"


def parse_delimiter(text):
    value = DELIMITER_ALIASES.get(text.lower(), text)
    if len(value) != 1 or value in "\"\r\n":
        raise argparse.ArgumentTypeError(
            "delimiter must be one character (or comma, tab, semicolon, pipe, space)"
        )
    return value


def sniff_dialect(sample, truncated):
    """Picks (delimiter, skipinitialspace) giving the most consistent field counts."""
    lines = sample.splitlines(keepends=True)
    if truncated and len(lines) > 1:
        lines = lines[:-1]
    text = "".join(lines)
    best = None
    for delimiter in CANDIDATE_DELIMITERS:
        for skip_space in (False, True):
            try:
                reader = csv.reader(
                    text.splitlines(keepends=True),
                    delimiter=delimiter,
                    quotechar='"',
                    skipinitialspace=skip_space,
                )
                counts = [len(row) for _, row in zip(range(200), reader) if row]
            except csv.Error:
                continue
            if truncated and len(counts) > 1:
                counts = counts[:-1]
            if not counts:
                continue
            mode = max(set(counts), key=lambda c: (counts.count(c), c))
            consistency = counts.count(mode) / len(counts)
            score = (mode > 1, round(consistency, 6), mode)
            if best is None or score > best[0]:
                best = (score, delimiter, skip_space)
    if best is None or not best[0][0]:
        return ",", False
    return best[1], best[2]


def unique_names(raw_names):
    names = []
    seen = set()
    for index, raw in enumerate(raw_names, start=1):
        base = raw.strip() or "column_%d" % index
        name = base
        suffix = 2
        while name in seen:
            name = "%s_%d" % (base, suffix)
            suffix += 1
        seen.add(name)
        names.append(name)
    return names


# --------------------------------------------------------------------------- statistics


def value_key(value):
    if len(value) <= KEY_MAX_CHARS:
        return value
    digest = hashlib.blake2b(value.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
    return value[:KEY_MAX_CHARS] + "\u2026#" + digest


def parse_datetime(value):
    """Returns a naive datetime (UTC when the value has an offset), or None."""
    try:
        parsed = dt.datetime.fromisoformat(value.replace(",", ".").replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return parsed


class Column:
    """Streaming statistics of one column."""

    def __init__(self, name, rng):
        self.name = name
        self.count = 0
        self.missing = 0
        self.counter = {}
        self.overflow = False
        self.n_bool = 0
        self.n_true = 0
        self.n_int = 0
        self.n_num = 0
        self.n_date = 0
        self.n_datetime = 0
        self.leading_zero = 0
        self.not_num = None
        self.not_date = None
        self.not_bool = None
        self.example = None
        # numbers (Welford)
        self.num_mean = 0.0
        self.num_m2 = 0.0
        self.num_min = None
        self.num_max = None
        self.int_sum = 0
        self.float_sum = 0.0
        self.float_comp = 0.0
        self.sample = []
        self.rng = rng
        # dates
        self.date_min = None
        self.date_max = None
        # text
        self.len_min = None
        self.len_max = None

    def add(self, raw):
        value = raw.strip()
        if value.lower() in MISSING_TOKENS:
            self.missing += 1
            return
        self.count += 1
        if self.example is None:
            self.example = value
        length = len(value)
        if self.len_min is None or length < self.len_min:
            self.len_min = length
        if self.len_max is None or length > self.len_max:
            self.len_max = length

        key = value_key(value)
        seen = self.counter.get(key)
        if seen is not None:
            self.counter[key] = seen + 1
        elif len(self.counter) < DISTINCT_CAP:
            self.counter[key] = 1
        else:
            self.overflow = True

        lower = value.lower()
        if lower in BOOL_TRUE:
            self.n_bool += 1
            self.n_true += 1
        elif lower in BOOL_FALSE:
            self.n_bool += 1
        elif self.not_bool is None:
            self.not_bool = value

        number = None
        if INT_RE.fullmatch(value):
            self.n_int += 1
            number = int(value)
            self.int_sum += number
            if len(value.lstrip("+-")) > 1 and value.lstrip("+-").startswith("0"):
                self.leading_zero += 1
        elif FLOAT_RE.fullmatch(value):
            number = float(value)
            if math.isinf(number):
                number = None
        if number is not None:
            self.add_number(number)
        elif self.not_num is None:
            self.not_num = value

        if length >= 10 and value[0].isdigit() and DATE_RE.match(value):
            moment = None
            if length == 10:
                try:
                    moment = dt.datetime.combine(dt.date.fromisoformat(value), dt.time())
                    self.n_date += 1
                except ValueError:
                    moment = None
            elif DATETIME_RE.fullmatch(value):
                moment = parse_datetime(value)
                if moment is not None:
                    self.n_datetime += 1
            if moment is not None:
                if self.date_min is None or moment < self.date_min:
                    self.date_min = moment
                if self.date_max is None or moment > self.date_max:
                    self.date_max = moment
            elif self.not_date is None:
                self.not_date = value
        elif self.not_date is None:
            self.not_date = value

    def add_number(self, number):
        self.n_num += 1
        as_float = float(number)
        delta = as_float - self.num_mean
        self.num_mean += delta / self.n_num
        self.num_m2 += delta * (as_float - self.num_mean)
        # Neumaier summation keeps float sums accurate over long columns.
        total = self.float_sum + as_float
        if abs(self.float_sum) >= abs(as_float):
            self.float_comp += (self.float_sum - total) + as_float
        else:
            self.float_comp += (as_float - total) + self.float_sum
        self.float_sum = total
        if self.num_min is None or number < self.num_min:
            self.num_min = number
        if self.num_max is None or number > self.num_max:
            self.num_max = number
        if len(self.sample) < SAMPLE_SIZE:
            self.sample.append(as_float)
        else:
            slot = self.rng.randrange(self.n_num)
            if slot < SAMPLE_SIZE:
                self.sample[slot] = as_float

    # ---- results

    @property
    def kind(self):
        n = self.count
        if n == 0:
            return "empty"
        if self.n_bool == n:
            return "boolean"
        if self.n_int == n:
            return "integer"
        if self.n_num == n:
            return "float"
        if self.n_date == n:
            return "date"
        if self.n_date + self.n_datetime == n:
            return "datetime"
        return "text"

    @property
    def unique_text(self):
        return ">%d" % DISTINCT_CAP if self.overflow else str(len(self.counter))

    def numeric_sum(self):
        if self.kind == "integer":
            return self.int_sum
        return self.float_sum + self.float_comp

    def mean(self):
        if self.kind == "integer":
            return self.int_sum / self.count
        return self.numeric_sum() / self.count

    def stdev(self):
        if self.n_num < 2:
            return None
        return math.sqrt(max(self.num_m2, 0.0) / (self.n_num - 1))

    def median(self):
        """Returns (median, exact?)."""
        if not self.overflow:
            values = sorted((float(k), c) for k, c in self.counter.items())
            total = sum(c for _, c in values)
            lower_rank = (total - 1) // 2
            upper_rank = total // 2
            lower = upper = None
            seen = 0
            for number, count in values:
                if lower is None and seen + count > lower_rank:
                    lower = number
                if seen + count > upper_rank:
                    upper = number
                    break
                seen += count
            return (lower + upper) / 2, True
        values = sorted(self.sample)
        mid = len(values) // 2
        if len(values) % 2:
            return values[mid], False
        return (values[mid - 1] + values[mid]) / 2, False

    def top(self, limit):
        ranked = sorted(self.counter.items(), key=lambda item: (-item[1], item[0]))
        return ranked[:limit]

    def type_hint(self):
        """For text columns that are almost another type: a note, else None."""
        if self.kind != "text" or self.count < 10:
            return None
        candidates = [
            ("numeric", self.n_num, self.not_num),
            ("date", self.n_date + self.n_datetime, self.not_date),
            ("boolean", self.n_bool, self.not_bool),
        ]
        label, matched, example = max(candidates, key=lambda c: c[1])
        if matched / self.count < 0.9:
            return None
        return "mostly %s: %d of %d values are not (e.g. %s)" % (
            label, self.count - matched, self.count, md_code(example or ""))


# --------------------------------------------------------------------------- profiling


class Profile:
    def __init__(self):
        self.columns = []
        self.rows = 0
        self.blank_lines = 0
        self.short_rows = 0
        self.long_rows = 0
        self.ragged_examples = []
        self.duplicates = 0
        self.duplicate_examples = []
        self.fingerprints_full = False
        self.stopped_early = False
        self.header_looks_numeric = False


def profile_file(path, delimiter=None, max_rows=None, header=True, encoding=None):
    if not os.path.isfile(path):
        raise ProfileError("%s is not a file" % path)
    if os.path.getsize(path) == 0:
        raise ProfileError("%s is empty" % path)
    if encoding:
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise ProfileError("unknown encoding %r" % encoding)
        codec, encoding_label = encoding, encoding
    else:
        codec, encoding_label = detect_encoding(path)

    with open(path, encoding=codec, errors="replace", newline="") as handle:
        sample = handle.read(SNIFF_BYTES)
        truncated = len(sample) == SNIFF_BYTES
    if "\x00" in sample and codec.startswith("utf-8"):
        raise ProfileError("%s looks like a binary file, not CSV text" % path)
    skip_space = False
    if delimiter is None:
        if os.path.splitext(path)[1].lower() in (".tsv", ".tab"):
            delimiter = "\t"
        else:
            delimiter, skip_space = sniff_dialect(sample, truncated)

    profile = Profile()
    profile.path = path
    profile.size = os.path.getsize(path)
    profile.encoding = encoding_label
    profile.delimiter = delimiter
    profile.header = header
    profile.max_rows = max_rows
    rng = random.Random(20240601)
    seen_rows = {}

    with open(path, encoding=codec, errors="replace", newline="") as handle:
        reader = csv.reader(
            handle,
            delimiter=delimiter,
            quotechar='"',
            doublequote=True,
            skipinitialspace=skip_space,
            strict=False,
        )
        last_line = 0
        width = None
        try:
            for row in reader:
                start_line = last_line + 1
                last_line = reader.line_num
                if not row or (
                    len(row) == 1 and not row[0].strip() and (width is None or width > 1)
                ):
                    profile.blank_lines += 1
                    continue
                if width is None:
                    width = len(row)
                    if header:
                        names = unique_names(row)
                        profile.header_looks_numeric = all(
                            FLOAT_RE.fullmatch(c.strip()) for c in row if c.strip()
                        ) and any(c.strip() for c in row)
                        profile.columns = [Column(n, rng) for n in names]
                        continue
                    profile.columns = [
                        Column("column_%d" % i, rng) for i in range(1, width + 1)
                    ]
                if max_rows is not None and profile.rows >= max_rows:
                    profile.stopped_early = True
                    break
                profile.rows += 1
                if len(row) != width:
                    if len(row) < width:
                        profile.short_rows += 1
                        row = row + [""] * (width - len(row))
                    else:
                        profile.long_rows += 1
                        row = row[:width]
                    if len(profile.ragged_examples) < DUPLICATE_EXAMPLES:
                        profile.ragged_examples.append(start_line)
                for column, cell in zip(profile.columns, row):
                    column.add(cell)
                digest = hashlib.blake2b(
                    "\x1f".join(row).encode("utf-8", "surrogatepass"), digest_size=8
                ).digest()
                first = seen_rows.get(digest)
                if first is not None:
                    profile.duplicates += 1
                    if len(profile.duplicate_examples) < DUPLICATE_EXAMPLES:
                        profile.duplicate_examples.append((start_line, first))
                elif len(seen_rows) < ROW_FINGERPRINT_CAP:
                    seen_rows[digest] = start_line
                else:
                    profile.fingerprints_full = True
        except csv.Error as exc:
            raise ProfileError("malformed CSV near line %d: %s" % (reader.line_num, exc))
        except UnicodeError as exc:
            raise ProfileError("cannot decode %s as %s: %s" % (path, codec, exc))
    if width is None:
        raise ProfileError("%s holds no rows" % path)
    return profile


# --------------------------------------------------------------------------- report


def fmt_num(value):
    if value is None:
        return "\u2014"
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    magnitude = abs(value)
    if magnitude >= 1e9 or magnitude < 1e-3:
        return "%.6g" % value
    return ("%.4f" % value).rstrip("0").rstrip(".")


def fmt_size(size):
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return "%d %s" % (size, unit) if unit == "bytes" else "%.1f %s" % (size, unit)
        size /= 1024.0
    return str(size)


def pct(part, whole):
    return "%.1f%%" % (100.0 * part / whole) if whole else "\u2014"


def md_code(text):
    """Shows data text literally in a Markdown table cell: a code span, pipes escaped."""
    text = re.sub(r"[\x00-\x1f\x7f\u2028\u2029]+", " ", text)
    if len(text) > CELL_MAX_CHARS:
        text = text[: CELL_MAX_CHARS - 1] + "\u2026"
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return fence + pad + text.replace("|", "\\|") + pad + fence


def display_key(key):
    return key.split("\u2026#", 1)[0] + "\u2026" if "\u2026#" in key else key


def render(profile, top_n):
    cols = profile.columns
    out = []
    add = out.append
    name = os.path.basename(profile.path)
    add("# Data profile: %s" % md_code(name))
    add("")
    cells = profile.rows * len(cols)
    missing = sum(c.missing for c in cols)
    delim_name = DELIMITER_NAMES.get(profile.delimiter, "custom")
    add("| Property | Value |")
    add("| --- | --- |")
    add("| File | %s (%s) |" % (md_code(name), fmt_size(profile.size)))
    add("| Encoding | %s |" % profile.encoding)
    add("| Delimiter | %s (%s) |" % (delim_name, md_code(profile.delimiter.replace("\t", "\\t"))))
    add("| Header row | %s |" % ("yes" if profile.header else "no (columns numbered)"))
    rows_text = str(profile.rows)
    if profile.stopped_early:
        rows_text += " (stopped at --max-rows %d)" % profile.max_rows
    add("| Data rows | %s |" % rows_text)
    add("| Columns | %d |" % len(cols))
    add("| Missing cells | %d of %d (%s) |" % (missing, cells, pct(missing, cells)))
    dup_text = str(profile.duplicates)
    if profile.rows:
        dup_text += " (%s of rows)" % pct(profile.duplicates, profile.rows)
    if profile.fingerprints_full:
        dup_text += ", at least"
    add("| Duplicate rows | %s |" % dup_text)
    ragged = profile.short_rows + profile.long_rows
    add("| Rows with wrong field count | %d |" % ragged)
    add("")

    add("## Columns")
    add("")
    add("| # | Column | Type | Non-missing | Missing | Missing % | Unique | Example |")
    add("| ---: | --- | --- | ---: | ---: | ---: | ---: | --- |")
    for index, c in enumerate(cols, start=1):
        add("| %d | %s | %s | %d | %d | %s | %s | %s |" % (
            index, md_code(c.name), c.kind, c.count, c.missing,
            pct(c.missing, c.count + c.missing), c.unique_text,
            md_code(c.example) if c.example is not None else "\u2014"))
    add("")

    numeric = [c for c in cols if c.kind in ("integer", "float")]
    estimated = False
    if numeric:
        add("## Numeric columns")
        add("")
        add("| Column | Min | Max | Mean | Median | Std dev | Sum |")
        add("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for c in numeric:
            median, exact = c.median()
            estimated = estimated or not exact
            add("| %s | %s | %s | %s | %s%s | %s | %s |" % (
                md_code(c.name), fmt_num(c.num_min), fmt_num(c.num_max), fmt_num(c.mean()),
                "" if exact else "\u2248", fmt_num(median), fmt_num(c.stdev()),
                fmt_num(c.numeric_sum())))
        add("")

    dated = [c for c in cols if c.kind in ("date", "datetime")]
    if dated:
        add("## Date columns")
        add("")
        add("| Column | Earliest | Latest | Span (days) |")
        add("| --- | --- | --- | ---: |")
        for c in dated:
            if c.kind == "date":
                first, last = c.date_min.date().isoformat(), c.date_max.date().isoformat()
            else:
                first, last = c.date_min.isoformat(sep=" "), c.date_max.isoformat(sep=" ")
            span = (c.date_max - c.date_min).total_seconds() / 86400.0
            add("| %s | %s | %s | %s |" % (md_code(c.name), first, last, fmt_num(round(span, 2))))
        add("")

    categorical = [c for c in cols if c.kind in ("text", "boolean")]
    if categorical:
        add("## Top values")
        add("")
        for c in categorical:
            details = "%s, %d non-missing, %s unique" % (c.kind, c.count, c.unique_text)
            if c.kind == "text":
                details += ", length %d\u2013%d" % (c.len_min, c.len_max)
            else:
                details += ": %d true, %d false" % (c.n_true, c.count - c.n_true)
            add("### %s (%s)" % (md_code(c.name), details))
            add("")
            add("| Value | Count | Share |")
            add("| --- | ---: | ---: |")
            for key, count in c.top(top_n):
                add("| %s | %d | %s |" % (md_code(display_key(key)), count, pct(count, c.count)))
            add("")

    notes = []
    if profile.duplicate_examples:
        examples = ", ".join("line %d repeats line %d" % pair for pair in profile.duplicate_examples)
        more = " (first %d shown)" % DUPLICATE_EXAMPLES if profile.duplicates > DUPLICATE_EXAMPLES else ""
        notes.append("Duplicate rows: %s%s." % (examples, more))
    if ragged:
        notes.append(
            "%d row(s) had fewer fields than the header (padded as missing) and %d had more "
            "(extra fields ignored); first at line(s) %s."
            % (profile.short_rows, profile.long_rows, ", ".join(map(str, profile.ragged_examples)))
        )
    if profile.blank_lines:
        notes.append("%d blank line(s) were skipped." % profile.blank_lines)
    for c in cols:
        hint = c.type_hint()
        if hint:
            notes.append("Column %s is text but %s." % (md_code(c.name), hint))
        if c.kind == "integer" and c.leading_zero:
            notes.append(
                "Column %s has %d value(s) with leading zeros; if these are codes or IDs, "
                "treat the column as text." % (md_code(c.name), c.leading_zero)
            )
        if c.kind == "empty":
            notes.append("Column %s has no values." % md_code(c.name))
    if profile.header and profile.header_looks_numeric:
        notes.append("The header row looks like data; rerun with --no-header if the file has none.")
    if any(c.overflow for c in cols):
        notes.append(
            "Distinct values are tracked up to %d per column; columns marked >%d have more, "
            "and their top-value counts cover only values seen before the limit."
            % (DISTINCT_CAP, DISTINCT_CAP)
        )
    if any(c.kind == "datetime" for c in cols):
        notes.append("Times with a UTC offset (or Z) are converted to UTC for earliest/latest.")
    if estimated:
        notes.append("Medians marked \u2248 are estimated from a %d-value random sample." % SAMPLE_SIZE)
    if profile.fingerprints_full:
        notes.append(
            "Duplicate detection remembered the first %d distinct rows; the count is a lower "
            "bound." % ROW_FINGERPRINT_CAP
        )
    notes.append(
        "Missing means an empty cell or NA, N/A, null, None, NaN, #N/A (any case). "
        "Std dev is the sample standard deviation (n \u2212 1). Date spans are in days."
    )
    add("## Notes")
    add("")
    for note in notes:
        add("- " + note)
    add("")
    return "\n".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="profile_csv.py", description="Profile a CSV/TSV file as a Markdown report."
    )
    parser.add_argument("file", help="CSV or TSV file")
    parser.add_argument("--out", help="write the report here (default: stdout)")
    parser.add_argument("--delimiter", type=parse_delimiter, help="field delimiter (default: detected)")
    parser.add_argument("--max-rows", type=int, help="profile only the first N data rows")
    parser.add_argument("--no-header", action="store_true", help="the first row is data")
    parser.add_argument("--encoding", help="text encoding (default: detected)")
    parser.add_argument("--top", type=int, default=5, help="top values per text column (default 5)")
    args = parser.parse_args(argv)
    if args.max_rows is not None and args.max_rows < 1:
        parser.error("--max-rows must be at least 1")
    if args.top < 1:
        parser.error("--top must be at least 1")

    csv.field_size_limit(2**31 - 1)
    try:
        profile = profile_file(
            args.file,
            delimiter=args.delimiter,
            max_rows=args.max_rows,
            header=not args.no_header,
            encoding=args.encoding,
        )
    except ProfileError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 1
    except OSError as exc:
        print("error: cannot read %s: %s" % (args.file, exc.strerror or exc), file=sys.stderr)
        return 1
    report = render(profile, args.top)
    if args.out:
        try:
            with open(args.out, "w", encoding="utf-8") as handle:
                handle.write(report)
        except OSError as exc:
            print("error: cannot write %s: %s" % (args.out, exc.strerror or exc), file=sys.stderr)
            return 1
        print(
            "Wrote %s (%d rows, %d columns, %d duplicate row%s)"
            % (args.out, profile.rows, len(profile.columns), profile.duplicates,
               "" if profile.duplicates == 1 else "s"),
            file=sys.stderr,
        )
    else:
        sys.stdout.write(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
