//! How a cron is read from the database: its columns (with its last run's status) and the
//! row they fill, and the SQL of each sort field.

use antler_protocol::runs::{OnCompletion, RunStatus};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use sqlx::types::Json;

use super::wire::Wire;
use crate::crons::{CronRecord, CronSort, LastRun};

/// The columns of [`Row`], from `crons c` joined to its last run `r`.
pub(super) const COLUMNS: &str = "c.cron_id, c.owner, c.assistant_id, c.thread_id, c.schedule, c.timezone, \
    c.end_time, c.on_run_completed, c.payload, c.metadata, c.enabled, c.next_run_date, \
    c.last_run_id, c.last_thread_id, COALESCE(r.status, c.last_run_status) AS last_run_status, \
    c.last_run_at, c.created_at, c.updated_at";

/// What [`COLUMNS`] reads from.
pub(super) const FROM: &str = "FROM crons c LEFT JOIN runs r ON r.run_id = c.last_run_id";

#[derive(sqlx::FromRow)]
pub(super) struct Row {
    cron_id: String,
    owner: String,
    assistant_id: String,
    thread_id: Option<String>,
    schedule: String,
    timezone: Option<String>,
    end_time: Option<DateTime<Utc>>,
    on_run_completed: Option<Wire<OnCompletion>>,
    payload: Json<Value>,
    metadata: Json<Map<String, Value>>,
    enabled: bool,
    next_run_date: Option<DateTime<Utc>>,
    last_run_id: Option<String>,
    last_thread_id: Option<String>,
    last_run_status: Option<Wire<RunStatus>>,
    last_run_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl From<Row> for CronRecord {
    fn from(r: Row) -> Self {
        let last_run = match (r.last_run_id, r.last_thread_id, r.last_run_at) {
            (Some(run_id), Some(thread_id), Some(created_at)) => Some(LastRun {
                run_id,
                thread_id,
                status: r.last_run_status.map(|s| s.0),
                created_at,
            }),
            _ => None,
        };
        CronRecord {
            cron_id: r.cron_id,
            owner: r.owner,
            assistant_id: r.assistant_id,
            thread_id: r.thread_id,
            schedule: r.schedule,
            timezone: r.timezone,
            end_time: r.end_time,
            on_run_completed: r.on_run_completed.map(|w| w.0),
            payload: r.payload.0,
            metadata: r.metadata.0,
            enabled: r.enabled,
            next_run_date: r.next_run_date,
            last_run,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

/// The SQL of a sort field.
pub(super) fn column(sort: CronSort) -> &'static str {
    match sort {
        CronSort::CronId => "c.cron_id",
        CronSort::AssistantId => "c.assistant_id",
        CronSort::ThreadId => "c.thread_id",
        CronSort::CreatedAt => "c.created_at",
        CronSort::UpdatedAt => "c.updated_at",
        CronSort::NextRunDate => "c.next_run_date",
    }
}
