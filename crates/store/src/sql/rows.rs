//! Rows as both engines return them, read by `FromRow`.

use antler_protocol::runs::{MultitaskStrategy, RunStatus, RunUsage, StopReason};
use antler_protocol::threads::ThreadStatus;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use sqlx::types::Json;

use super::wire::Wire;
use crate::runs::{CheckpointRecord, RunRecord, StoredEvent};
use crate::threads::ThreadRecord;

/// The columns of [`ThreadRow`].
pub(crate) const THREAD_COLUMNS: &str =
    "thread_id, owner, created_at, updated_at, metadata, status, state";

/// A `threads` row.
#[derive(sqlx::FromRow)]
pub(crate) struct ThreadRow {
    thread_id: String,
    owner: String,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    metadata: Json<Map<String, Value>>,
    status: Wire<ThreadStatus>,
    state: Json<Value>,
}

impl From<ThreadRow> for ThreadRecord {
    fn from(r: ThreadRow) -> Self {
        ThreadRecord {
            thread_id: r.thread_id,
            owner: r.owner,
            created_at: r.created_at,
            updated_at: r.updated_at,
            metadata: r.metadata.0,
            status: r.status.0,
            values: r.state.0,
        }
    }
}

/// The columns of [`RunRow`], in insert order.
pub(crate) const RUN_COLUMNS: &str = "run_id, thread_id, owner, assistant_id, status, \
    stop_reason, error, multitask_strategy, metadata, kwargs, instance, input_tokens, \
    output_tokens, model_calls, created_at, updated_at, cached_input_tokens, reasoning_tokens, \
    cost_usd";

/// A `runs` row.
#[derive(sqlx::FromRow)]
pub(crate) struct RunRow {
    run_id: String,
    thread_id: String,
    owner: String,
    assistant_id: String,
    status: Wire<RunStatus>,
    stop_reason: Option<Wire<StopReason>>,
    error: Option<String>,
    multitask_strategy: Wire<MultitaskStrategy>,
    metadata: Json<Map<String, Value>>,
    kwargs: Json<Value>,
    instance: String,
    input_tokens: i64,
    output_tokens: i64,
    model_calls: i64,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    cached_input_tokens: i64,
    reasoning_tokens: i64,
    cost_usd: f64,
}

/// A stored count (never negative) as a counter.
pub(crate) fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// A counter as stored (saturating at `i64::MAX`).
pub(crate) fn stored(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl From<RunRow> for RunRecord {
    fn from(r: RunRow) -> Self {
        RunRecord {
            run_id: r.run_id,
            thread_id: r.thread_id,
            owner: r.owner,
            assistant_id: r.assistant_id,
            status: r.status.0,
            stop_reason: r.stop_reason.map(|w| w.0),
            error: r.error,
            multitask_strategy: r.multitask_strategy.0,
            metadata: r.metadata.0,
            kwargs: r.kwargs.0,
            instance: r.instance,
            usage: RunUsage {
                input_tokens: count(r.input_tokens),
                cached_input_tokens: count(r.cached_input_tokens),
                output_tokens: count(r.output_tokens),
                reasoning_tokens: count(r.reasoning_tokens),
                model_calls: count(r.model_calls),
                cost_usd: r.cost_usd,
            },
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

/// A `run_events` row.
#[derive(sqlx::FromRow)]
pub(crate) struct EventRow {
    seq: i64,
    event: String,
    data: String,
}

impl From<EventRow> for StoredEvent {
    fn from(r: EventRow) -> Self {
        StoredEvent {
            seq: count(r.seq),
            event: r.event,
            data: r.data,
        }
    }
}

/// The columns of [`CheckpointRow`], in insert order.
pub(crate) const CHECKPOINT_COLUMNS: &str =
    "checkpoint_id, thread_id, run_id, parent_id, step, state, created_at, metadata, message_refs";

/// A `thread_checkpoints` row.
#[derive(sqlx::FromRow)]
pub(crate) struct CheckpointRow {
    checkpoint_id: String,
    thread_id: String,
    run_id: Option<String>,
    parent_id: Option<String>,
    step: i64,
    state: Json<Value>,
    created_at: DateTime<Utc>,
    metadata: Option<Json<Map<String, Value>>>,
    /// The hashes of its messages (see `blobs`); `None`: `state` is whole.
    pub(crate) message_refs: Option<Json<Vec<String>>>,
}

impl From<CheckpointRow> for CheckpointRecord {
    /// The record with the state as stored (without its messages when they are blobs).
    fn from(r: CheckpointRow) -> Self {
        CheckpointRecord {
            checkpoint_id: r.checkpoint_id,
            thread_id: r.thread_id,
            run_id: r.run_id,
            parent_id: r.parent_id,
            step: r.step,
            state: r.state.0,
            metadata: r.metadata.map(|m| m.0).unwrap_or_default(),
            created_at: r.created_at,
        }
    }
}
