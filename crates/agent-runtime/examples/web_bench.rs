//! `make bench` helper for `web_fetch`: a generated article page of about a megabyte (head
//! scripts and styles, a navigation bar, nested sections of paragraphs with links, lists,
//! tables, figures, a sidebar, references, a footer) is served by a local HTTP server and
//! downloaded again and again, one page at a time, three ways:
//! - `floor`: a plain reqwest client (one reused connection), reading the whole body;
//! - `fetch`: `Fetcher::fetch` under a `WebPolicy` (the name resolved with `SystemLookup`,
//!   checked, pinned; a new client and connection per page, as `web_fetch` does);
//! - `fetch_extract`: the same plus what `web_fetch` does with HTML before the model reads
//!   it (`extract::kind`, `extract::decode`, `extract::html_to_markdown` on a blocking thread).
//!
//! Each phase runs for at least the given seconds (after one warm-up page) and prints one
//! JSON object: pages/s, MB/s and the process's peak resident memory during the phase
//! (VmHWM, reset before each phase through /proc/self/clear_refs where the kernel allows it).
//! Usage: `web_bench [seconds per phase] [page kilobytes]` (defaults 3 and 1000);
//! `WEB_BENCH_DUMP=DIR` also writes the page and its Markdown into DIR.

use std::sync::Arc;
use std::time::{Duration, Instant};

use antler_agent_runtime::tools::web::{
    FetchConfig, Fetcher, SystemLookup, WebPolicy, WebToolsConfig, extract,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A sentence from the last section: the extracted Markdown must hold it.
const LAST_WORDS: &str = "This closing sentence marks the end of the article body";
/// Text only inside scripts: the extracted Markdown must not hold it.
const SCRIPT_MARK: &str = "bench_tracking_pixel_payload";

/// Deterministic pseudo-random numbers (a 64-bit LCG), so every run serves the same page.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next()).unwrap_or(0) % n.max(1)
    }

    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
}

const WORDS: &[&str] = &[
    "the",
    "of",
    "and",
    "to",
    "in",
    "a",
    "is",
    "that",
    "for",
    "it",
    "as",
    "was",
    "with",
    "be",
    "by",
    "on",
    "not",
    "this",
    "are",
    "or",
    "at",
    "from",
    "which",
    "but",
    "have",
    "an",
    "they",
    "more",
    "were",
    "been",
    "their",
    "has",
    "would",
    "there",
    "research",
    "network",
    "system",
    "policy",
    "market",
    "energy",
    "storage",
    "battery",
    "grid",
    "capacity",
    "growth",
    "report",
    "annual",
    "regional",
    "analysis",
    "evidence",
    "survey",
    "data",
    "model",
    "estimate",
    "production",
    "demand",
    "supply",
    "price",
    "cost",
    "investment",
    "industry",
    "government",
    "agency",
    "committee",
    "university",
    "laboratory",
    "study",
    "results",
    "method",
    "sample",
    "measurement",
    "increase",
    "decline",
    "average",
    "median",
    "share",
    "percent",
    "million",
    "billion",
    "quarter",
    "decade",
    "century",
    "history",
    "development",
    "technology",
    "infrastructure",
    "transmission",
    "distribution",
    "efficiency",
    "emissions",
    "climate",
    "weather",
    "season",
    "summer",
    "winter",
    "region",
    "country",
    "city",
    "province",
    "coast",
    "river",
    "valley",
    "mountain",
    "northern",
    "southern",
    "eastern",
    "western",
    "early",
    "late",
    "recent",
    "current",
    "previous",
    "following",
    "important",
    "significant",
    "major",
    "minor",
    "public",
    "private",
    "national",
    "international",
    "local",
    "federal",
    "independent",
    "operator",
    "utility",
    "customer",
    "consumer",
    "household",
    "company",
    "firm",
    "sector",
    "project",
    "programme",
    "standard",
    "regulation",
    "framework",
    "approach",
    "strategy",
    "however",
    "therefore",
    "although",
    "because",
    "while",
    "during",
    "after",
    "before",
    "between",
    "across",
    "within",
    "without",
    "several",
    "many",
    "most",
    "some",
    "each",
    "every",
    "other",
    "new",
    "old",
    "large",
    "small",
    "high",
    "low",
    "long",
    "short",
];

fn sentence(rng: &mut Rng, out: &mut String, links: bool) {
    let n = rng.range(8, 26);
    for i in 0..n {
        let w = WORDS[rng.below(WORDS.len())];
        if i == 0 {
            let mut c = w.chars();
            if let Some(f) = c.next() {
                out.extend(f.to_uppercase());
                out.push_str(c.as_str());
            }
        } else {
            out.push(' ');
            if links && rng.below(14) == 0 {
                let id = rng.below(5000);
                out.push_str(&format!(
                    "<a href=\"/wiki/Topic_{id}\" title=\"Topic {id}\">{w}</a>"
                ));
            } else if rng.below(40) == 0 {
                out.push_str(&format!("<em>{w}</em>"));
            } else if rng.below(60) == 0 {
                out.push_str(&format!("<strong>{w}</strong>"));
            } else if rng.below(50) == 0 {
                out.push_str(&format!("{}.{} {w}", rng.range(1, 999), rng.below(10)));
            } else {
                out.push_str(w);
            }
            if i + 1 < n && rng.below(9) == 0 {
                out.push(',');
            }
        }
    }
    out.push('.');
    if rng.below(3) == 0 {
        let n = rng.range(1, 300);
        out.push_str(&format!(
            "<sup class=\"reference\" id=\"cite_ref-{n}\"><a href=\"#cite_note-{n}\">[{n}]</a></sup>"
        ));
    }
}

fn paragraph(rng: &mut Rng, out: &mut String) {
    out.push_str(&format!(
        "<p class=\"para\" data-block=\"b{}\">",
        rng.next() % 100_000
    ));
    for i in 0..rng.range(3, 8) {
        if i > 0 {
            out.push(' ');
        }
        sentence(rng, out, true);
    }
    out.push_str("</p>\n");
}

fn list(rng: &mut Rng, out: &mut String, depth: usize) {
    let tag = if rng.below(2) == 0 { "ul" } else { "ol" };
    out.push_str(&format!("<{tag}>\n"));
    for _ in 0..rng.range(3, 8) {
        out.push_str("<li>");
        sentence(rng, out, true);
        if depth < 2 && rng.below(4) == 0 {
            out.push('\n');
            list(rng, out, depth + 1);
        }
        out.push_str("</li>\n");
    }
    out.push_str(&format!("</{tag}>\n"));
}

fn table(rng: &mut Rng, out: &mut String, n: usize) {
    out.push_str(&format!(
        "<table class=\"wikitable sortable\">\n<caption>Table {n}: regional figures by year</caption>\n<thead><tr>"
    ));
    let cols = rng.range(4, 7);
    out.push_str("<th scope=\"col\">Region</th>");
    for c in 1..cols {
        out.push_str(&format!("<th scope=\"col\">{}</th>", 2014 + c));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for _ in 0..rng.range(8, 20) {
        out.push_str(&format!(
            "<tr><th scope=\"row\"><a href=\"/wiki/Region_{0}\">Region {0}</a></th>",
            rng.below(400)
        ));
        for _ in 1..cols {
            out.push_str(&format!(
                "<td style=\"text-align:right\">{}.{}</td>",
                rng.range(1, 99_999),
                rng.below(10)
            ));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
}

fn nav(rng: &mut Rng, out: &mut String, class: &str, links: usize) {
    out.push_str(&format!(
        "<nav class=\"{class}\" aria-label=\"{class}\"><ul>\n"
    ));
    for i in 0..links {
        let w = WORDS[rng.below(WORDS.len())];
        out.push_str(&format!(
            "<li class=\"menu-item\"><a href=\"/portal/{w}-{i}\">{w} {i}</a></li>\n"
        ));
    }
    out.push_str("</ul></nav>\n");
}

fn script(rng: &mut Rng, out: &mut String, bytes: usize) {
    out.push_str("<script>\n(function(){var cfg={");
    let start = out.len();
    let mut i = 0;
    while out.len() - start < bytes {
        out.push_str(&format!(
            "\"k{i}\":\"{SCRIPT_MARK}_{}\",",
            rng.next() % 1_000_000_007
        ));
        i += 1;
    }
    out.push_str("};window.__cfg=cfg;document.addEventListener('DOMContentLoaded',function(){for(var k in cfg){if(k.length>3){console.log(k)}}});})();\n</script>\n");
}

/// An article page of at least `target` bytes.
fn page(target: usize) -> String {
    let mut rng = Rng(0x5eed_0fa7_71e5);
    let mut out = String::with_capacity(target + 200_000);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    out.push_str("<title>Grid-scale energy storage in the northern regions – The Bench Encyclopedia</title>\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<link rel=\"stylesheet\" href=\"/static/site.css\">\n<style>\n");
    for i in 0..400 {
        out.push_str(&format!(
            ".c{i} {{ margin: {}px; color: #{:06x}; }}\n",
            i % 17,
            rng.next() & 0xff_ffff
        ));
    }
    out.push_str("</style>\n");
    script(&mut rng, &mut out, 40_000);
    out.push_str("<script type=\"application/ld+json\">{\"@context\":\"https://schema.org\",\"@type\":\"Article\",\"headline\":\"Grid-scale energy storage\"}</script>\n");
    out.push_str("</head>\n<body class=\"skin-bench\">\n<header id=\"top\"><a class=\"logo\" href=\"/\">The Bench Encyclopedia</a>\n<form role=\"search\" action=\"/search\"><input name=\"q\"></form>\n");
    nav(&mut rng, &mut out, "main-menu", 120);
    out.push_str("</header>\n<div id=\"page\"><aside id=\"sidebar\">\n");
    nav(&mut rng, &mut out, "sidebar-links", 80);
    out.push_str("</aside>\n<main id=\"content\"><article class=\"mw-body\">\n<h1 id=\"firstHeading\">Grid-scale energy storage in the northern regions</h1>\n");
    out.push_str("<div class=\"infobox\"><table><tr><th>Capacity</th><td>41.2 GWh</td></tr><tr><th>Operators</th><td>17</td></tr></table></div>\n");
    paragraph(&mut rng, &mut out);
    paragraph(&mut rng, &mut out);
    out.push_str("<div id=\"toc\" class=\"toc\"><h2>Contents</h2><ol>\n");
    for s in 1..=40 {
        out.push_str(&format!(
            "<li><a href=\"#Section_{s}\">{s} Section {s}</a></li>\n"
        ));
    }
    out.push_str("</ol></div>\n");
    let mut section = 0;
    // Room for the references, the closing section, the footer and the scripts after it
    // (page data and trackers: about a third of a modern article page).
    let body_end = target / 100 * 62;
    while out.len() < body_end {
        section += 1;
        out.push_str(&format!(
            "<section id=\"Section_{section}\"><h2><span class=\"mw-headline\">Section {section}: {} {}</span></h2>\n",
            WORDS[rng.below(WORDS.len())],
            WORDS[rng.below(WORDS.len())]
        ));
        for sub in 1..=rng.range(2, 4) {
            out.push_str(&format!(
                "<div class=\"subsection\"><h3 id=\"s{section}_{sub}\">{section}.{sub} {}</h3>\n",
                WORDS[rng.below(WORDS.len())]
            ));
            for _ in 0..rng.range(2, 5) {
                paragraph(&mut rng, &mut out);
            }
            match rng.below(6) {
                0 | 1 => list(&mut rng, &mut out, 0),
                2 => table(&mut rng, &mut out, section),
                3 => {
                    out.push_str(&format!("<figure class=\"thumb\"><img src=\"/media/figure-{section}-{sub}.png\" alt=\"Figure {section}.{sub}\" width=\"320\" height=\"200\"><figcaption>"));
                    sentence(&mut rng, &mut out, false);
                    out.push_str("</figcaption></figure>\n");
                }
                4 => {
                    out.push_str("<blockquote><p>");
                    sentence(&mut rng, &mut out, false);
                    out.push_str("</p></blockquote>\n");
                }
                _ => {
                    out.push_str("<div class=\"note\"><div class=\"note-inner\"><p>");
                    sentence(&mut rng, &mut out, true);
                    out.push_str("</p></div></div>\n");
                }
            }
            out.push_str("</div>\n");
        }
        out.push_str("</section>\n");
    }
    out.push_str("<section id=\"Conclusion\"><h2>Conclusion</h2>\n<p>");
    out.push_str(LAST_WORDS);
    out.push_str(
        ", after which only the references and the page furniture follow.</p>\n</section>\n",
    );
    out.push_str("<section id=\"References\"><h2>References</h2><ol class=\"references\">\n");
    for n in 1..=300 {
        out.push_str(&format!(
            "<li id=\"cite_note-{n}\"><a href=\"#cite_ref-{n}\">^</a> <cite>Report {n}, <a rel=\"nofollow\" class=\"external\" href=\"https://example.org/reports/{n}\">Annual review {}</a></cite>. Retrieved 2026.</li>\n",
            2000 + n % 26
        ));
    }
    out.push_str("</ol></section>\n</article></main></div>\n<footer id=\"footer\">\n");
    nav(&mut rng, &mut out, "footer-links", 60);
    out.push_str(
        "<p>Text is available under a licence; additional terms may apply.</p>\n</footer>\n",
    );
    while out.len() < target.saturating_sub(200) {
        let left = target - out.len();
        script(&mut rng, &mut out, left.min(30_000));
    }
    out.push_str("</body></html>\n");
    out
}

/// Serves `body` as `text/html` to every GET, keeping connections open (HTTP/1.1).
async fn serve(listener: TcpListener, body: Arc<Vec<u8>>) {
    while let Ok((mut s, _)) = listener.accept().await {
        let body = body.clone();
        tokio::spawn(async move {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
                body.len()
            );
            let mut buf = vec![0u8; 8192];
            let mut pending: Vec<u8> = Vec::new();
            loop {
                while let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
                    pending.drain(..end + 4);
                    if s.write_all(head.as_bytes()).await.is_err()
                        || s.write_all(&body).await.is_err()
                    {
                        return;
                    }
                }
                match s.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => pending.extend_from_slice(&buf[..n]),
                }
            }
        });
    }
}

/// A `/proc/self/status` field in MB.
fn status_mb(field: &str) -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(field))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// Resets VmHWM to the current resident size; `false` where the kernel does not allow it.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// What one page gave.
struct Got {
    bytes: usize,
    markdown_chars: usize,
}

async fn phase<F, Fut>(name: &str, secs: f64, mut one: F) -> anyhow::Result<()>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<Got>>,
{
    let warm = one().await?;
    let reset = reset_peak();
    let rss_start = status_mb("VmRSS:");
    let started = Instant::now();
    let (mut pages, mut bytes) = (0usize, 0usize);
    while pages < 3 || started.elapsed() < Duration::from_secs_f64(secs) {
        let got = one().await?;
        anyhow::ensure!(got.bytes == warm.bytes, "{name}: a short page");
        pages += 1;
        bytes += got.bytes;
    }
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "{}",
        serde_json::json!({
            "name": name,
            "page_bytes": warm.bytes,
            "result": {
                "pages": pages,
                "seconds": elapsed,
                "pages_s": pages as f64 / elapsed,
                "mb_s": bytes as f64 / elapsed / 1e6,
                "ms_per_page": elapsed * 1000.0 / pages as f64,
                "rss_start_mb": rss_start,
                "peak_rss_mb": status_mb("VmHWM:"),
                "peak_reset": reset,
                "markdown_chars": warm.markdown_chars,
            }
        })
    );
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let secs: f64 = args.next().map(|s| s.parse()).transpose()?.unwrap_or(3.0);
    let kb: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(1000);
    let html = Arc::new(page(kb * 1000).into_bytes());
    // WEB_BENCH_DUMP=DIR writes the page and its Markdown there, to look at.
    if let Some(dir) = std::env::var_os("WEB_BENCH_DUMP") {
        let dir = std::path::PathBuf::from(dir);
        std::fs::write(dir.join("web_bench.html"), html.as_slice())?;
        let text = String::from_utf8_lossy(&html);
        let read =
            extract::html_to_markdown(&text, "http://localhost/wiki/Grid-scale_energy_storage");
        std::fs::write(
            dir.join("web_bench.md"),
            format!("# {}\n\n{}", read.title.unwrap_or_default(), read.text),
        )?;
    }

    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    tokio::spawn(serve(listener, html.clone()));
    // `localhost` may resolve to ::1 too: serve there as well when the host has it.
    if let Ok(v6) = TcpListener::bind(("::1", port)).await {
        tokio::spawn(serve(v6, html.clone()));
    }
    let url = format!("http://localhost:{port}/wiki/Grid-scale_energy_storage");

    let plain = reqwest::Client::builder().no_proxy().build()?;
    phase("floor", secs, || {
        let (plain, url) = (&plain, &url);
        async move {
            let body = plain
                .get(url)
                .send()
                .await?
                .error_for_status()?
                .bytes()
                .await?;
            Ok(Got {
                bytes: body.len(),
                markdown_chars: 0,
            })
        }
    })
    .await?;

    let policy = WebPolicy::new(&WebToolsConfig {
        allow_private_networks: true,
        allowed_ports: vec![port],
        ..WebToolsConfig::default()
    })
    .map_err(anyhow::Error::msg)?;
    let fetcher = Fetcher::new(FetchConfig::default(), Arc::new(SystemLookup));
    phase("fetch", secs, || {
        let (fetcher, policy, url) = (&fetcher, &policy, &url);
        async move {
            let page = fetcher
                .fetch(url, policy)
                .await
                .map_err(anyhow::Error::msg)?;
            anyhow::ensure!(!page.truncated, "the page was cut at web.fetch.max_bytes");
            Ok(Got {
                bytes: page.body.len(),
                markdown_chars: 0,
            })
        }
    })
    .await?;

    phase("fetch_extract", secs, || {
        let (fetcher, policy, url) = (&fetcher, &policy, &url);
        async move {
            let page = fetcher
                .fetch(url, policy)
                .await
                .map_err(anyhow::Error::msg)?;
            let bytes = page.body.len();
            anyhow::ensure!(
                extract::kind(&page.media_type, &page.body) == extract::Kind::Html,
                "not read as HTML"
            );
            let final_url = page.url.to_string();
            let read = tokio::task::spawn_blocking(move || {
                let html = extract::decode(&page.body, page.charset.as_deref(), true);
                extract::html_to_markdown(&html, &final_url)
            })
            .await?;
            anyhow::ensure!(
                read.text.contains(LAST_WORDS),
                "the article's end is missing from the Markdown"
            );
            anyhow::ensure!(
                !read.text.contains(SCRIPT_MARK),
                "script text leaked into the Markdown"
            );
            Ok(Got {
                bytes,
                markdown_chars: read.text.chars().count(),
            })
        }
    })
    .await?;
    Ok(())
}
