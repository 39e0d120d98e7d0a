//! A linear look at HTML by its tags alone, before (or instead of) a real parse: how deeply
//! it nests, and its text when it nests too deeply to be parsed safely.

/// Elements that never have an end tag.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr", "keygen",
];

/// Elements whose end tag may be left out (the next one closes them).
const OPTIONAL_END: &[&str] = &[
    "p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th", "thead", "tbody", "tfoot",
    "colgroup", "rb", "rt", "rp", "rtc", "html", "head", "body",
];

/// Elements whose content is not markup.
const RAW: &[&str] = &[
    "script", "style", "textarea", "title", "xmp", "noscript", "template",
];

/// Elements after which text starts a new line.
const BLOCK: &[&str] = &[
    "p",
    "div",
    "br",
    "li",
    "tr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "section",
    "article",
    "header",
    "footer",
    "blockquote",
    "pre",
    "table",
    "ul",
    "ol",
    "hr",
];

enum Token<'a> {
    Text(&'a str),
    Start(String, &'a str),
    End(String),
}

/// Walks `html` token by token; `raw` content (scripts and the like) comes as one text.
fn tokens(html: &str, mut visit: impl FnMut(Token<'_>) -> bool) {
    let bytes = html.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let Some(lt) = html[i..].find('<').map(|p| p + i) else {
            visit(Token::Text(&html[i..]));
            return;
        };
        if lt > i && !visit(Token::Text(&html[i..lt])) {
            return;
        }
        let rest = &html[lt..];
        if rest.starts_with("<!--") {
            i = rest.find("-->").map_or(bytes.len(), |e| lt + e + 3);
            continue;
        }
        if rest.starts_with("<!") || rest.starts_with("<?") {
            i = rest.find('>').map_or(bytes.len(), |e| lt + e + 1);
            continue;
        }
        let end_tag = rest.starts_with("</");
        let name_from = lt + if end_tag { 2 } else { 1 };
        let name_len = html[name_from..]
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'-')
            .count();
        if name_len == 0 {
            // A lone `<` is text.
            if !visit(Token::Text("<")) {
                return;
            }
            i = lt + 1;
            continue;
        }
        let name = html[name_from..name_from + name_len].to_ascii_lowercase();
        let close = html[name_from..]
            .find('>')
            .map_or(bytes.len(), |e| name_from + e + 1);
        let attrs = &html[name_from + name_len..close.saturating_sub(1).max(name_from + name_len)];
        i = close;
        if end_tag {
            if !visit(Token::End(name)) {
                return;
            }
            continue;
        }
        let raw = RAW.contains(&name.as_str()) && !attrs.ends_with('/');
        if !visit(Token::Start(name.clone(), attrs)) {
            return;
        }
        if raw {
            let ends = html[i..]
                .to_ascii_lowercase()
                .find(&format!("</{name}"))
                .map_or(bytes.len(), |e| i + e);
            if !visit(Token::Text(&html[i..ends])) {
                return;
            }
            i = ends;
        }
    }
}

/// How deeply `html` nests elements, counting only tags that must be closed; stops
/// counting once past `stop_at`.
pub(super) fn nesting(html: &str, stop_at: usize) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    tokens(html, |t| {
        match t {
            Token::Start(name, attrs) => {
                let n = name.as_str();
                if !VOID.contains(&n) && !OPTIONAL_END.contains(&n) && !attrs.ends_with('/') {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
            }
            Token::End(name) => {
                let n = name.as_str();
                if !VOID.contains(&n) && !OPTIONAL_END.contains(&n) {
                    depth = depth.saturating_sub(1);
                }
            }
            Token::Text(_) => {}
        }
        deepest <= stop_at
    });
    deepest
}

/// The page's title and text, tags dropped, scripts and styles left out.
pub(super) fn plain_text(html: &str) -> (Option<String>, String) {
    let mut text = String::with_capacity(html.len() / 2);
    let mut title = None;
    let mut skipping: Option<String> = None;
    tokens(html, |t| {
        match t {
            Token::Start(name, _) => {
                if RAW.contains(&name.as_str()) {
                    skipping = Some(name);
                } else if BLOCK.contains(&name.as_str()) {
                    text.push('\n');
                }
            }
            Token::End(name) => {
                if skipping.as_deref() == Some(name.as_str()) {
                    skipping = None;
                } else if BLOCK.contains(&name.as_str()) {
                    text.push('\n');
                }
            }
            Token::Text(t) => match skipping.as_deref() {
                Some("title") if title.is_none() => {
                    title = Some(unescape(t).split_whitespace().collect::<Vec<_>>().join(" "));
                }
                Some(_) => {}
                None => text.push_str(&unescape(t)),
            },
        }
        true
    });
    (title.filter(|t| !t.is_empty()), text)
}

/// The common character references.
fn unescape(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    s.replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_counts_what_must_be_closed() {
        assert_eq!(nesting("<div><div><br><img src=x></div></div>", 100), 2);
        assert_eq!(nesting("<ul><li>a<li>b</ul><p>c<p>d", 100), 1);
        assert_eq!(
            nesting("<script>if (a<b) { '<div><div>' }</script><div></div>", 100),
            1
        );
        assert_eq!(nesting("<!-- <div><div> --><span/><span></span>", 100), 1);
        assert_eq!(
            nesting(&"<div>".repeat(10_000), 50),
            51,
            "stops once past the limit"
        );
    }

    #[test]
    fn plain_text_drops_tags_scripts_and_styles() {
        let (title, text) = plain_text(
            "<html><head><title>A &amp; B</title><style>x{}</style></head><body><h1>Head</h1><p>one &lt;two&gt;<script>evil()</script></p>3 < 4</body></html>",
        );
        assert_eq!(title.as_deref(), Some("A & B"));
        assert!(
            text.contains("Head") && text.contains("one <two>") && text.contains("3 < 4"),
            "{text}"
        );
        assert!(!text.contains("evil") && !text.contains("x{}"), "{text}");
    }
}
