#!/usr/bin/env python3
"""Convert Markdown to a standalone HTML report (one file, embedded CSS, no scripts).

Usage:
    md_to_html.py <input.md | -> [-o OUTPUT.html] [--title TEXT] [--toc]
                  [--embed-images] [--css FILE] [--lang CODE]

Output defaults to the input path with a .html extension (stdout when reading stdin).
A leading YAML front matter block (between '---' lines) is skipped; its title: is used.

Supported Markdown (CommonMark/GitHub style, practical subset):
  headings (# to ######, and underlined with === or ---), paragraphs, hard line breaks
  (two trailing spaces or a trailing backslash), **bold**, *italic*, ***both***,
  ~~strikethrough~~, `inline code`, fenced code blocks (``` or ~~~, with a language),
  indented code blocks, block quotes, bullet / numbered / task lists (nested by
  indentation), pipe tables with :--- / :---: / ---: alignment, horizontal rules,
  [links](url "title"), ![images](src "title"), reference links ([text][ref] with
  [ref]: url lines), <https://autolinks>, bare https:// URLs, backslash escapes and
  HTML entities (&amp;, &copy;, &#169;).

Safety: raw HTML in the input is shown as text, never passed through; every piece of text
and every attribute is HTML-escaped. Link URLs may only be http(s), mailto, tel, relative
paths or #anchors; image URLs http(s), relative paths or data:image/... (others are
dropped with a warning). A Content-Security-Policy meta tag also forbids scripts.

Options:
  --title TEXT     document title (default: front matter title, else the first level-1
                   heading, else the file name)
  --toc            add a table of contents of level-2 and level-3 headings
  --embed-images   inline local images (png, jpg, gif, webp, svg, bmp; up to 10 MiB each)
                   as data: URIs so the HTML file is fully self-contained
  --css FILE       extra CSS appended after the built-in stylesheet
  --lang CODE      value of <html lang> (default: en)

Warnings (missing images, blocked URLs, unclosed code fences) go to stderr.
Exit status: 0 written, 1 input/output error, 2 bad command line.
"""

import argparse
import base64
import html
import os
import re
import sys
import urllib.parse

MAX_EMBED_BYTES = 10 * 1024 * 1024
IMAGE_TYPES = {
    ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
    ".webp": "image/webp", ".svg": "image/svg+xml", ".bmp": "image/bmp",
}
LINK_SCHEMES = {"http", "https", "mailto", "tel"}
IMAGE_SCHEMES = {"http", "https"}
DATA_IMAGE_RE = re.compile(r"data:image/(?:png|jpe?g|gif|webp|svg\+xml|bmp);base64,[a-z0-9+/=]*$")
SCHEME_RE = re.compile(r"([a-z][a-z0-9+.\-]*):")
ASCII_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
TOC_MARK = "\x00TOC\x00"

# Block patterns (tabs are expanded to spaces first).
FENCE_RE = re.compile(r"^( {0,3})(`{3,}|~{3,})[ \t]*([^`]*?)[ \t]*$")
ATX_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
HR_RE = re.compile(r"^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
SETEXT_RE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
QUOTE_RE = re.compile(r"^ {0,3}> ?")
LIST_RE = re.compile(r"^( {0,3})([-+*]|([0-9]{1,9})([.)]))(?:([ \t]+)(.*)|$)")
TABLE_DELIM_RE = re.compile(r"^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
REF_DEF_RE = re.compile(
    r"^ {0,3}\[([^\]]+)\]:[ \t]*(<[^>\n]*>|\S+)"
    r"(?:[ \t]+(\"[^\"]*\"|'[^']*'|\([^)]*\)))?[ \t]*$"
)
TASK_RE = re.compile(r"^\[([ xX])\][ \t]+")

# Inline patterns.
SPECIAL_RE = re.compile(r"[\\`!\[<*_~\n&]|(?<![A-Za-z0-9])https?://")
ENTITY_RE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
AUTOLINK_RE = re.compile(r"<([A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*)>")
EMAIL_RE = re.compile(
    r"<([A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)>"
)
BARE_URL_RE = re.compile(r"https?://[^\s<>\"'`]+")

CSS = """
:root { --fg: #1f2328; --muted: #59636e; --bg: #ffffff; --soft: #f6f8fa; --line: #d1d9e0;
  --accent: #0969da; --code: #f2f4f7; }
@media screen and (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --soft: #151b23; --line: #3d444d;
    --accent: #4493f8; --code: #1c222b; }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
    "Noto Sans", sans-serif; }
main.report { max-width: 860px; margin: 0 auto; padding: 48px 28px 72px; }
h1, h2, h3, h4, h5, h6 { line-height: 1.25; margin: 1.6em 0 0.6em; font-weight: 650; }
h1 { font-size: 2em; margin-top: 0; padding-bottom: 0.3em; border-bottom: 1px solid var(--line); }
h2 { font-size: 1.5em; padding-bottom: 0.25em; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.25em; } h4 { font-size: 1.05em; }
h5, h6 { font-size: 0.95em; color: var(--muted); }
p, ul, ol, blockquote, pre, table { margin: 0 0 1em; }
a { color: var(--accent); text-decoration: none; } a:hover { text-decoration: underline; }
ul, ol { padding-left: 1.8em; } li + li { margin-top: 0.25em; } li > ul, li > ol { margin: 0.25em 0 0; }
li.task { list-style: none; } li.task input { margin: 0 0.45em 0 -1.4em; vertical-align: middle; }
blockquote { margin-left: 0; padding: 0.1em 1em; color: var(--muted); border-left: 4px solid var(--line); }
code { font: 0.9em/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
  background: var(--code); padding: 0.15em 0.35em; border-radius: 4px; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 14px 16px;
  overflow-x: auto; line-height: 1.45; }
pre code { background: none; padding: 0; font-size: 0.875em; white-space: pre; }
table { border-collapse: collapse; display: block; max-width: 100%; overflow-x: auto;
  font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--line); padding: 6px 12px; vertical-align: top; }
th { background: var(--soft); font-weight: 600; text-align: left; }
tbody tr:nth-child(even) { background: var(--soft); }
.al-l { text-align: left; } .al-c { text-align: center; } .al-r { text-align: right; }
hr { border: 0; border-top: 1px solid var(--line); margin: 2em 0; }
img { max-width: 100%; height: auto; }
nav.toc { background: var(--soft); border: 1px solid var(--line); border-radius: 6px;
  padding: 12px 20px; margin: 0 0 2em; }
nav.toc .toc-title { font-weight: 650; margin: 0 0 0.4em; }
nav.toc ul { margin: 0; padding-left: 1.2em; } nav.toc li + li { margin-top: 0.1em; }
nav.toc li.toc-sub { margin-left: 1.2em; list-style-type: circle; }
@media print {
  body { background: #fff; color: #000; font-size: 11pt; }
  main.report { max-width: none; padding: 0; }
  a { color: inherit; text-decoration: underline; }
  pre, blockquote, table, img, tr { page-break-inside: avoid; }
  h1, h2, h3, h4 { page-break-after: avoid; }
  table { display: table; }
}
""".strip()

CSP = (
    "default-src 'none'; img-src * data: blob: file:; style-src 'unsafe-inline'; "
    "base-uri 'none'; form-action 'none'"
)


def esc(text):
    return html.escape(text, quote=False)


def attr(text):
    return html.escape(text, quote=True)


def strip_tags(fragment):
    return html.unescape(re.sub(r"<[^>]*>", "", fragment))


def normalize_label(label):
    return " ".join(label.split()).casefold()


def unescape_md(text):
    """Resolves backslash escapes and entities in URLs and titles."""
    text = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)
    return ENTITY_RE.sub(lambda m: html.unescape(m.group(0)), text)


class Context:
    """Shared state: link references, URL policy, warnings, headings."""

    def __init__(self, base_dir, embed_images):
        self.refs = {}
        self.base_dir = base_dir
        self.embed_images = embed_images
        self.warnings = []
        self.headings = []
        self.ids = set()
        self._embedded = {}

    def warn(self, message):
        if message not in self.warnings:
            self.warnings.append(message)

    def safe_url(self, url, image=False):
        """Returns a URL safe to put in href/src, or None when it must be dropped."""
        url = url.strip()
        probe = re.sub(r"[\x00-\x20\x7f]+", "", url).lower()
        scheme = SCHEME_RE.match(probe)
        if scheme:
            name = scheme.group(1)
            allowed = name in (IMAGE_SCHEMES if image else LINK_SCHEMES)
            if image and name == "data":
                allowed = bool(DATA_IMAGE_RE.match(probe))
            if not allowed:
                self.warn("dropped %s with a disallowed URL: %s" % (
                    "image" if image else "link", url[:80]))
                return None
            return url.replace(" ", "%20")
        if image:
            return self.local_image(url)
        return url.replace(" ", "%20")

    def local_image(self, url):
        """Checks (and optionally embeds) an image referenced by a local path."""
        if url.startswith("//"):
            return url
        path_part = urllib.parse.unquote(url.split("#", 1)[0].split("?", 1)[0])
        path = path_part if os.path.isabs(path_part) else os.path.join(self.base_dir, path_part)
        if not os.path.isfile(path):
            self.warn("image not found: %s" % url)
            return url.replace(" ", "%20")
        if not self.embed_images:
            return url.replace(" ", "%20")
        if path in self._embedded:
            return self._embedded[path]
        mime = IMAGE_TYPES.get(os.path.splitext(path)[1].lower())
        if mime is None:
            self.warn("not embedded (unknown image type): %s" % url)
            return url.replace(" ", "%20")
        size = os.path.getsize(path)
        if size > MAX_EMBED_BYTES:
            self.warn("not embedded (larger than 10 MiB): %s" % url)
            return url.replace(" ", "%20")
        try:
            with open(path, "rb") as handle:
                data = base64.b64encode(handle.read()).decode("ascii")
        except OSError as exc:
            self.warn("not embedded (%s): %s" % (exc.strerror or exc, url))
            return url.replace(" ", "%20")
        uri = "data:%s;base64,%s" % (mime, data)
        self._embedded[path] = uri
        return uri

    def heading_id(self, text):
        slug = re.sub(r"[^\w\- ]+", "", text.casefold()).strip()
        slug = re.sub(r"[\s]+", "-", slug) or "section"
        candidate = slug
        n = 1
        while candidate in self.ids:
            candidate = "%s-%d" % (slug, n)
            n += 1
        self.ids.add(candidate)
        return candidate


# --------------------------------------------------------------------------- inline


class Inline:
    def __init__(self, ctx):
        self.ctx = ctx
        self.depth = 0
        # (text, char, k) -> smallest start from which no closer exists; keeps runs of
        # unmatched '*' linear instead of quadratic.
        self.no_closer = {}

    def render(self, text, in_link=False):
        if self.depth == 0:
            self.no_closer.clear()
        self.depth += 1
        try:
            return self._render(text, in_link)
        finally:
            self.depth -= 1

    def _render(self, text, in_link):
        out = []
        buf = []

        def flush():
            if buf:
                out.append(esc("".join(buf)))
                buf.clear()

        i = 0
        n = len(text)
        while i < n:
            match = SPECIAL_RE.search(text, i)
            if not match:
                buf.append(text[i:])
                break
            if match.start() > i:
                buf.append(text[i : match.start()])
                i = match.start()
            c = text[i]

            if c == "\\":
                nxt = text[i + 1] if i + 1 < n else ""
                if nxt in ASCII_PUNCT and nxt:
                    buf.append(nxt)
                    i += 2
                elif nxt == "\n":
                    flush()
                    out.append("<br>\n")
                    i += 2
                else:
                    buf.append("\\")
                    i += 1
                continue

            if c == "`":
                run = self.run_length(text, i, "`")
                close = self.find_code_close(text, i + run, run)
                if close is None:
                    buf.append("`" * run)
                    i += run
                    continue
                code = text[i + run : close].replace("\n", " ")
                if len(code) > 2 and code[0] == " " and code[-1] == " " and code.strip():
                    code = code[1:-1]
                flush()
                out.append("<code>%s</code>" % esc(code))
                i = close + run
                continue

            if c == "!" and text.startswith("[", i + 1):
                link = self.parse_link(text, i + 1)
                if link:
                    label, url, title, end = link
                    flush()
                    out.append(self.image(label, url, title))
                    i = end
                    continue
                buf.append("!")
                i += 1
                continue

            if c == "[":
                link = None if in_link else self.parse_link(text, i)
                if link:
                    label, url, title, end = link
                    flush()
                    out.append(self.link(label, url, title))
                    i = end
                    continue
                buf.append("[")
                i += 1
                continue

            if c == "<":
                m = AUTOLINK_RE.match(text, i) or EMAIL_RE.match(text, i)
                if m and not in_link:
                    target = m.group(1)
                    is_email = m.re is EMAIL_RE
                    href = self.ctx.safe_url("mailto:" + target if is_email else target)
                    flush()
                    if href is None:
                        out.append(esc(m.group(0)))
                    else:
                        out.append('<a href="%s">%s</a>' % (attr(href), esc(target)))
                    i = m.end()
                    continue
                buf.append("<")
                i += 1
                continue

            if c in "*_~":
                result = self.emphasis(text, i, in_link)
                if result:
                    flush()
                    out.append(result[0])
                    i = result[1]
                    continue
                run = self.run_length(text, i, c)
                buf.append(c * run)
                i += run
                continue

            if c == "\n":
                pending = "".join(buf)
                stripped = pending.rstrip(" ")
                hard = len(pending) - len(stripped) >= 2
                buf.clear()
                buf.append(stripped)
                flush()
                out.append("<br>\n" if hard else "\n")
                i += 1
                while i < n and text[i] == " ":
                    i += 1
                continue

            if c == "&":
                m = ENTITY_RE.match(text, i)
                if m:
                    buf.append(html.unescape(m.group(0)))
                    i = m.end()
                else:
                    buf.append("&")
                    i += 1
                continue

            # A bare http(s):// URL.
            m = BARE_URL_RE.match(text, i)
            if m and not in_link:
                url = self.trim_bare_url(m.group(0))
                href = self.ctx.safe_url(url)
                flush()
                out.append('<a href="%s">%s</a>' % (attr(href), esc(url)) if href else esc(url))
                i += len(url)
                continue
            buf.append(c)
            i += 1
        flush()
        return "".join(out)

    @staticmethod
    def run_length(text, i, char):
        j = i
        while j < len(text) and text[j] == char:
            j += 1
        return j - i

    def find_code_close(self, text, start, run):
        j = start
        while True:
            j = text.find("`" * run, j)
            if j < 0:
                return None
            length = self.run_length(text, j, "`")
            if length == run:
                return j
            j += length

    @staticmethod
    def trim_bare_url(url):
        while url and url[-1] in ".,:;!?*_~'\"":
            url = url[:-1]
        while url.endswith(")") and url.count(")") > url.count("("):
            url = url[:-1]
        return url

    def skip_code(self, text, j):
        """If a code span starts at j, returns the index after it; else None."""
        run = self.run_length(text, j, "`")
        close = self.find_code_close(text, j + run, run)
        return None if close is None else close + run

    def parse_link(self, text, i):
        """Parses [label](dest "title") or a reference link at text[i] == '['.

        Returns (label, url, title, end) or None.
        """
        n = len(text)
        depth = 0
        j = i
        while j < n:
            ch = text[j]
            if ch == "\\":
                j += 2
                continue
            if ch == "`":
                after = self.skip_code(text, j)
                j = after if after is not None else j + self.run_length(text, j, "`")
                continue
            if ch == "[":
                depth += 1
            elif ch == "]":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if j >= n:
            return None
        label = text[i + 1 : j]
        k = j + 1
        if k < n and text[k] == "(":
            inline = self.parse_destination(text, k + 1)
            if inline:
                url, title, end = inline
                return label, url, title, end
        if k < n and text[k] == "[":
            close = text.find("]", k + 1)
            if close > 0:
                ref = text[k + 1 : close] or label
                target = self.ctx.refs.get(normalize_label(ref))
                if target:
                    return label, target[0], target[1], close + 1
                return None
        target = self.ctx.refs.get(normalize_label(label))
        if target and label.strip():
            return label, target[0], target[1], j + 1
        return None

    @staticmethod
    def parse_destination(text, k):
        """Parses 'dest "title")' starting after '('; returns (url, title, end) or None."""
        n = len(text)
        while k < n and text[k] in " \t\n":
            k += 1
        if k < n and text[k] == "<":
            close = text.find(">", k + 1)
            if close < 0 or "\n" in text[k + 1 : close]:
                return None
            url = text[k + 1 : close]
            k = close + 1
        else:
            start = k
            depth = 0
            while k < n:
                ch = text[k]
                if ch == "\\" and k + 1 < n:
                    k += 2
                    continue
                if ch in " \t\n":
                    break
                if ch == "(":
                    depth += 1
                elif ch == ")":
                    if depth == 0:
                        break
                    depth -= 1
                k += 1
            url = text[start:k]
        title = None
        spaced = k < n and text[k] in " \t\n"
        while k < n and text[k] in " \t\n":
            k += 1
        if spaced and k < n and text[k] in "\"'(":
            closing = ")" if text[k] == "(" else text[k]
            end = k + 1
            while end < n and text[end] != closing:
                end += 2 if text[end] == "\\" else 1
            if end >= n:
                return None
            title = text[k + 1 : end]
            k = end + 1
            while k < n and text[k] in " \t\n":
                k += 1
        if k >= n or text[k] != ")":
            return None
        return unescape_md(url), unescape_md(title) if title is not None else None, k + 1

    def link(self, label, url, title):
        href = self.ctx.safe_url(url)
        inner = self.render(label, in_link=True)
        if href is None:
            return inner
        title_attr = ' title="%s"' % attr(title) if title else ""
        return '<a href="%s"%s>%s</a>' % (attr(href), title_attr, inner)

    def image(self, label, url, title):
        alt = strip_tags(self.render(label, in_link=True))
        src = self.ctx.safe_url(url, image=True)
        if src is None:
            return esc(alt)
        title_attr = ' title="%s"' % attr(title) if title else ""
        return '<img src="%s" alt="%s"%s loading="lazy">' % (attr(src), attr(alt), title_attr)

    def emphasis(self, text, i, in_link):
        c = text[i]
        n = len(text)
        run = self.run_length(text, i, c)
        after = text[i + run] if i + run < n else ""
        before = text[i - 1] if i > 0 else ""
        if not after or after.isspace():
            return None
        if c == "_" and before and before.isalnum():
            return None
        if c == "~":
            if run != 2:
                return None
            attempts = (2,)
        else:
            attempts = tuple(k for k in (3, 2, 1) if k <= run)
        for k in attempts:
            start = i + run
            close = self.find_closer(text, start, c, k)
            if close is None:
                continue
            inner = self.render(text[start:close], in_link)
            if c == "~":
                html_text = "<del>%s</del>" % inner
            elif k == 3:
                html_text = "<em><strong>%s</strong></em>" % inner
            elif k == 2:
                html_text = "<strong>%s</strong>" % inner
            else:
                html_text = "<em>%s</em>" % inner
            return esc(c * (run - k)) + html_text, close + k
        return None

    def find_closer(self, text, start, c, k):
        key = (text, c, k)
        failed_from = self.no_closer.get(key)
        if failed_from is not None and start >= failed_from:
            return None
        found = self._find_closer(text, start, c, k)
        if found is None:
            self.no_closer[key] = start if failed_from is None else min(start, failed_from)
        return found

    def _find_closer(self, text, start, c, k):
        n = len(text)
        j = start
        while j < n:
            ch = text[j]
            if ch == "\\":
                j += 2
                continue
            if ch == "`":
                after = self.skip_code(text, j)
                j = after if after is not None else j + self.run_length(text, j, "`")
                continue
            if ch == "<":
                m = AUTOLINK_RE.match(text, j) or EMAIL_RE.match(text, j)
                if m:
                    j = m.end()
                    continue
            if ch != c:
                j += 1
                continue
            run_start = j
            length = self.run_length(text, j, c)
            j += length
            close = run_start + length - k
            if close <= start or text[run_start - 1].isspace():
                continue
            if c == "~":
                fits = length >= 2
            elif k == 1:
                fits = length == 1 or length >= 3
            else:
                fits = length >= k
            if not fits:
                continue
            if c == "_" and j < n and text[j].isalnum():
                continue
            return close
        return None


# --------------------------------------------------------------------------- blocks


def indent_of(line):
    return len(line) - len(line.lstrip(" "))


class Blocks:
    def __init__(self, ctx):
        self.ctx = ctx
        self.inline = Inline(ctx)
        self.toc_placed = False

    # Predicates ----------------------------------------------------------

    def is_table_start(self, lines, i):
        if i + 1 >= len(lines) or "|" not in lines[i]:
            return False
        if not TABLE_DELIM_RE.match(lines[i + 1]) or "-" not in lines[i + 1]:
            return False
        header = split_cells(lines[i])
        delims = split_cells(lines[i + 1])
        return len(header) == len(delims) and ("|" in lines[i + 1] or len(header) > 1)

    def interrupts_paragraph(self, line):
        if FENCE_RE.match(line) or ATX_RE.match(line) or HR_RE.match(line):
            return True
        if QUOTE_RE.match(line):
            return True
        m = LIST_RE.match(line)
        if m and (m.group(6) or "").strip():
            return m.group(3) is None or m.group(3) == "1"
        return False

    # Rendering -----------------------------------------------------------

    def render(self, lines, tight=False, top=False):
        out = []
        i = 0
        n = len(lines)
        while i < n:
            line = lines[i]
            if not line.strip():
                i += 1
                continue
            m = FENCE_RE.match(line)
            if m and not (m.group(2)[0] == "`" and "`" in m.group(3)):
                i = self.fenced(lines, i, m, out)
                continue
            m = ATX_RE.match(line)
            if m:
                self.heading(len(m.group(1)), m.group(2) or "", out, top)
                i += 1
                continue
            if HR_RE.match(line):
                out.append("<hr>")
                i += 1
                continue
            if QUOTE_RE.match(line):
                i = self.blockquote(lines, i, out)
                continue
            if LIST_RE.match(line):
                i = self.list_block(lines, i, out)
                continue
            if self.is_table_start(lines, i):
                i = self.table(lines, i, out)
                continue
            if indent_of(line) >= 4:
                i = self.indented_code(lines, i, out)
                continue
            i = self.paragraph(lines, i, out, tight, top)
        return "\n".join(out)

    def heading(self, level, raw, out, top):
        content = self.inline.render(raw.strip())
        text = " ".join(strip_tags(content).split())
        anchor = self.ctx.heading_id(text)
        out.append('<h%d id="%s">%s</h%d>' % (level, attr(anchor), content, level))
        if level in (2, 3):
            self.ctx.headings.append((level, anchor, text))
        if level == 1 and top and not self.toc_placed:
            if not getattr(self.ctx, "title_from_h1", None):
                self.ctx.title_from_h1 = text
            out.append(TOC_MARK)
            self.toc_placed = True

    def fenced(self, lines, i, m, out):
        fence_indent = len(m.group(1))
        fence = m.group(2)
        info = m.group(3).split()[0] if m.group(3).strip() else ""
        body = []
        i += 1
        closed = False
        close_re = re.compile(r"^ {0,3}%s%s*[ \t]*$" % (re.escape(fence), re.escape(fence[0])))
        while i < len(lines):
            line = lines[i]
            if close_re.match(line):
                closed = True
                i += 1
                break
            strip = min(fence_indent, indent_of(line))
            body.append(line[strip:])
            i += 1
        if not closed:
            self.ctx.warn("a code block opened with %s is never closed" % fence)
        lang = re.sub(r"[^A-Za-z0-9_+\-#.]", "", unescape_md(info))
        cls = ' class="language-%s"' % attr(lang) if lang else ""
        code = "\n".join(body)
        out.append("<pre><code%s>%s</code></pre>" % (cls, esc(code + "\n" if body else "")))
        return i

    def indented_code(self, lines, i, out):
        body = []
        while i < len(lines):
            line = lines[i]
            if line.strip() and indent_of(line) < 4:
                break
            body.append(line[4:] if len(line) >= 4 else "")
            i += 1
        while body and not body[-1].strip():
            body.pop()
        out.append("<pre><code>%s</code></pre>" % esc("\n".join(body) + "\n"))
        return i

    def blockquote(self, lines, i, out):
        inner = []
        while i < len(lines):
            line = lines[i]
            m = QUOTE_RE.match(line)
            if m:
                inner.append(line[m.end():])
            elif (
                line.strip()
                and inner
                and inner[-1].strip()
                and not self.interrupts_paragraph(line)
                and not self.is_table_start(lines, i)
            ):
                inner.append(line)  # lazy continuation of a quoted paragraph
            else:
                break
            i += 1
        out.append("<blockquote>\n%s\n</blockquote>" % self.render(inner))
        return i

    def list_block(self, lines, i, out):
        first = LIST_RE.match(lines[i])
        ordered = first.group(3) is not None
        kind = first.group(4) if ordered else first.group(2)
        start = int(first.group(3)) if ordered else 1
        items = []
        loose = False
        n = len(lines)
        while i < n:
            m = LIST_RE.match(lines[i])
            if not m or (m.group(3) is not None) != ordered:
                break
            if (m.group(4) if ordered else m.group(2)) != kind:
                break
            marker_end = len(m.group(1)) + len(m.group(2))
            spaces = m.group(5) or ""
            rest = m.group(6) or ""
            if not rest.strip():
                content_indent = marker_end + 1
                rest = ""
            elif len(spaces) > 4:
                content_indent = marker_end + 1
                rest = spaces[1:] + rest
            else:
                content_indent = marker_end + len(spaces)
            item = [rest]
            i += 1
            blanks = 0
            in_fence = bool(FENCE_RE.match(rest))
            while i < n:
                line = lines[i]
                if not line.strip():
                    blanks += 1
                    i += 1
                    continue
                if indent_of(line) >= content_indent:
                    item.extend([""] * blanks)
                    blanks = 0
                    content = line[content_indent:]
                    if FENCE_RE.match(content):
                        in_fence = not in_fence
                    item.append(content)
                    i += 1
                    continue
                if blanks or in_fence:
                    break
                if (
                    self.interrupts_paragraph(line)
                    or LIST_RE.match(line)
                    or self.is_table_start(lines, i)
                    or not item[-1].strip()
                ):
                    break
                item.append(line.strip())  # lazy continuation line
                i += 1
            items.append(item)
            if item_has_inner_blank(item):
                loose = True
            if blanks:
                nxt = LIST_RE.match(lines[i]) if i < n else None
                if (
                    nxt
                    and (nxt.group(3) is not None) == ordered
                    and (nxt.group(4) if ordered else nxt.group(2)) == kind
                ):
                    loose = True
                    continue
                break
        tag = "ol" if ordered else "ul"
        start_attr = ' start="%d"' % start if ordered and start != 1 else ""
        parts = ["<%s%s>" % (tag, start_attr)]
        for item in items:
            task = TASK_RE.match(item[0])
            prefix = ""
            cls = ""
            if task:
                checked = " checked" if task.group(1) in "xX" else ""
                prefix = '<input type="checkbox" disabled%s> ' % checked
                cls = ' class="task"'
                item = [item[0][task.end():]] + item[1:]
            body = self.render(item, tight=not loose)
            parts.append("<li%s>%s%s</li>" % (cls, prefix, body))
        parts.append("</%s>" % tag)
        out.append("\n".join(parts))
        return i

    def table(self, lines, i, out):
        header = split_cells(lines[i])
        aligns = []
        for cell in split_cells(lines[i + 1]):
            cell = cell.strip()
            if cell.startswith(":") and cell.endswith(":"):
                aligns.append("al-c")
            elif cell.endswith(":"):
                aligns.append("al-r")
            elif cell.startswith(":"):
                aligns.append("al-l")
            else:
                aligns.append("")
        width = len(header)
        i += 2
        rows = []
        while i < len(lines):
            line = lines[i]
            if not line.strip() or "|" not in line:
                break
            if FENCE_RE.match(line) or ATX_RE.match(line) or QUOTE_RE.match(line):
                break
            cells = split_cells(line)
            cells = (cells + [""] * width)[:width]
            rows.append(cells)
            i += 1

        def cell_html(tag, text, align):
            cls = ' class="%s"' % align if align else ""
            return "<%s%s>%s</%s>" % (tag, cls, self.inline.render(text.strip()), tag)

        parts = ["<table>", "<thead>", "<tr>"]
        parts += [cell_html("th", c, a) for c, a in zip(header, aligns)]
        parts += ["</tr>", "</thead>"]
        if rows:
            parts.append("<tbody>")
            for row in rows:
                parts.append("<tr>" + "".join(cell_html("td", c, a) for c, a in zip(row, aligns)) + "</tr>")
            parts.append("</tbody>")
        parts.append("</table>")
        out.append("\n".join(parts))
        return i

    def paragraph(self, lines, i, out, tight, top):
        collected = [lines[i].strip(" ")]
        i += 1
        while i < len(lines):
            line = lines[i]
            if not line.strip():
                break
            setext = SETEXT_RE.match(line)
            if setext:
                level = 1 if setext.group(1)[0] == "=" else 2
                self.heading(level, "\n".join(collected), out, top)
                return i + 1
            if self.interrupts_paragraph(line) or self.is_table_start(lines, i):
                break
            collected.append(line.lstrip(" "))
            i += 1
        text = "\n".join(collected).rstrip()
        content = self.inline.render(text)
        out.append(content if tight else "<p>%s</p>" % content)
        return i


def item_has_inner_blank(item):
    """True when an item holds blocks separated by a blank line (outside code fences)."""
    in_fence = False
    seen_text = False
    pending_blank = False
    for line in item:
        if FENCE_RE.match(line):
            in_fence = not in_fence
        if in_fence:
            continue
        if not line.strip():
            pending_blank = seen_text
            continue
        if pending_blank and not line.startswith(" ") and not LIST_RE.match(line):
            return True
        pending_blank = False
        seen_text = True
    return False


def split_cells(line):
    """Splits a table row on unescaped pipes; '\\|' becomes a literal pipe."""
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    cells = []
    current = []
    k = 0
    while k < len(s):
        ch = s[k]
        if ch == "\\" and k + 1 < len(s) and s[k + 1] == "|":
            current.append("|")
            k += 2
            continue
        if ch == "|":
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
        k += 1
    cells.append("".join(current).strip())
    return cells


# --------------------------------------------------------------------------- document


def extract_references(lines, ctx):
    """Removes '[ref]: url "title"' definition lines (outside code) and records them."""
    kept = []
    fence = None
    previous_blank = True
    for line in lines:
        m = FENCE_RE.match(line)
        if fence is None and m:
            fence = m.group(2)[0]
        elif fence is not None and m and m.group(2)[0] == fence and not m.group(3):
            fence = None
        if fence is None and previous_blank:
            d = REF_DEF_RE.match(line)
            if d:
                label = normalize_label(d.group(1))
                url = d.group(2)
                if url.startswith("<") and url.endswith(">"):
                    url = url[1:-1]
                title = d.group(3)[1:-1] if d.group(3) else None
                if label and label not in ctx.refs:
                    ctx.refs[label] = (unescape_md(url), unescape_md(title) if title else None)
                continue
        kept.append(line)
        previous_blank = not line.strip()
    return kept


def strip_front_matter(lines):
    """Drops a leading YAML front matter block; returns (lines, title or None)."""
    if not lines or lines[0].rstrip() != "---":
        return lines, None
    for k in range(1, min(len(lines), 200)):
        if lines[k].rstrip() in ("---", "..."):
            block = lines[1:k]
            if not any(re.match(r"^[A-Za-z_][\w-]*:(?:\s|$)", line) for line in block[:1]):
                return lines, None
            title = None
            for line in block:
                m = re.match(r"^title:\s*(.+?)\s*$", line)
                if m:
                    title = m.group(1).strip("\"'") or None
            return lines[k + 1 :], title
    return lines, None


def convert(markdown, base_dir=".", title=None, toc=False, embed_images=False,
            extra_css="", lang="en", fallback_title="Report"):
    """Converts Markdown text to a complete HTML document; returns (html, warnings)."""
    ctx = Context(base_dir, embed_images)
    text = markdown.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = [line.expandtabs(4) for line in text.split("\n")]
    lines, meta_title = strip_front_matter(lines)
    lines = extract_references(lines, ctx)
    blocks = Blocks(ctx)
    body = blocks.render(lines, top=True)

    toc_html = ""
    if toc and len(ctx.headings) >= 2:
        items = []
        for level, anchor, heading in ctx.headings:
            cls = ' class="toc-sub"' if level == 3 else ""
            items.append('<li%s><a href="#%s">%s</a></li>' % (cls, attr(anchor), esc(heading)))
        toc_html = (
            '<nav class="toc" aria-label="Contents">\n<p class="toc-title">Contents</p>\n'
            "<ul>\n%s\n</ul>\n</nav>" % "\n".join(items)
        )
    if TOC_MARK in body:
        body = body.replace(TOC_MARK, toc_html, 1)
    elif toc_html:
        body = toc_html + "\n" + body
    body = body.replace(TOC_MARK, "")

    doc_title = title or meta_title or getattr(ctx, "title_from_h1", None) or fallback_title
    css = CSS
    if extra_css:
        css += "\n/* extra */\n" + extra_css.replace("</", "<\\/")
    document = (
        "<!DOCTYPE html>\n"
        '<html lang="%s">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta http-equiv="Content-Security-Policy" content="%s">\n'
        '<meta name="generator" content="markdown-report md_to_html.py">\n'
        "<title>%s</title>\n<style>\n%s\n</style>\n</head>\n<body>\n"
        '<main class="report">\n%s\n</main>\n</body>\n</html>\n'
    ) % (attr(lang), attr(CSP), esc(doc_title), css, body)
    return document, ctx.warnings


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="md_to_html.py", description="Convert Markdown to a standalone HTML file."
    )
    parser.add_argument("input", help="Markdown file, or - for stdin")
    parser.add_argument("-o", "--output", help="HTML file (default: input with .html; stdout for -)")
    parser.add_argument("--title", help="document title")
    parser.add_argument("--toc", action="store_true", help="add a table of contents")
    parser.add_argument("--embed-images", action="store_true", help="inline local images")
    parser.add_argument("--css", help="extra CSS file appended to the built-in style")
    parser.add_argument("--lang", default="en", help="language code for <html lang>")
    args = parser.parse_args(argv)
    if not re.fullmatch(r"[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*", args.lang):
        parser.error("--lang must be a language tag such as en or pt-BR")

    try:
        if args.input == "-":
            source = sys.stdin.read()
            base_dir = os.getcwd()
            fallback = "Report"
        else:
            with open(args.input, encoding="utf-8-sig", errors="replace") as handle:
                source = handle.read()
            base_dir = os.path.dirname(os.path.abspath(args.input))
            fallback = os.path.splitext(os.path.basename(args.input))[0] or "Report"
        extra_css = ""
        if args.css:
            with open(args.css, encoding="utf-8", errors="replace") as handle:
                extra_css = handle.read()
    except OSError as exc:
        print("error: cannot read %s: %s" % (exc.filename, exc.strerror or exc), file=sys.stderr)
        return 1

    document, warnings = convert(
        source, base_dir=base_dir, title=args.title, toc=args.toc,
        embed_images=args.embed_images, extra_css=extra_css, lang=args.lang,
        fallback_title=fallback,
    )
    for message in warnings:
        print("warning: %s" % message, file=sys.stderr)

    output = args.output
    if output is None and args.input != "-":
        output = os.path.splitext(args.input)[0] + ".html"
        if os.path.abspath(output) == os.path.abspath(args.input):
            output += ".html"
    if output is None or output == "-":
        sys.stdout.write(document)
        return 0
    try:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(document)
    except OSError as exc:
        print("error: cannot write %s: %s" % (output, exc.strerror or exc), file=sys.stderr)
        return 1
    print("Wrote %s (%d bytes)" % (output, len(document.encode("utf-8"))), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
