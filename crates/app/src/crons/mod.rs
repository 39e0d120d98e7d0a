//! Crons: runs started on a schedule, as LangGraph's `/runs/crons` API has them. A cron
//! belongs to its creator; the runs it starts are ordinary runs of theirs (streams, history,
//! memory). A thread's cron runs on that thread (`enqueue` by default, so a busy thread does
//! not lose the tick); a cron without a thread starts each run on a new thread, deleted after
//! the run unless `on_run_completed` is `keep`. The scheduler ([`scheduler`]) claims due
//! crons in the database so that with several replicas each tick runs once.

mod runner;
pub mod schedule;
mod scheduler;

use std::sync::Arc;

use antler_protocol::crons::{
    CRON_FIELDS, Cron, CronCount, CronCreate, CronLastRun, CronPatch, CronSearch, CronSortBy,
};
use antler_protocol::runs::{OnCompletion, Run, RunCreate, RunStatus};
use antler_protocol::threads::SortOrder;
use antler_store::threads::timestamp;
use antler_store::{CronFilter, CronRecord, CronSort, Store, StoreError};
use chrono::Utc;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use self::schedule::{Schedule, parse_time};
use crate::Caller;
use crate::assistants::{AssistantError, AssistantsService};
use crate::runs::{RunOpError, RunsService};
use crate::threads::{ThreadError, ThreadsService};

/// Largest page of a search.
pub const MAX_PAGE: u32 = 1000;

/// `crons` in the configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CronsConfig {
    /// Whether this server runs due crons (the API works either way; with several replicas
    /// any number of them may).
    pub enabled: bool,
    /// How often the scheduler looks for due crons, in milliseconds.
    pub poll_interval_ms: u64,
    /// Most crons claimed in one transaction.
    pub batch_size: u32,
}

impl Default for CronsConfig {
    fn default() -> Self {
        CronsConfig {
            enabled: true,
            poll_interval_ms: 1000,
            batch_size: 100,
        }
    }
}

/// What can go wrong with a cron.
#[derive(Debug, thiserror::Error)]
pub enum CronError {
    /// No such cron for the caller.
    #[error("no cron '{0}'")]
    NotFound(String),
    /// The request is invalid (the message names the field).
    #[error("{0}")]
    Invalid(String),
    /// The thread is missing or not the caller's.
    #[error(transparent)]
    Thread(#[from] ThreadError),
    /// The assistant does not exist for the caller.
    #[error(transparent)]
    Assistant(#[from] AssistantError),
    /// Starting its run failed.
    #[error(transparent)]
    Run(#[from] RunOpError),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The crons use-cases and the scheduler.
pub struct CronsService {
    store: Store,
    runs: RunsService,
    threads: ThreadsService,
    assistants: Arc<AssistantsService>,
    config: CronsConfig,
}

impl std::fmt::Debug for CronsService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CronsService").finish_non_exhaustive()
    }
}

impl CronsService {
    pub(crate) fn new(
        store: Store,
        runs: RunsService,
        threads: ThreadsService,
        assistants: Arc<AssistantsService>,
        config: CronsConfig,
    ) -> Self {
        CronsService {
            store,
            runs,
            threads,
            assistants,
            config,
        }
    }

    /// Creates a cron of the caller's; with `thread_id`, its runs go to that thread of theirs.
    pub async fn create(
        &self,
        caller: &Caller,
        thread_id: Option<&str>,
        body: CronCreate,
    ) -> Result<Cron, CronError> {
        if body.assistant_id.trim().is_empty() {
            return Err(CronError::Invalid("assistant_id: must not be empty".into()));
        }
        check_input(body.input.as_ref())?;
        check_interrupts("interrupt_before", body.interrupt_before.as_ref())?;
        check_interrupts("interrupt_after", body.interrupt_after.as_ref())?;
        let schedule = Schedule::parse(&body.schedule, body.timezone.as_deref())
            .map_err(CronError::Invalid)?;
        let now = Utc::now();
        let end_time = future_end(body.end_time.as_deref(), now)?;
        if let Some(thread_id) = thread_id {
            self.runs
                .thread(caller, thread_id)
                .await
                .map_err(|e| match e {
                    RunOpError::Thread(t) => CronError::Thread(t),
                    other => CronError::Run(other),
                })?;
        }
        self.assistants.profile(caller, &body.assistant_id).await?;
        let enabled = body.enabled.unwrap_or(true);
        let metadata = body.metadata.clone().unwrap_or_default();
        let payload = payload_of(&body);
        run_request(&payload, &body.assistant_id)?;
        let record = CronRecord {
            cron_id: uuid::Uuid::new_v4().to_string(),
            owner: caller.owner().to_string(),
            assistant_id: body.assistant_id.trim().to_string(),
            thread_id: thread_id.map(str::to_string),
            next_run_date: if enabled {
                schedule.next_before_end(now, end_time)
            } else {
                None
            },
            schedule: body.schedule.trim().to_string(),
            timezone: body.timezone,
            end_time,
            on_run_completed: match thread_id {
                Some(_) => None,
                None => Some(body.on_run_completed.unwrap_or(OnCompletion::Delete)),
            },
            payload,
            metadata,
            enabled,
            last_run: None,
            created_at: now,
            updated_at: now,
        };
        self.store.crons.create(&record).await?;
        tracing::info!(cron.id = %record.cron_id, schedule = %record.schedule, "cron created");
        Ok(wire(record))
    }

    /// One cron of the caller's.
    pub async fn get(&self, caller: &Caller, cron_id: &str) -> Result<Cron, CronError> {
        Ok(wire(self.record(caller, cron_id).await?))
    }

    /// A page of the caller's crons, each with only the `select`ed fields when given.
    pub async fn search(&self, caller: &Caller, q: &CronSearch) -> Result<Vec<Value>, CronError> {
        let limit = q.limit.unwrap_or(10);
        if !(1..=MAX_PAGE).contains(&limit) {
            return Err(CronError::Invalid(format!(
                "limit: must be between 1 and {MAX_PAGE}"
            )));
        }
        if let Some(unknown) = q
            .select
            .iter()
            .flatten()
            .find(|f| !CRON_FIELDS.contains(&f.as_str()))
        {
            let shown: String = unknown.chars().take(40).collect();
            return Err(CronError::Invalid(format!(
                "select: unknown field '{shown}'; expected some of {}",
                CRON_FIELDS.join(", ")
            )));
        }
        let filter = CronFilter {
            assistant_id: q.assistant_id.clone(),
            thread_id: q.thread_id.clone(),
            enabled: q.enabled,
            metadata: q.metadata.clone().unwrap_or_default(),
        };
        let sort = match q.sort_by.unwrap_or(CronSortBy::CreatedAt) {
            CronSortBy::CronId => CronSort::CronId,
            CronSortBy::AssistantId => CronSort::AssistantId,
            CronSortBy::ThreadId => CronSort::ThreadId,
            CronSortBy::CreatedAt => CronSort::CreatedAt,
            CronSortBy::UpdatedAt => CronSort::UpdatedAt,
            CronSortBy::NextRunDate => CronSort::NextRunDate,
        };
        let ascending = q.sort_order == Some(SortOrder::Asc);
        let found = self
            .store
            .crons
            .search(
                caller.owner(),
                &filter,
                sort,
                ascending,
                limit,
                u64::from(q.offset.unwrap_or(0)),
            )
            .await?;
        let mut out = Vec::with_capacity(found.len());
        for record in found {
            let mut value = serde_json::to_value(wire(record))
                .map_err(|e| CronError::Invalid(e.to_string()))?;
            // An empty `select` is none, as for threads: every field.
            let select = q.select.as_ref().filter(|s| !s.is_empty());
            if let (Some(select), Value::Object(map)) = (select, &mut value) {
                map.retain(|k, _| select.iter().any(|s| s == k));
            }
            out.push(value);
        }
        Ok(out)
    }

    /// How many of the caller's crons a filter finds.
    pub async fn count(&self, caller: &Caller, q: &CronCount) -> Result<u64, CronError> {
        let filter = CronFilter {
            assistant_id: q.assistant_id.clone(),
            thread_id: q.thread_id.clone(),
            enabled: None,
            metadata: q.metadata.clone().unwrap_or_default(),
        };
        Ok(self.store.crons.count(caller.owner(), &filter).await?)
    }

    /// Changes a cron of the caller's; a new schedule, time zone or `enabled` computes its
    /// next date from now.
    pub async fn update(
        &self,
        caller: &Caller,
        cron_id: &str,
        patch: CronPatch,
    ) -> Result<Cron, CronError> {
        let mut c = self.record(caller, cron_id).await?;
        let now = Utc::now();
        let mut reschedule = false;
        check_input(patch.input.as_ref())?;
        check_interrupts("interrupt_before", patch.interrupt_before.as_ref())?;
        check_interrupts("interrupt_after", patch.interrupt_after.as_ref())?;
        if let Some(schedule) = &patch.schedule {
            c.schedule = schedule.trim().to_string();
            reschedule = true;
        }
        if let Some(tz) = &patch.timezone {
            c.timezone = Some(tz.clone());
            reschedule = true;
        }
        let schedule =
            Schedule::parse(&c.schedule, c.timezone.as_deref()).map_err(CronError::Invalid)?;
        if let Some(enabled) = patch.enabled {
            reschedule |= enabled != c.enabled;
            c.enabled = enabled;
        }
        let end_changed = patch.end_time.is_some();
        if let Some(end) = &patch.end_time {
            c.end_time = future_end(end.as_deref(), now)?;
        }
        if c.thread_id.is_none()
            && let Some(keep) = patch.on_run_completed
        {
            c.on_run_completed = Some(keep);
        }
        let mut payload = match c.payload {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        let mut set = |key: &str, value: Option<Value>| {
            if let Some(value) = value {
                payload.insert(key.to_string(), value);
            }
        };
        set("input", patch.input.clone());
        set("config", patch.config.clone().map(Value::Object));
        set("context", patch.context.clone().map(Value::Object));
        set("metadata", patch.metadata.clone().map(Value::Object));
        set("webhook", patch.webhook.clone().map(Value::String));
        set("interrupt_before", patch.interrupt_before.clone());
        set("interrupt_after", patch.interrupt_after.clone());
        set("stream_mode", to_value(patch.stream_mode.as_ref()));
        set("stream_subgraphs", patch.stream_subgraphs.map(Value::Bool));
        set("stream_resumable", patch.stream_resumable.map(Value::Bool));
        set("durability", patch.durability.clone().map(Value::String));
        c.payload = Value::Object(payload);
        run_request(&c.payload, &c.assistant_id)?;
        if let Some(metadata) = patch.metadata {
            c.metadata = metadata;
        }
        if !c.enabled {
            c.next_run_date = None;
        } else if reschedule {
            c.next_run_date = schedule.next_before_end(now, c.end_time);
        } else if end_changed {
            // Only the end moved: the next date stays unless the new end is before it.
            c.next_run_date = match c.next_run_date {
                Some(next) if c.end_time.is_none_or(|e| next < e) => Some(next),
                _ => schedule.next_before_end(now, c.end_time),
            };
        }
        c.updated_at = now;
        let updated = self
            .store
            .crons
            .update(&c, reschedule || end_changed || !c.enabled)
            .await?
            .ok_or_else(|| CronError::NotFound(cron_id.to_string()))?;
        Ok(wire(updated))
    }

    /// Deletes a cron of the caller's (its runs and their threads stay).
    pub async fn delete(&self, caller: &Caller, cron_id: &str) -> Result<(), CronError> {
        if !self.store.crons.delete(caller.owner(), cron_id).await? {
            return Err(CronError::NotFound(cron_id.to_string()));
        }
        tracing::info!(cron.id = %cron_id, "cron deleted");
        Ok(())
    }

    /// Starts the cron's run now, outside its schedule (its next date does not move).
    pub async fn run_now(&self, caller: &Caller, cron_id: &str) -> Result<Run, CronError> {
        let cron = self.record(caller, cron_id).await?;
        let thread_id = cron
            .thread_id
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let started = self.start(caller, &cron, None, &thread_id).await?;
        self.store
            .crons
            .record_run(
                &cron.cron_id,
                &thread_id,
                &started.record.run_id,
                Utc::now(),
            )
            .await?;
        Ok(started.record)
    }

    async fn record(&self, caller: &Caller, cron_id: &str) -> Result<CronRecord, CronError> {
        self.store
            .crons
            .get(caller.owner(), cron_id)
            .await?
            .ok_or_else(|| {
                let shown: String = cron_id.chars().take(80).collect();
                CronError::NotFound(shown)
            })
    }
}

/// A run's `input` is an object (`{"messages": […]}`) or nothing: kept for every tick, so
/// another shape is refused rather than failing each run.
fn check_input(input: Option<&Value>) -> Result<(), CronError> {
    match input {
        None | Some(Value::Null | Value::Object(_)) => Ok(()),
        Some(_) => Err(CronError::Invalid(
            "input: expected an object such as {\"messages\": [...]}".into(),
        )),
    }
}

/// `interrupt_before` / `interrupt_after` as LangGraph takes them: `"*"` (every node) or a
/// list of node names (kept for the runs, so a malformed one is refused, not stored).
fn check_interrupts(field: &str, value: Option<&Value>) -> Result<(), CronError> {
    match value {
        None | Some(Value::Null) => Ok(()),
        Some(Value::String(all)) if all == "*" => Ok(()),
        Some(Value::Array(nodes)) if nodes.iter().all(Value::is_string) => Ok(()),
        Some(_) => Err(CronError::Invalid(format!(
            "{field}: expected \"*\" or a list of node names"
        ))),
    }
}

/// `end_time` read and checked to be after `now`.
fn future_end(
    text: Option<&str>,
    now: chrono::DateTime<Utc>,
) -> Result<Option<chrono::DateTime<Utc>>, CronError> {
    let Some(text) = text else {
        return Ok(None);
    };
    let end = parse_time("end_time", text).map_err(CronError::Invalid)?;
    if end <= now {
        return Err(CronError::Invalid(format!(
            "end_time: {} is in the past",
            timestamp(end)
        )));
    }
    Ok(Some(end))
}

/// The run request a cron's ticks start, as LangGraph keeps it (`payload`).
fn payload_of(body: &CronCreate) -> Value {
    let mut p = Map::new();
    p.insert(
        "assistant_id".into(),
        Value::String(body.assistant_id.trim().to_string()),
    );
    let mut set = |key: &str, value: Option<Value>| {
        if let Some(value) = value {
            p.insert(key.to_string(), value);
        }
    };
    set("input", body.input.clone());
    set("config", body.config.clone().map(Value::Object));
    set("context", body.context.clone().map(Value::Object));
    set("metadata", body.metadata.clone().map(Value::Object));
    set(
        "multitask_strategy",
        to_value(body.multitask_strategy.as_ref()),
    );
    set("stream_mode", to_value(body.stream_mode.as_ref()));
    set("webhook", body.webhook.clone().map(Value::String));
    set("interrupt_before", body.interrupt_before.clone());
    set("interrupt_after", body.interrupt_after.clone());
    set("checkpoint_during", body.checkpoint_during.map(Value::Bool));
    set("durability", body.durability.clone().map(Value::String));
    set("stream_subgraphs", body.stream_subgraphs.map(Value::Bool));
    set("stream_resumable", body.stream_resumable.map(Value::Bool));
    Value::Object(p)
}

fn to_value<T: Serialize>(v: Option<&T>) -> Option<Value> {
    v.and_then(|v| serde_json::to_value(v).ok())
}

/// The run request a payload holds, for `assistant_id` (its input is checked when a run
/// starts).
pub(crate) fn run_request(payload: &Value, assistant_id: &str) -> Result<RunCreate, CronError> {
    let mut map = match payload {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    map.insert(
        "assistant_id".into(),
        Value::String(assistant_id.to_string()),
    );
    // The fields were typed on the way in, so this fails only for a damaged payload.
    RunCreate::deserialize(Value::Object(map))
        .map_err(|_| CronError::Invalid("payload: not a run request".into()))
}

/// The wire shape of a stored cron.
pub fn wire(c: CronRecord) -> Cron {
    Cron {
        cron_id: c.cron_id,
        assistant_id: c.assistant_id,
        thread_id: c.thread_id,
        on_run_completed: c.on_run_completed,
        end_time: c.end_time.map(timestamp),
        schedule: c.schedule,
        timezone: c.timezone,
        created_at: timestamp(c.created_at),
        updated_at: timestamp(c.updated_at),
        payload: c.payload,
        user_id: Some(c.owner),
        next_run_date: c.next_run_date.map(timestamp),
        metadata: c.metadata,
        enabled: c.enabled,
        last_run: c.last_run.map(|r| CronLastRun {
            run_id: r.run_id,
            thread_id: r.thread_id,
            status: r.status.unwrap_or(RunStatus::Pending),
            created_at: timestamp(r.created_at),
        }),
    }
}
