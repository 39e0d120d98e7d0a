//! Threads (LangGraph Agent Server compatible shapes).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::messages::Message;
use crate::wire_enum::wire_enum;

wire_enum! {
    /// What a thread is doing.
    #[derive(Default)]
    pub enum ThreadStatus {
        /// Waiting for the person.
        #[default]
        Idle = "idle",
        /// A run is working on it.
        Busy = "busy",
        /// Its last run was stopped before the end, or asked a question that waits for
        /// its answer.
        Interrupted = "interrupted",
        /// Its last run failed.
        Error = "error",
    }
}

wire_enum! {
    /// What creating a thread does when the id exists.
    pub enum IfExists {
        /// Answer the existing thread (the default).
        DoNothing = "do_nothing",
        /// 409.
        Raise = "raise",
    }
}

wire_enum! {
    /// Which field orders a thread search.
    #[derive(Default)]
    pub enum ThreadSortBy {
        /// Creation time (the default).
        #[default]
        CreatedAt = "created_at",
        /// Time of the last change.
        UpdatedAt = "updated_at",
        /// The id.
        ThreadId = "thread_id",
    }
}

wire_enum! {
    /// Sort direction.
    pub enum SortOrder {
        /// Smallest first.
        Asc = "asc",
        /// Largest (newest) first, the default.
        Desc = "desc",
    }
}

/// A thread's values: the state `GET …/state` answers and `values` events carry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ThreadValues {
    /// The conversation.
    #[serde(default)]
    pub messages: Vec<Message>,
    /// Generated after the first exchange.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Files presented to the person (container paths under `/mnt/user-data/outputs`).
    #[serde(default)]
    pub artifacts: Vec<String>,
    /// What the agent is waiting for (LangGraph interrupts, `{value, id}`): set when a run
    /// ends on a question, cleared by the next run. Answer with a message, or with
    /// `command: {resume: …}`.
    #[serde(
        rename = "__interrupt__",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schema(value_type = Vec<Object>)]
    pub interrupts: Vec<Value>,
    /// The agent's plan (plan mode's `write_todos`), as it last wrote it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub todos: Vec<Todo>,
    /// What the model reads instead of the earliest messages, once the conversation grew
    /// past the summarization threshold (the messages themselves stay in `messages`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
}

/// The earliest messages of a conversation, summarized for the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Summary {
    /// The summary.
    pub content: String,
    /// The id of the last message it covers: the model reads the summary, then the
    /// messages after this one.
    pub up_to: String,
    /// How many messages it covers.
    pub summarized: usize,
}

wire_enum! {
    /// Where a plan item stands.
    pub enum TodoStatus {
        /// Not started.
        Pending = "pending",
        /// Being worked on.
        InProgress = "in_progress",
        /// Done.
        Completed = "completed",
    }
}

/// One item of the agent's plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Todo {
    /// What to do.
    pub content: String,
    /// Where it stands.
    pub status: TodoStatus,
}

impl ThreadValues {
    /// Reads stored values. A value that does not parse is an error, never an empty history:
    /// the next save would overwrite the real one.
    pub fn from_value(v: &Value) -> Result<Self, serde_json::Error> {
        if v.is_null() {
            return Ok(ThreadValues::default());
        }
        ThreadValues::deserialize(v)
    }

    /// As JSON.
    pub fn to_value(&self) -> Value {
        // Plain data with string keys: serialising cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

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
    /// What the thread is doing.
    pub status: ThreadStatus,
    /// The thread's current state values.
    pub values: ThreadValues,
    /// What the thread waits for, by pending task id (the agent task of `GET …/state`):
    /// `{"<task id>": [{"value": …, "id": "<interrupt id>"}]}`; `{}` when nothing waits.
    #[serde(default)]
    #[schema(value_type = Object)]
    pub interrupts: Map<String, Value>,
    /// Only in answers to a search with a `query`: the title and an extract of the
    /// conversation with the matches marked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<crate::thread_search::ThreadSearchHit>,
}

/// `POST /api/threads` body. Unknown fields sent by LangGraph SDKs are accepted and ignored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CreateThread {
    /// Use this id; generated when absent. Creating an existing id returns it unchanged.
    #[schema(pattern = "^[A-Za-z0-9_-]+$", min_length = 1, max_length = 64)]
    pub thread_id: Option<String>,
    /// Initial metadata.
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Map<String, Value>>,
    /// `do_nothing` (default: return the existing thread) or `raise` (409 when it exists).
    pub if_exists: Option<IfExists>,
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
    pub status: Option<ThreadStatus>,
    /// Only threads whose current values have all these top-level key/value pairs.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub values: Option<Map<String, Value>>,
    /// Page size, 1–1000 (default 10).
    #[serde(default = "default_limit", deserialize_with = "crate::de::u32")]
    #[schema(minimum = 1, maximum = 1000)]
    pub limit: u32,
    /// Threads to skip (default 0).
    #[serde(default, deserialize_with = "crate::de::u32")]
    #[schema(format = Int64, maximum = 4294967295_u64)]
    pub offset: u32,
    /// `created_at` (default), `updated_at` or `thread_id`.
    #[serde(default)]
    pub sort_by: Option<ThreadSortBy>,
    /// `desc` (default, newest first) or `asc`.
    #[serde(default)]
    pub sort_order: Option<SortOrder>,
    /// Only these threads (at most 1000 ids).
    #[serde(default)]
    pub ids: Option<Vec<String>>,
    /// Answer only these fields of each thread: `thread_id`, `created_at`, `updated_at`,
    /// `metadata`, `status`, `values`, `interrupts` (another name is a 422).
    #[serde(default)]
    pub select: Option<Vec<String>>,
    /// `{alias: path}`: each thread answers `extracted: {alias: value}`, the value at a path
    /// into the thread (`values.messages[-1].content`, `metadata.user`: dot-separated keys,
    /// `[n]` array indexes, negative from the end; `null` where nothing is). At most 10
    /// paths of at most 5 steps.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub extract: Option<Map<String, Value>>,
    /// Full-text search (an Antler extension): only threads whose title or message text
    /// holds every word (split at spaces; each found anywhere, in any case, Chinese
    /// included; at most 16 words are used), best match first, then the most recently
    /// updated (`sort_by` is then ignored). Each thread answers `search` with the matches
    /// marked. Empty or blank means no text filter. At most 200 characters.
    #[serde(default)]
    #[schema(max_length = 200)]
    pub query: Option<String>,
}

impl Default for SearchThreads {
    fn default() -> Self {
        SearchThreads {
            metadata: None,
            status: None,
            values: None,
            limit: default_limit(),
            offset: 0,
            sort_by: None,
            sort_order: None,
            ids: None,
            select: None,
            extract: None,
            query: None,
        }
    }
}

fn default_limit() -> u32 {
    10
}

/// `POST /api/threads/count` body: the filters of a search.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CountThreads {
    /// Only threads whose metadata has all these key/value pairs.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Map<String, Value>>,
    /// Only threads whose current values have all these top-level key/value pairs.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub values: Option<Map<String, Value>>,
    /// Only threads in this status.
    #[serde(default)]
    pub status: Option<ThreadStatus>,
}

wire_enum! {
    /// What pruning does to a thread.
    #[derive(Default)]
    pub enum PruneStrategy {
        /// Delete the thread with its runs and files (the default).
        #[default]
        Delete = "delete",
        /// Keep the thread and its current state; delete its earlier checkpoints.
        KeepLatest = "keep_latest",
    }
}

/// `POST /api/threads/prune` body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PruneThreads {
    /// The threads (at most 1000); ids that are not the caller's threads are skipped.
    pub thread_ids: Vec<String>,
    /// `delete` (default) or `keep_latest`.
    #[serde(default)]
    pub strategy: Option<PruneStrategy>,
}

/// Answer of `POST /api/threads/prune`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PruneResult {
    /// How many threads were pruned.
    pub pruned_count: u64,
}

/// `PATCH /api/threads/{thread_id}/state` body: metadata merged into a checkpoint's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PatchState {
    /// Keys to set in the checkpoint's metadata; a `null` value removes the key.
    #[schema(value_type = Object)]
    pub metadata: Map<String, Value>,
    /// The checkpoint to patch (default: the thread's newest): its id, or a checkpoint or
    /// config object holding `checkpoint_id`.
    #[serde(default)]
    pub checkpoint: Option<crate::runs::CheckpointSelector>,
    /// The same as `checkpoint`, by id.
    #[serde(default)]
    pub checkpoint_id: Option<String>,
}
