//! Threads (LangGraph Agent Server compatible shapes).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

/// A conversation thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Thread {
    /// Unique id (`^[A-Za-z0-9_-]{1,64}$`).
    #[schema(example = "2f1c0e9a-4b8e-4d3a-9f1e-0c6d2b7a5e11")]
    pub thread_id: String,
    /// RFC 3339 creation time.
    pub created_at: String,
    /// RFC 3339 time of the last change.
    pub updated_at: String,
    /// Free-form metadata (the UI keeps `title` here).
    #[schema(value_type = Object)]
    pub metadata: Map<String, Value>,
    /// `idle`, `busy`, `interrupted` or `error`.
    #[schema(example = "idle")]
    pub status: String,
    /// The thread's current state values.
    #[schema(value_type = Object)]
    pub values: Value,
}

/// `POST /api/threads` body. Unknown fields sent by LangGraph SDKs are accepted and ignored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CreateThread {
    /// Use this id; generated when absent. Creating an existing id returns it unchanged.
    pub thread_id: Option<String>,
    /// Initial metadata.
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Map<String, Value>>,
    /// `do_nothing` (default: return the existing thread) or `raise` (409 when it exists).
    pub if_exists: Option<String>,
}

/// `PATCH /api/threads/{thread_id}` body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PatchThread {
    /// Keys to set; a `null` value removes the key.
    #[schema(value_type = Object)]
    pub metadata: Map<String, Value>,
}

/// `POST /api/threads/search` body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SearchThreads {
    /// Only threads whose metadata has all these key/value pairs.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Map<String, Value>>,
    /// Only threads in this status.
    #[serde(default)]
    pub status: Option<String>,
    /// Page size, 1–1000 (default 10).
    #[serde(default = "default_limit")]
    pub limit: u32,
    /// Threads to skip (default 0).
    #[serde(default)]
    pub offset: u32,
    /// `created_at` (default), `updated_at` or `thread_id`.
    #[serde(default)]
    pub sort_by: Option<String>,
    /// `desc` (default, newest first) or `asc`.
    #[serde(default)]
    pub sort_order: Option<String>,
}

impl Default for SearchThreads {
    fn default() -> Self {
        SearchThreads {
            metadata: None,
            status: None,
            limit: default_limit(),
            offset: 0,
            sort_by: None,
            sort_order: None,
        }
    }
}

fn default_limit() -> u32 {
    10
}
