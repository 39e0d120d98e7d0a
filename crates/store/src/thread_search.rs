//! Full-text search over one owner's conversations (titles and message text).
//!
//! The index is kept by the database itself (migration 0022): triggers on `threads` rewrite
//! a thread's searchable text whenever its state or metadata is written, and a delete takes
//! it away, so no caller has to remember to index.

use async_trait::async_trait;

use crate::StoreError;
use crate::threads::{ThreadQuery, ThreadRecord};

/// Most words one search may hold (more are ignored).
pub const MAX_TERMS: usize = 16;

/// Characters of the excerpt a hit carries: enough around the first match for a snippet.
pub const EXCERPT_CHARS: usize = 320;

/// A thread that matched, with the text to highlight.
#[derive(Debug, Clone, PartialEq)]
pub struct TextHit {
    /// The thread.
    pub thread: ThreadRecord,
    /// Its title as indexed (the metadata's, else the values').
    pub title: String,
    /// Up to [`EXCERPT_CHARS`] characters of its message text, starting a little before the
    /// first word found there (the start of the text when none is).
    pub excerpt: String,
    /// Whether the text goes on before the excerpt.
    pub cut_before: bool,
    /// Whether the text goes on after the excerpt.
    pub cut_after: bool,
}

/// Searches the text of threads.
#[async_trait]
pub trait ThreadSearchRepo: Send + Sync + 'static {
    /// The owner's threads whose title or message text holds every one of `terms` (each a
    /// substring, any case; at most [`MAX_TERMS`], none empty) and that pass the query's
    /// filters, best match first, then the most recently updated; a page of them.
    async fn search_text(
        &self,
        owner: &str,
        terms: &[String],
        query: &ThreadQuery,
    ) -> Result<Vec<TextHit>, StoreError>;
}

/// `term` as a LIKE pattern matching it anywhere (`\` escapes, as the queries declare).
pub(crate) fn like_pattern(term: &str) -> String {
    let mut out = String::with_capacity(term.len() + 2);
    out.push('%');
    for c in term.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

/// `term` as an FTS5 string (a phrase: any text, operators and quotes included, is taken
/// literally).
pub(crate) fn fts_phrase(term: &str) -> String {
    format!("\"{}\"", term.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_patterns_escape_wildcards() {
        assert_eq!(like_pattern("a%b_c\\"), "%a\\%b\\_c\\\\%");
    }

    #[test]
    fn fts_phrases_double_quotes() {
        assert_eq!(fts_phrase("NEAR(\"x\" OR"), "\"NEAR(\"\"x\"\" OR\"");
    }
}
