//! Runs and thread state (LangGraph Agent Server compatible shapes).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

pub use crate::run_options::RunOptions;
use crate::stream::StreamModes;
use crate::threads::ThreadValues;
use crate::wire_enum::wire_enum;

wire_enum! {
    /// Where a run is in its life.
    pub enum RunStatus {
        /// Created, waiting for its turn.
        Pending = "pending",
        /// Executing.
        Running = "running",
        /// Finished normally (also when it stopped to ask a question).
        Success = "success",
        /// Failed.
        Error = "error",
        /// Stopped by its time limit.
        Timeout = "timeout",
        /// Stopped before the end: cancelled, disconnected, or its server went away.
        Interrupted = "interrupted",
    }
}

impl RunStatus {
    /// Pending or running: the run still holds its thread.
    pub fn is_active(self) -> bool {
        matches!(self, RunStatus::Pending | RunStatus::Running)
    }
}

wire_enum! {
    /// Why a run stopped.
    pub enum StopReason {
        /// The model answered without tool calls.
        Completed = "completed",
        /// Someone cancelled it.
        Cancelled = "cancelled",
        /// A newer run with `multitask_strategy: interrupt` took the thread.
        Interrupted = "interrupted",
        /// The agent asked the person a question.
        Clarification = "clarification",
        /// The same tool calls again and again.
        LoopDetected = "loop_detected",
        /// `agent.max_model_calls` reached.
        ModelCallLimit = "model_call_limit",
        /// `agent.run_timeout_secs` reached.
        Timeout = "timeout",
        /// It failed.
        Error = "error",
        /// The server running it restarted.
        ServerRestart = "server_restart",
        /// The replica running it stopped responding.
        ReplicaLost = "replica_lost",
        /// The streaming client went away (`on_disconnect: cancel`).
        Disconnected = "disconnected",
    }
}

wire_enum! {
    /// What a new run does when its thread already has one.
    #[derive(Default)]
    pub enum MultitaskStrategy {
        /// Refuse the new run with 409 (the default).
        #[default]
        Reject = "reject",
        /// Cancel the running ones, then run.
        Interrupt = "interrupt",
        /// Wait for the running ones, then run.
        Enqueue = "enqueue",
        /// Cancel the running ones and delete them with everything they wrote (their input
        /// and checkpoints: the thread is as before them), then run.
        Rollback = "rollback",
    }
}

wire_enum! {
    /// What a streaming run does when its client goes away.
    pub enum OnDisconnect {
        /// Stop the run (the default).
        Cancel = "cancel",
        /// Keep running; the stream can be joined again.
        Continue = "continue",
    }
}

wire_enum! {
    /// What a stateless run (`POST /api/runs…`) does with its temporary thread at the end.
    pub enum OnCompletion {
        /// Delete it with its files and sandbox (the default).
        Delete = "delete",
        /// Keep it: it is an ordinary thread of the caller from then on.
        Keep = "keep",
    }
}

wire_enum! {
    /// What a run request does for a thread that does not exist.
    pub enum IfNotExists {
        /// 404 (the default).
        Reject = "reject",
        /// Create the thread.
        Create = "create",
    }
}

wire_enum! {
    /// What `cancel` does to the run.
    pub enum CancelAction {
        /// Stop it, keeping what it did so far.
        Interrupt = "interrupt",
        /// Stop it, then delete it with everything it wrote (its input, its checkpoints and
        /// events): the thread is as before it. Files it wrote stay.
        Rollback = "rollback",
    }
}

wire_enum! {
    /// Which of the caller's runs `POST /api/runs/cancel` cancels by status.
    pub enum CancelStatus {
        /// Runs waiting for their turn.
        Pending = "pending",
        /// Runs working.
        Running = "running",
        /// Both.
        All = "all",
    }
}

/// `POST /api/runs/cancel` body: runs of one thread (`thread_id`, with `run_ids` or all its
/// active runs), or every active run of the caller with a `status`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CancelRuns {
    /// The thread whose runs to cancel (required without `status`; with it, narrows it).
    #[serde(default)]
    pub thread_id: Option<String>,
    /// Runs of `thread_id` (at most 1000); default: all its pending and running runs.
    #[serde(default)]
    pub run_ids: Option<Vec<String>>,
    /// `pending`, `running` or `all`: the caller's runs in that status (not with `run_ids`).
    #[serde(default)]
    pub status: Option<CancelStatus>,
}

/// `POST /api/runs/cancel` query.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CancelRunsQuery {
    /// `interrupt` (default) or `rollback`.
    #[serde(default)]
    pub action: Option<CancelAction>,
}

/// One item of `POST /api/runs/batch`: a run on `thread_id`, or a stateless run (on a
/// temporary thread) without it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RunBatchItem {
    /// The thread to run on; absent: a stateless run.
    #[serde(default)]
    pub thread_id: Option<String>,
    /// The run, as `POST …/runs` takes it.
    #[serde(flatten)]
    pub run: RunCreate,
}

/// `POST /api/threads/{thread_id}/runs…` body. Fields LangGraph SDKs send that Antler does
/// not use are accepted and ignored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(examples(json!({
    "assistant_id": "agent",
    "input": {"messages": [{"role": "user", "content": "What can you do?"}]},
    "stream_mode": ["values", "messages-tuple"],
    "if_not_exists": "create"
})))]
pub struct RunCreate {
    /// The assistant: `agent` (the built-in one; `lead_agent` too) or an assistant's id.
    #[schema(pattern = "\\S", min_length = 1, example = "agent")]
    pub assistant_id: String,
    /// `{"messages": [...]}`: new messages (`{"role": "user", "content": "…"}` or LangChain
    /// shape; `ai` and `tool` messages too, a tool result only for a call that was made and
    /// dropped when that call has one already). `null` or no messages retries the thread's
    /// last message when it has no answer yet (its run failed or was stopped before the
    /// model replied).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub input: Option<Value>,
    /// `values` (the default), `messages-tuple` (or `messages`), `updates`, `custom`,
    /// `events`; one or a list. Another LangGraph mode (`debug`, `tasks`, `checkpoints`) is
    /// refused with 422 `invalid_stream_mode`.
    #[serde(default)]
    pub stream_mode: Option<StreamModes>,
    /// Run configuration (`configurable.model_name` selects a configured model).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub config: Option<Map<String, Value>>,
    /// Run context (same keys as `config.configurable`).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub context: Option<Map<String, Value>>,
    /// Stored with the run.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Map<String, Value>>,
    /// `reject` (default, 409 while a run is active), `interrupt`, `enqueue` or `rollback`.
    #[serde(default)]
    pub multitask_strategy: Option<MultitaskStrategy>,
    /// `cancel` (default for streaming) or `continue`.
    #[serde(default)]
    pub on_disconnect: Option<OnDisconnect>,
    /// `reject` (default: 404 for an unknown thread) or `create`.
    #[serde(default)]
    pub if_not_exists: Option<IfNotExists>,
    /// `{"resume": …}` answers the thread's pending interrupt (its question) instead of
    /// `input`: a string as it is, anything else as JSON text.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub command: Option<Value>,
    /// Stateless runs only: `delete` (default) or `keep` the temporary thread afterwards.
    #[serde(default)]
    pub on_completion: Option<OnCompletion>,
    /// Continue from this checkpoint of the thread instead of its newest one: the run's
    /// checkpoints form a new branch. With no `input`, the run answers the checkpoint's last
    /// message again (Regenerate); with input, the input follows the checkpoint (Edit).
    #[serde(default)]
    pub checkpoint: Option<CheckpointSelector>,
    /// The same as `checkpoint`, by id.
    #[serde(default)]
    pub checkpoint_id: Option<String>,
}

impl RunCreate {
    /// The checkpoint the run continues from, when one was named.
    pub fn from_checkpoint(&self) -> Option<&str> {
        self.checkpoint_id
            .as_deref()
            .or_else(|| self.checkpoint.as_ref()?.checkpoint_id())
    }
}

/// `POST /api/threads/{thread_id}/state` body: a new checkpoint with these values merged
/// into a checkpoint's (LangGraph's `update_state`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ThreadStateUpdate {
    /// Values to merge: `messages` are added (a message with an existing id replaces it),
    /// `title` replaces the title. `null` copies the checkpoint as it is (a fork).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub values: Option<Value>,
    /// The checkpoint to start from (default: the thread's newest).
    #[serde(default)]
    pub checkpoint: Option<CheckpointSelector>,
    /// The same as `checkpoint`, by id.
    #[serde(default)]
    pub checkpoint_id: Option<String>,
    /// The node the update is written as (recorded in the checkpoint's `writes`).
    #[serde(default)]
    pub as_node: Option<String>,
}

impl ThreadStateUpdate {
    /// The checkpoint the update starts from, when one was named.
    pub fn from_checkpoint(&self) -> Option<&str> {
        self.checkpoint_id
            .as_deref()
            .or_else(|| self.checkpoint.as_ref()?.checkpoint_id())
    }
}

/// Answer of `POST /api/threads/{thread_id}/state`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct StateUpdated {
    /// The new checkpoint.
    pub checkpoint: Checkpoint,
}

/// `POST /api/threads/{thread_id}/state/checkpoint` body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct StateAtCheckpoint {
    /// The checkpoint to read.
    pub checkpoint: CheckpointSelector,
    /// Accepted and ignored (there are no subgraphs).
    #[serde(default)]
    pub subgraphs: Option<bool>,
    /// Answer only these fields (`values`, `next`, `tasks`, `checkpoint`, `metadata`,
    /// `created_at`, `parent_checkpoint`, `interrupts`, or `values.<key>` for one value).
    #[serde(default)]
    pub select: Option<Vec<String>>,
}

/// Token, call and cost counters of a run: its own model calls (the agent loop, summaries,
/// the title) and its subagents'.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RunUsage {
    /// Prompt tokens over all model calls (cached ones included).
    pub input_tokens: u64,
    /// Of `input_tokens`, those read from the provider's prompt cache.
    #[serde(default)]
    pub cached_input_tokens: u64,
    /// Completion tokens over all model calls (reasoning included).
    pub output_tokens: u64,
    /// Of `output_tokens`, those spent reasoning.
    #[serde(default)]
    pub reasoning_tokens: u64,
    /// Model calls made.
    pub model_calls: u64,
    /// What the calls cost in US dollars, from the models' `pricing` (0 when unpriced).
    #[serde(default)]
    pub cost_usd: f64,
}

impl RunUsage {
    /// Adds `more` to these counters.
    pub fn add(&mut self, more: &RunUsage) {
        self.input_tokens += more.input_tokens;
        self.cached_input_tokens += more.cached_input_tokens;
        self.output_tokens += more.output_tokens;
        self.reasoning_tokens += more.reasoning_tokens;
        self.model_calls += more.model_calls;
        self.cost_usd += more.cost_usd;
    }
}

/// A run record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Run {
    /// Run id.
    pub run_id: String,
    /// Its thread.
    pub thread_id: String,
    /// The agent.
    pub assistant_id: String,
    /// RFC 3339 creation time.
    pub created_at: String,
    /// RFC 3339 time of the last change.
    pub updated_at: String,
    /// Where the run is.
    pub status: RunStatus,
    /// Why it stopped (absent while it runs).
    pub stop_reason: Option<StopReason>,
    /// The error message when it failed.
    pub error: Option<String>,
    /// Metadata given at creation.
    #[schema(value_type = Object)]
    pub metadata: Map<String, Value>,
    /// The multitask strategy it was created with.
    pub multitask_strategy: MultitaskStrategy,
    /// The creation request (input, stream modes, config).
    #[schema(value_type = Object)]
    pub kwargs: Value,
    /// Counters.
    pub usage: RunUsage,
}

/// A checkpoint reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Checkpoint {
    /// The thread.
    pub thread_id: String,
    /// Always empty (one graph namespace).
    pub checkpoint_ns: String,
    /// The checkpoint.
    pub checkpoint_id: String,
}

/// `GET /api/threads/{thread_id}/state` and the items of `POST …/history`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ThreadState {
    /// The conversation, its title and artifacts at this checkpoint.
    pub values: ThreadValues,
    /// Nodes to run next (empty: the agent waits for input).
    pub next: Vec<String>,
    /// Pending tasks, one per node in `next` (with the interrupts that wait for an answer).
    #[schema(value_type = Vec<Object>)]
    pub tasks: Vec<Value>,
    /// Checkpoint metadata as LangGraph's: `source` (`input`, `loop`, `update`, `fork`),
    /// `step` (−1 for a thread's first input), `parents`, `writes`, `run_id`, …
    #[schema(value_type = Object)]
    pub metadata: Map<String, Value>,
    /// RFC 3339 time of the checkpoint.
    pub created_at: Option<String>,
    /// This checkpoint.
    pub checkpoint: Option<Checkpoint>,
    /// The one it continues (its branch's previous checkpoint).
    pub parent_checkpoint: Option<Checkpoint>,
}

/// `POST /api/threads/{thread_id}/history` body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct HistoryRequest {
    /// Most states returned (default 10; larger pages are cut to 1000).
    #[serde(default, deserialize_with = "crate::de::opt_u32")]
    #[schema(format = Int64, maximum = 4294967295_u64)]
    pub limit: Option<u32>,
    /// Only states before this checkpoint: its id, or a checkpoint (`{checkpoint_id}`) or
    /// config (`{configurable: {checkpoint_id}}`) as the LangGraph SDKs send it.
    #[serde(default)]
    pub before: Option<CheckpointSelector>,
    /// Only states whose checkpoint metadata has all these key/value pairs (looked for
    /// among the newest 1000 checkpoints).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Map<String, Value>>,
    /// Start at this checkpoint (`{checkpoint_id}`), inclusive, instead of the newest.
    #[serde(default)]
    pub checkpoint: Option<CheckpointSelector>,
    /// Answer only these fields of each state (as `POST …/state/checkpoint`'s `select`).
    #[serde(default)]
    pub select: Option<Vec<String>>,
}

/// A checkpoint named by its id, or by an object holding it as the LangGraph SDKs send it
/// (`{checkpoint_id, checkpoint_ns}` or a config `{configurable: {checkpoint_id}}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum CheckpointSelector {
    /// The checkpoint id.
    Id(String),
    /// `{checkpoint_id}` or `{configurable: {checkpoint_id}}`.
    #[schema(value_type = Object)]
    Checkpoint(Map<String, Value>),
}

impl CheckpointSelector {
    /// The checkpoint id it names, if any.
    pub fn checkpoint_id(&self) -> Option<&str> {
        match self {
            CheckpointSelector::Id(id) => Some(id),
            CheckpointSelector::Checkpoint(map) => map
                .get("checkpoint_id")
                .or_else(|| map.get("configurable")?.get("checkpoint_id"))
                .and_then(Value::as_str),
        }
    }
}

/// `POST …/runs/{run_id}/cancel` query.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CancelQuery {
    /// Wait until the run has stopped (`true`/`false`, or `1`/`0` as the LangGraph SDKs send).
    #[serde(default, deserialize_with = "query_flag")]
    #[schema(value_type = Option<bool>)]
    pub wait: Option<bool>,
    /// `interrupt` (the default) or `rollback` (the run is deleted with what it wrote;
    /// answered once that is done, whatever `wait` says).
    #[serde(default)]
    pub action: Option<CancelAction>,
    /// Accepted and ignored (the JS SDK sends a reason; it is not recorded).
    #[serde(default)]
    pub reason: Option<String>,
}

/// A boolean query parameter: `true`/`false`/`1`/`0` (any case); anything else is an error
/// naming the value.
fn query_flag<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    let Some(raw) = Option::<String>::deserialize(d)? else {
        return Ok(None);
    };
    match raw.to_ascii_lowercase().as_str() {
        "true" | "1" => Ok(Some(true)),
        "false" | "0" => Ok(Some(false)),
        _ => Err(serde::de::Error::custom(format!(
            "expected true, false, 1 or 0, not {raw:?}"
        ))),
    }
}
