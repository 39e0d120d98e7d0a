//! Full-text search over the caller's conversations: the query's words, the search, and
//! the hits' title and snippet with the matches marked (as data: the UI renders the marks,
//! no markup travels).

use antler_protocol::thread_search::{MAX_QUERY_CHARS, TextPart, ThreadSearchHit};
use antler_protocol::threads::Thread;
use antler_store::thread_search::MAX_TERMS;
use antler_store::{TextHit, ThreadQuery};

use crate::Caller;
use crate::threads::{ThreadError, ThreadsService};

/// Characters a snippet keeps before the first match.
const SNIPPET_LEAD: usize = 40;
/// Most characters of a snippet.
const SNIPPET_CHARS: usize = 200;

impl ThreadsService {
    /// The caller's threads holding every one of `terms` and passing `query`'s filters,
    /// best match first, each with its hit.
    pub(crate) async fn search_text(
        &self,
        caller: &Caller,
        terms: &[String],
        query: &ThreadQuery,
    ) -> Result<Vec<Thread>, ThreadError> {
        let hits = self
            .store()
            .thread_search
            .search_text(caller.owner(), terms, query)
            .await?;
        let mut out = Vec::with_capacity(hits.len());
        for hit in hits {
            let search = self::hit(&hit, terms);
            let mut thread = self.to_wire(hit.thread).await?;
            thread.search = Some(search);
            out.push(thread);
        }
        Ok(out)
    }
}

/// The words of a search query: split at white space (and NUL), repeats dropped (in any case), at
/// most [`MAX_TERMS`]; none for an absent or blank query. A query over
/// [`MAX_QUERY_CHARS`] characters is refused.
pub fn terms(query: Option<&str>) -> Result<Vec<String>, ThreadError> {
    let Some(query) = query else {
        return Ok(Vec::new());
    };
    let length = query.chars().count();
    if length > MAX_QUERY_CHARS {
        return Err(ThreadError::Invalid(format!(
            "query must be at most {MAX_QUERY_CHARS} characters, not {length}"
        )));
    }
    let mut out: Vec<String> = Vec::new();
    // NUL splits words too: PostgreSQL cannot take it in text.
    let words = query
        .split(|c: char| c.is_whitespace() || c == '\0')
        .filter(|w| !w.is_empty());
    for word in words {
        let folded = fold(word);
        if !out.iter().any(|w| fold(w) == folded) {
            out.push(word.to_string());
        }
        if out.len() == MAX_TERMS {
            break;
        }
    }
    Ok(out)
}

/// The title and snippet of a hit, matches marked.
fn hit(hit: &TextHit, terms: &[String]) -> ThreadSearchHit {
    ThreadSearchHit {
        title: mark(&hit.title, terms),
        snippet: snippet(hit, terms),
    }
}

/// The excerpt cut to a snippet around its first match, on one line, `…` where cut.
fn snippet(hit: &TextHit, terms: &[String]) -> Vec<TextPart> {
    let chars: Vec<char> = hit
        .excerpt
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect();
    let first = matches(&chars, terms).first().map_or(0, |m| m.0);
    let mut start = first.saturating_sub(SNIPPET_LEAD);
    // Start at a word when one begins shortly before (no half words), unless at the start.
    if (start > 0 || hit.cut_before)
        && let Some(space) = chars[start..first].iter().position(|c| *c == ' ')
    {
        start += space + 1;
    }
    let end = (start + SNIPPET_CHARS).min(chars.len());
    let text: String = chars[start..end].iter().collect();
    let mut parts = mark(text.trim(), terms);
    if (start > 0 || hit.cut_before) && !parts.is_empty() {
        parts.insert(0, plain("…"));
    }
    if (end < chars.len() || hit.cut_after) && !parts.is_empty() {
        parts.push(plain("…"));
    }
    parts
}

/// `text` in pieces, the occurrences of `terms` (any case) marked.
fn mark(text: &str, terms: &[String]) -> Vec<TextPart> {
    let chars: Vec<char> = text.chars().collect();
    let mut parts = Vec::new();
    let mut at = 0;
    for (start, end) in matches(&chars, terms) {
        if start > at {
            parts.push(plain(&chars[at..start].iter().collect::<String>()));
        }
        parts.push(TextPart {
            text: chars[start..end].iter().collect(),
            matched: true,
        });
        at = end;
    }
    if at < chars.len() {
        parts.push(plain(&chars[at..].iter().collect::<String>()));
    }
    parts
}

/// Where the terms occur in `chars` (character ranges, in order, none overlapping; the
/// longest term wins where two start at one place).
fn matches(chars: &[char], terms: &[String]) -> Vec<(usize, usize)> {
    let hay: Vec<char> = chars.iter().map(|c| fold_char(*c)).collect();
    let mut needles: Vec<Vec<char>> = terms
        .iter()
        .map(|t| t.chars().map(fold_char).collect::<Vec<char>>())
        .filter(|n| !n.is_empty())
        .collect();
    needles.sort_by_key(|n| std::cmp::Reverse(n.len()));
    let mut out = Vec::new();
    let mut i = 0;
    while i < hay.len() {
        match needles.iter().find(|n| hay[i..].starts_with(n)) {
            Some(n) => {
                out.push((i, i + n.len()));
                i += n.len();
            }
            None => i += 1,
        }
    }
    out
}

/// A character compared without case (one character for one, so positions hold).
fn fold_char(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

fn fold(word: &str) -> String {
    word.chars().map(fold_char).collect()
}

fn plain(text: &str) -> TextPart {
    TextPart {
        text: text.to_string(),
        matched: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(parts: &[TextPart]) -> String {
        parts
            .iter()
            .map(|p| {
                if p.matched {
                    format!("[{}]", p.text)
                } else {
                    p.text.clone()
                }
            })
            .collect()
    }

    fn text_hit(excerpt: &str, cut_before: bool, cut_after: bool) -> TextHit {
        TextHit {
            thread: antler_store::ThreadRecord {
                thread_id: "t".into(),
                owner: "o".into(),
                created_at: chrono::Utc::now(),
                updated_at: chrono::Utc::now(),
                metadata: serde_json::Map::new(),
                status: antler_protocol::threads::ThreadStatus::Idle,
                values: serde_json::Value::Null,
            },
            title: String::new(),
            excerpt: excerpt.into(),
            cut_before,
            cut_after,
        }
    }

    #[test]
    fn terms_split_dedupe_and_cap() {
        assert!(terms(None).unwrap().is_empty());
        assert!(terms(Some("  \t ")).unwrap().is_empty());
        assert_eq!(terms(Some("Rust rust  SQL")).unwrap(), ["Rust", "SQL"]);
        assert_eq!(terms(Some("a\0b")).unwrap(), ["a", "b"]);
        let many: String = (0..40).map(|i| format!("w{i} ")).collect();
        assert_eq!(terms(Some(&many)).unwrap().len(), MAX_TERMS);
        assert!(terms(Some(&"x".repeat(200))).is_ok());
        let err = terms(Some(&"é".repeat(201))).unwrap_err();
        assert!(err.to_string().contains("200 characters"), "{err}");
    }

    #[test]
    fn marks_every_occurrence_in_any_case() {
        let parts = mark(
            "Zebras and zebra-crossings",
            &["ZEBRA".into(), "and".into()],
        );
        assert_eq!(shown(&parts), "[Zebra]s [and] [zebra]-crossings");
        assert_eq!(
            shown(&mark("中文搜索引擎", &["搜索".into()])),
            "中文[搜索]引擎"
        );
        assert_eq!(shown(&mark("ÜBER über", &["über".into()])), "[ÜBER] [über]");
        assert!(mark("", &["x".into()]).is_empty());
    }

    #[test]
    fn longer_terms_win_where_two_start_together() {
        let parts = mark("rustacean", &["rust".into(), "rustacean".into()]);
        assert_eq!(shown(&parts), "[rustacean]");
    }

    #[test]
    fn snippets_start_near_the_match_at_a_word_and_show_cuts() {
        let excerpt = format!(
            "{}the needle\nis here {}",
            "hay ".repeat(30),
            "straw ".repeat(60)
        );
        let parts = snippet(&text_hit(&excerpt, true, false), &["needle".into()]);
        let text = shown(&parts);
        assert!(text.starts_with("…hay "), "{text}");
        assert!(text.contains("the [needle] is here"), "{text}");
        assert!(text.ends_with('…'), "{text}");
        let short = snippet(&text_hit("just a needle", false, false), &["needle".into()]);
        assert_eq!(shown(&short), "just a [needle]");
    }

    #[test]
    fn snippets_without_a_match_show_the_start() {
        let parts = snippet(
            &text_hit("first words of the chat", false, true),
            &["zzz".into()],
        );
        assert_eq!(shown(&parts), "first words of the chat…");
    }
}
