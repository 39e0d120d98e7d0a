//! Conversation search and export: what a search hit and an export request carry.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::wire_enum::wire_enum;

/// Longest search query, in characters.
pub const MAX_QUERY_CHARS: usize = 200;

/// A piece of text; `match` pieces are what the search query found (the UI marks them).
/// Plain text, never markup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TextPart {
    /// The text.
    pub text: String,
    /// Whether the query matched this piece.
    #[serde(rename = "match")]
    pub matched: bool,
}

/// Why a thread matched a `query` search: its title and an extract of its messages, split
/// into pieces with the matches marked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ThreadSearchHit {
    /// The title (empty when the thread has none yet).
    pub title: Vec<TextPart>,
    /// A short extract of the conversation around the first match (its start when only the
    /// title matched); `…` shows where the text was cut.
    pub snippet: Vec<TextPart>,
}

wire_enum! {
    /// The shape of an exported conversation.
    #[derive(Default)]
    pub enum ExportFormat {
        /// Markdown: the title, the messages with their roles, tool calls and reasoning
        /// folded in `<details>`, artifacts as links (the default).
        #[default]
        Markdown = "markdown",
        /// JSON: the LangGraph thread, its current state and its history.
        Json = "json",
    }
}
