//! A fetched body as text the model reads: HTML through readability extraction to Markdown
//! (main content, links kept, scripts and navigation dropped), plain text, Markdown and JSON
//! as they are.

use dom_query::{Document, NodeRef};
use dom_smoothie::{Config, Readability, TextMode};

/// Deepest element nesting given to the HTML parser and the Markdown writer: the parser's
/// scope checks take time in proportion to the depth (a page of nothing but nested tags
/// would keep a core busy for minutes) and the writer recurses once per level. A deeper
/// page is read as plain text by a linear scan instead.
const MAX_DEPTH: usize = 400;

/// A page as the model reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// Its title, when it has one.
    pub title: Option<String>,
    /// Its readable text (Markdown for HTML).
    pub text: String,
}

/// How a body is read, from its media type (and its first bytes when the server sent none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// HTML or XHTML.
    Html,
    /// Text, Markdown, JSON, XML, CSV: read as it is.
    Text,
    /// A PDF: converted in the sandbox.
    Pdf,
    /// Anything else (images, archives, binaries): not read.
    Other,
}

/// What kind of body this is.
pub fn kind(media_type: &str, body: &[u8]) -> Kind {
    match media_type {
        "text/html" | "application/xhtml+xml" => Kind::Html,
        "application/pdf" | "application/x-pdf" => Kind::Pdf,
        t if t.starts_with("text/")
            || t.ends_with("+json")
            || t.ends_with("+xml")
            || matches!(
                t,
                "application/json"
                    | "application/xml"
                    | "application/javascript"
                    | "application/x-ndjson"
            ) =>
        {
            Kind::Text
        }
        "" | "application/octet-stream" => sniff(body),
        _ => Kind::Other,
    }
}

fn sniff(body: &[u8]) -> Kind {
    let head = &body[..body.len().min(512)];
    if head.starts_with(b"%PDF-") {
        return Kind::Pdf;
    }
    let text = String::from_utf8_lossy(head)
        .trim_start()
        .to_ascii_lowercase();
    if text.starts_with("<!doctype html") || text.starts_with("<html") {
        Kind::Html
    } else if std::str::from_utf8(head).is_ok() && !head.contains(&0) {
        Kind::Text
    } else {
        Kind::Other
    }
}

/// `body` as text in its declared charset (or the one its `<meta>` names, for HTML), UTF-8
/// otherwise; undecodable bytes become U+FFFD.
pub fn decode(body: &[u8], charset: Option<&str>, html: bool) -> String {
    let declared = charset
        .map(str::to_string)
        .or_else(|| html.then(|| meta_charset(body)).flatten());
    let encoding = declared
        .and_then(|c| encoding_rs::Encoding::for_label(c.as_bytes()))
        .unwrap_or(encoding_rs::UTF_8);
    let (text, _, _) = encoding.decode(body);
    text.into_owned()
}

/// The charset a page's `<meta charset>` or `http-equiv` tag names, from its first 4 KB.
fn meta_charset(body: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(&body[..body.len().min(4096)]).to_ascii_lowercase();
    let at = head.find("charset=")? + "charset=".len();
    let rest = head[at..].trim_start_matches(['"', '\'']);
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(rest.len());
    Some(rest[..end].to_string()).filter(|c| !c.is_empty())
}

/// The readable part of an HTML page as Markdown, links made absolute against `url`. A
/// page readability finds no article in is given whole (as Markdown); one nested too
/// deeply, as plain text.
pub fn html_to_markdown(html: &str, url: &str) -> Page {
    if super::scan::nesting(html, MAX_DEPTH) > MAX_DEPTH {
        let (title, text) = super::scan::plain_text(html);
        return Page {
            title,
            text: squeeze(&text),
        };
    }
    let doc = Document::from(html);
    let title = page_title(&doc);
    if depth(&doc.root()) > MAX_DEPTH {
        doc.select("script, style, noscript, template").remove();
        return Page {
            title,
            text: squeeze(&doc.root().text()),
        };
    }
    let cfg = Config {
        text_mode: TextMode::Markdown,
        ..Config::default()
    };
    let whole = doc.clone();
    let article = Readability::with_document(doc, Some(url), Some(cfg))
        .ok()
        .and_then(|mut r| r.parse().ok())
        .filter(|a| !a.text_content.trim().is_empty());
    match article {
        Some(a) => Page {
            title: Some(a.title.trim().to_string())
                .filter(|t| !t.is_empty())
                .or(title),
            text: squeeze(&unescape_prose(&a.text_content)),
        },
        None => {
            whole
                .select("script, style, noscript, template, nav, header, footer")
                .remove();
            let body = whole.body().unwrap_or_else(|| whole.root());
            Page {
                title,
                text: squeeze(&unescape_prose(&body.md(None))),
            }
        }
    }
}

fn page_title(doc: &Document) -> Option<String> {
    let t = doc.select("title").text();
    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
    (!t.is_empty()).then_some(t)
}

/// The deepest nesting below `root`, walked without recursion.
fn depth(root: &NodeRef<'_>) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(*root, 0usize)];
    while let Some((node, d)) = stack.pop() {
        deepest = deepest.max(d);
        if deepest > MAX_DEPTH {
            break;
        }
        let mut child = node.first_child();
        while let Some(c) = child {
            child = c.next_sibling();
            stack.push((c, d + 1));
        }
    }
    deepest
}

/// Markdown without the backslashes the writer puts before every `.`, `!`, `(`, `)`, `-`,
/// `+`, `#` and `_` of prose: they cost tokens and end up quoted ("41\.2"). Code (fenced
/// blocks and spans) is left as it is, and so are escaped brackets and asterisks (page text
/// like `[1]` must not read as one of the run's citations).
fn unescape_prose(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut fenced = false;
    for line in md.split_inclusive('\n') {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.contains('\\') {
            out.push_str(line);
            continue;
        }
        let mut in_code = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '`' => {
                    in_code = !in_code;
                    out.push(c);
                }
                '\\' if !in_code
                    && chars.peek().is_some_and(|n| {
                        matches!(n, '.' | '!' | '(' | ')' | '-' | '+' | '#' | '_')
                    }) => {}
                _ => out.push(c),
            }
        }
    }
    out
}

/// Text with runs of blank lines cut to one and trailing spaces dropped.
fn squeeze(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.trim().is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARTICLE: &str = r#"<!doctype html><html><head><title>Rust 2026 | News</title>
        <script>alert("x")</script><style>p{color:red}</style></head><body>
        <nav><a href="/">Home</a> <a href="/about">About</a> <a href="/x">X</a></nav>
        <article><h1>Rust in 2026</h1>
        <p>The Rust project shipped a great many improvements this year, and the community
        kept growing at a remarkable pace across industry and research alike.</p>
        <p>See the <a href="/blog/release">release notes</a> for the details of every change
        that landed, from the compiler to the standard library and tooling.</p>
        <p>Another paragraph with enough words to count as content for the readability
        scoring, which looks for blocks of prose with commas, like this one, here.</p>
        </article><footer>Copyright</footer></body></html>"#;

    #[test]
    fn an_article_becomes_markdown_with_absolute_links_and_no_scripts() {
        let page = html_to_markdown(ARTICLE, "https://news.example/2026/rust");
        assert!(page.title.as_deref().unwrap().contains("Rust"), "{page:?}");
        assert!(
            page.text.contains("great many improvements"),
            "{}",
            page.text
        );
        assert!(
            page.text.contains("(https://news.example/blog/release)"),
            "{}",
            page.text
        );
        assert!(!page.text.contains("alert"), "{}", page.text);
        assert!(
            !page.text.contains("\\."),
            "no escaped full stops: {}",
            page.text
        );
        assert!(!page.text.contains("color:red"), "{}", page.text);
    }

    #[test]
    fn prose_loses_the_writers_backslashes_and_code_keeps_them() {
        let md = "Growth was 41\\.2% \\(a record\\)\\! See \\[1\\] and \\*this\\*.\n```\nre = r\"a\\.b\"\n```\nUse `x\\.y` here, snake\\_case.\n";
        assert_eq!(
            unescape_prose(md),
            "Growth was 41.2% (a record)! See \\[1\\] and \\*this\\*.\n```\nre = r\"a\\.b\"\n```\nUse `x\\.y` here, snake_case.\n"
        );
    }

    #[test]
    fn a_page_nested_past_the_limit_is_read_as_text() {
        let deep = format!(
            "<html><body>{}deep text{}</body></html>",
            "<div>".repeat(100_000),
            "</div>".repeat(100_000)
        );
        let page = html_to_markdown(&deep, "https://deep.example/");
        assert_eq!(page.text, "deep text");
        // Nesting the scan cannot see (implied by the parser) is still caught after it.
        let implied = format!("<html><body>{}implied</body></html>", "<b>".repeat(450));
        assert_eq!(
            html_to_markdown(&implied, "https://deep.example/").text,
            "implied"
        );
    }

    #[test]
    fn many_unclosed_paragraphs_are_not_nesting() {
        let page = format!(
            "<html><head><title>Old</title></head><body>{}</body></html>",
            "<p>An old page, with paragraphs, never closed, as HTML allows.\n".repeat(3000)
        );
        assert_eq!(
            super::super::scan::nesting(&page, MAX_DEPTH),
            1,
            "only <title>"
        );
        let read = html_to_markdown(&page, "https://old.example/");
        assert!(read.text.contains("never closed"), "{}", &read.text[..200]);
    }

    #[test]
    fn bodies_are_told_apart_and_decoded() {
        assert_eq!(kind("text/html", b""), Kind::Html);
        assert_eq!(kind("application/json", b"{}"), Kind::Text);
        assert_eq!(kind("application/ld+json", b"{}"), Kind::Text);
        assert_eq!(kind("", b"%PDF-1.7"), Kind::Pdf);
        assert_eq!(
            kind("application/octet-stream", b"<!DOCTYPE html><p>"),
            Kind::Html
        );
        assert_eq!(kind("image/png", b"\x89PNG"), Kind::Other);
        assert_eq!(kind("", b"\x00\x01binary"), Kind::Other);
        let latin1 = b"<meta charset=\"iso-8859-1\"><p>caf\xe9</p>";
        assert!(decode(latin1, None, true).contains("café"));
        assert_eq!(decode(b"caf\xc3\xa9", Some("utf-8"), false), "café");
        assert_eq!(decode("a\u{fffd}".as_bytes(), None, false), "a\u{fffd}");
    }
}
