"""web_fetch against a plain download (the floor): a generated article page of about 1 MB
(scripts, styles, navigation, nested sections with links, lists and tables) served by a local
server, downloaded one page at a time by a plain reqwest client, by `Fetcher::fetch` (name
resolved, checked and pinned; a new connection per page) and by `Fetcher::fetch` plus the
HTML-to-Markdown extraction web_fetch does. Pages/s, the ratio to the floor and the process's
peak resident memory during each phase; medians of BENCH_WEB_RUNS runs."""

import json
import os
import statistics
import subprocess

from common import TARGET, table

RUNS = int(os.environ.get("BENCH_WEB_RUNS", "5"))
SECONDS = os.environ.get("BENCH_WEB_SECONDS", "3")
KB = os.environ.get("BENCH_WEB_KB", "1000")
PHASES = ("floor", "fetch", "fetch_extract")


def once():
    out = subprocess.run([str(TARGET / "release/examples/web_bench"), SECONDS, KB],
                         check=True, capture_output=True, text=True).stdout
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return {r["name"]: r for r in lines}


def main():
    runs = [once() for _ in range(RUNS)]
    med = lambda name, key: statistics.median(r[name]["result"][key] for r in runs)
    page_kb = runs[0]["floor"]["page_bytes"] / 1000
    chars = runs[0]["fetch_extract"]["result"]["markdown_chars"]
    rate = {p: med(p, "pages_s") for p in PHASES}
    ms = {p: med(p, "ms_per_page") for p in PHASES}
    peak = {p: med(p, "peak_rss_mb") for p in PHASES}
    reset = all(r[p]["result"]["peak_reset"] for r in runs for p in PHASES)
    rows = [
        ["pages/s"] + [f"{rate[p]:,.1f}" for p in PHASES]
        + [f"{rate['fetch'] / rate['floor']:.2f}x / {rate['fetch_extract'] / rate['floor']:.4f}x"],
        ["ms per page"] + [f"{ms[p]:.2f}" for p in PHASES]
        + [f"{ms['fetch'] - ms['floor']:+.2f} / {ms['fetch_extract'] - ms['floor']:+.2f} ms"],
        ["peak RSS during the phase (MB)" + ("" if reset else ", cumulative")]
        + [f"{peak[p]:.1f}" for p in PHASES]
        + [f"{peak['fetch'] - peak['floor']:+.1f} / {peak['fetch_extract'] - peak['floor']:+.1f} MB"],
    ]
    table(f"web_fetch against a plain download ({page_kb:,.0f} KB article page, local server, one page "
          f"at a time, {chars:,} characters of Markdown; medians of {RUNS} runs of {SECONDS} s a phase)",
          ["what", "plain download (floor)", "Fetcher::fetch", "fetch + HTML to Markdown",
           "vs floor (fetch / fetch + Markdown)"], rows)


if __name__ == "__main__":
    main()
