//! Crons: runs started on a schedule (LangGraph Agent Server's `/runs/crons` API, plus
//! Antler's `last_run`).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::runs::{MultitaskStrategy, OnCompletion, RunStatus};
use crate::stream::StreamModes;
use crate::threads::SortOrder;
use crate::wire_enum::wire_enum;

/// A cron.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Cron {
    /// Its id (a UUID).
    pub cron_id: String,
    /// The assistant its runs use.
    pub assistant_id: String,
    /// The thread its runs go to; `null`: each run gets a new thread.
    pub thread_id: Option<String>,
    /// What happens to a new thread after its run: `delete` or `keep` (`null` for a
    /// thread's cron).
    pub on_run_completed: Option<OnCompletion>,
    /// RFC 3339: no run starts at or after it.
    pub end_time: Option<String>,
    /// The cron expression: 5 fields, or 6 with leading seconds.
    #[schema(example = "0 9 * * 1-5")]
    pub schedule: String,
    /// The IANA time zone the schedule is read in (`null`: UTC).
    pub timezone: Option<String>,
    /// RFC 3339 creation time.
    pub created_at: String,
    /// RFC 3339 time of the last change.
    pub updated_at: String,
    /// The run request each tick starts (`input`, `config`, `context`, `metadata`, …).
    #[schema(value_type = Object)]
    pub payload: Value,
    /// Who owns it (its runs are theirs).
    pub user_id: Option<String>,
    /// RFC 3339: when it next runs; `null` when disabled or past `end_time`.
    pub next_run_date: Option<String>,
    /// Free-form metadata (`disabled_reason` says why the server disabled it).
    #[schema(value_type = Object)]
    pub metadata: Map<String, Value>,
    /// Whether it starts runs.
    pub enabled: bool,
    /// The latest run it started (an Antler extension).
    pub last_run: Option<CronLastRun>,
}

/// LangGraph's `interrupt_before` / `interrupt_after`: `"*"` (every node), a list of node
/// names, or `null`. Kept as JSON so a wrong shape gets the service's error naming the field.
fn interrupt_nodes() -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, Type};
    let one_of = OneOfBuilder::new()
        .item(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(["*"])),
        )
        .item(ArrayBuilder::new().items(ObjectBuilder::new().schema_type(Type::String)))
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .description(Some("`\"*\"` (every node) or a list of node names."))
        .build();
    Schema::OneOf(one_of)
}

/// The latest run a cron started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CronLastRun {
    /// The run.
    pub run_id: String,
    /// Its thread.
    pub thread_id: String,
    /// Its status.
    pub status: RunStatus,
    /// RFC 3339 time it was started.
    pub created_at: String,
}

/// `POST /api/runs/crons` and `POST /api/threads/{thread_id}/runs/crons` body. Fields of
/// LangGraph's run request that Antler does not use are kept in the payload and ignored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(examples(json!({
    "assistant_id": "agent",
    "schedule": "0 9 * * 1-5",
    "timezone": "Europe/Paris",
    "input": {"messages": [{"role": "user", "content": "Summarise the news"}]}
})))]
pub struct CronCreate {
    /// The assistant: `agent` or an assistant's id.
    #[schema(min_length = 1, pattern = r"\S", example = "agent")]
    pub assistant_id: String,
    /// Cron expression: `min hour day month weekday`, or 6 fields with leading seconds.
    #[schema(example = "0 9 * * 1-5")]
    pub schedule: String,
    /// IANA time zone name (default UTC).
    #[serde(default)]
    pub timezone: Option<String>,
    /// The run's input (`{"messages": […]}`).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub input: Option<Value>,
    /// The cron's metadata, also given to each run.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Map<String, Value>>,
    /// Run configuration.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub config: Option<Map<String, Value>>,
    /// Run context.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub context: Option<Map<String, Value>>,
    /// New-thread crons: `delete` (default) or `keep` the thread after each run.
    #[serde(default)]
    pub on_run_completed: Option<OnCompletion>,
    /// RFC 3339 time after which no run starts (must be in the future).
    #[serde(default)]
    pub end_time: Option<String>,
    /// Whether it runs (default true).
    #[serde(default)]
    pub enabled: Option<bool>,
    /// A thread's cron: `enqueue` (default: a busy thread still gets the tick), `reject` or
    /// `interrupt`.
    #[serde(default)]
    pub multitask_strategy: Option<MultitaskStrategy>,
    /// Stream modes recorded for the runs.
    #[serde(default)]
    pub stream_mode: Option<StreamModes>,
    /// Accepted and kept; Antler calls no webhooks.
    #[serde(default)]
    pub webhook: Option<String>,
    /// Accepted and kept (the agent has no graph nodes to stop at).
    #[serde(default)]
    #[schema(schema_with = interrupt_nodes)]
    pub interrupt_before: Option<Value>,
    /// Accepted and kept.
    #[serde(default)]
    #[schema(schema_with = interrupt_nodes)]
    pub interrupt_after: Option<Value>,
    /// Accepted and kept.
    #[serde(default)]
    pub checkpoint_during: Option<bool>,
    /// Accepted and kept.
    #[serde(default)]
    pub durability: Option<String>,
    /// Accepted and kept.
    #[serde(default)]
    pub stream_subgraphs: Option<bool>,
    /// Accepted and kept.
    #[serde(default)]
    pub stream_resumable: Option<bool>,
}

/// `PATCH /api/runs/crons/{cron_id}` body: only the fields given change.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CronPatch {
    /// A new cron expression.
    #[serde(default)]
    pub schedule: Option<String>,
    /// A new IANA time zone.
    #[serde(default)]
    pub timezone: Option<String>,
    /// A new end time (RFC 3339); `null` removes it.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub end_time: Option<Option<String>>,
    /// The run's input.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub input: Option<Value>,
    /// New metadata (replaces it).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Map<String, Value>>,
    /// Run configuration.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub config: Option<Map<String, Value>>,
    /// Run context.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub context: Option<Map<String, Value>>,
    /// Accepted and kept.
    #[serde(default)]
    pub webhook: Option<String>,
    /// Accepted and kept.
    #[serde(default)]
    #[schema(schema_with = interrupt_nodes)]
    pub interrupt_before: Option<Value>,
    /// Accepted and kept.
    #[serde(default)]
    #[schema(schema_with = interrupt_nodes)]
    pub interrupt_after: Option<Value>,
    /// `delete` or `keep` (new-thread crons).
    #[serde(default)]
    pub on_run_completed: Option<OnCompletion>,
    /// Turns it on (its next date is computed from now) or off.
    #[serde(default)]
    pub enabled: Option<bool>,
    /// Stream modes recorded for the runs.
    #[serde(default)]
    pub stream_mode: Option<StreamModes>,
    /// Accepted and kept.
    #[serde(default)]
    pub stream_subgraphs: Option<bool>,
    /// Accepted and kept.
    #[serde(default)]
    pub stream_resumable: Option<bool>,
    /// Accepted and kept.
    #[serde(default)]
    pub durability: Option<String>,
}

/// Tells a field given as `null` (`Some(None)`) from one left out (`None`).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

wire_enum! {
    /// What a cron search sorts by.
    pub enum CronSortBy {
        /// The id.
        CronId = "cron_id",
        /// The assistant.
        AssistantId = "assistant_id",
        /// The thread.
        ThreadId = "thread_id",
        /// Creation time (the default).
        CreatedAt = "created_at",
        /// Time of the last change.
        UpdatedAt = "updated_at",
        /// When it next runs.
        NextRunDate = "next_run_date",
    }
}

/// The fields `select` may name.
pub const CRON_FIELDS: &[&str] = &[
    "cron_id",
    "assistant_id",
    "thread_id",
    "on_run_completed",
    "end_time",
    "schedule",
    "timezone",
    "created_at",
    "updated_at",
    "payload",
    "user_id",
    "next_run_date",
    "metadata",
    "enabled",
    "last_run",
];

/// `POST /api/runs/crons/search` body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CronSearch {
    /// Only this assistant's crons.
    #[serde(default)]
    pub assistant_id: Option<String>,
    /// Only this thread's crons.
    #[serde(default)]
    pub thread_id: Option<String>,
    /// Only enabled (or disabled) crons.
    #[serde(default)]
    pub enabled: Option<bool>,
    /// Only crons whose metadata has all these key/value pairs.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Map<String, Value>>,
    /// Page size, 1–1000 (default 10).
    #[serde(default, deserialize_with = "crate::de::opt_u32")]
    #[schema(format = Int64, maximum = 4294967295_u64)]
    pub limit: Option<u32>,
    /// Crons to skip.
    #[serde(default, deserialize_with = "crate::de::opt_u32")]
    #[schema(format = Int64, maximum = 4294967295_u64)]
    pub offset: Option<u32>,
    /// `created_at` (default), `updated_at`, `cron_id`, `assistant_id`, `thread_id` or
    /// `next_run_date`.
    #[serde(default)]
    pub sort_by: Option<CronSortBy>,
    /// `desc` (default) or `asc`.
    #[serde(default)]
    pub sort_order: Option<SortOrder>,
    /// Only these fields of each cron (see [`CRON_FIELDS`]).
    #[serde(default)]
    pub select: Option<Vec<String>>,
}

/// `POST /api/runs/crons/count` body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CronCount {
    /// Only this assistant's crons.
    #[serde(default)]
    pub assistant_id: Option<String>,
    /// Only this thread's crons.
    #[serde(default)]
    pub thread_id: Option<String>,
    /// Only crons whose metadata has all these key/value pairs.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Map<String, Value>>,
}
