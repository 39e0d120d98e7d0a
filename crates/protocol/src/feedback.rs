//! Feedback on answers: a person's thumbs up or down on one run of their conversation, with
//! an optional comment; listed per thread for the chat, per run in the admin runs console,
//! and exported as JSON Lines for admins.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::wire_enum::wire_enum;

/// Longest comment, in characters, as sent (it is stored trimmed).
pub const MAX_COMMENT_CHARS: usize = 2000;

/// A comment: any text without the NUL character (which PostgreSQL cannot store).
pub const COMMENT_PATTERN: &str = "^[^\\x00]*$";

wire_enum! {
    /// What a person thought of an answer.
    pub enum Rating {
        /// Thumbs up: a good answer.
        Up = "up",
        /// Thumbs down: a bad one.
        Down = "down",
    }
}

/// `PUT /api/threads/{thread_id}/runs/{run_id}/feedback`: the caller's rating of a run's
/// answer (replacing the one they gave before).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FeedbackRequest {
    /// Thumbs up or down.
    pub rating: Rating,
    /// Why, in a few words (trimmed; blank or absent is no comment).
    #[serde(default)]
    #[schema(max_length = 2000, pattern = "^[^\\x00]*$")]
    pub comment: Option<String>,
}

/// The caller's feedback on one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Feedback {
    /// The run whose answer it rates.
    pub run_id: String,
    /// The run's thread.
    pub thread_id: String,
    /// Thumbs up or down.
    pub rating: Rating,
    /// The comment, when one was given.
    pub comment: Option<String>,
    /// RFC 3339 time it was first given.
    pub created_at: String,
    /// RFC 3339 time it last changed.
    pub updated_at: String,
}

/// `GET /api/threads/{thread_id}/feedback`: the caller's feedback on the thread's runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FeedbackList {
    /// One per rated run, oldest run first.
    pub feedback: Vec<Feedback>,
}

/// Feedback on a run as the admin runs console shows it: who gave it too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RunFeedback {
    /// Who gave it (their user id).
    pub user_id: String,
    /// Their email, when they are a registered user.
    pub user_email: Option<String>,
    /// Thumbs up or down.
    pub rating: Rating,
    /// The comment, when one was given.
    pub comment: Option<String>,
    /// RFC 3339 time it was first given.
    pub created_at: String,
    /// RFC 3339 time it last changed.
    pub updated_at: String,
}

/// One line of `GET /api/admin/feedback/export` (JSON Lines, oldest change first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FeedbackExportLine {
    /// The rated run.
    pub run_id: String,
    /// Its thread.
    pub thread_id: String,
    /// Who gave the feedback (their user id).
    pub user_id: String,
    /// Their email, when they are a registered user.
    pub user_email: Option<String>,
    /// Thumbs up or down.
    pub rating: Rating,
    /// The comment, when one was given.
    pub comment: Option<String>,
    /// RFC 3339 time it was first given.
    pub created_at: String,
    /// RFC 3339 time it last changed.
    pub updated_at: String,
    /// The agent that answered.
    pub assistant_id: String,
    /// The model that made most of the run's calls (`null` when none was recorded).
    pub model: Option<String>,
}
