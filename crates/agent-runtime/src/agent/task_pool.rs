//! The `task` tool: the subagent types, the slots and counters of one run's subagents
//! (at most `max_concurrent` at once, later calls queued; at most `max_total`), the registry
//! through which a subagent run is cancelled by id, and the tool itself, which hands a
//! call that got its slot to the run ([`Delegate`]) to run the subagent.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use antler_protocol::runs::RunUsage;
use antler_protocol::stream::{CustomEvent, StreamEvent, TaskEnd};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::config::{SubagentConfig, SubagentType};
use crate::runs::log::EventLog;
use crate::tools::{Tool, ToolContext, ToolError, ToolOutput, parse_args, schema_of};

/// The tool's name.
pub(crate) const TASK: &str = "task";

/// Tools no subagent gets: it cannot delegate further or ask the person.
pub(super) const NOT_FOR_SUBAGENTS: [&str; 2] = [TASK, "ask_clarification"];

/// The sandbox tools of the `bash` type.
const SANDBOX_TOOLS: [&str; 7] = [
    "bash",
    "ls",
    "read_file",
    "write_file",
    "str_replace",
    "glob",
    "grep",
];

/// The built-in types, then the configured ones, then the assistant's (a later type replaces
/// an earlier one of the same name).
fn types(cfg: &SubagentConfig, own: &[SubagentType]) -> Vec<SubagentType> {
    let mut all = vec![
        SubagentType {
            name: "general-purpose".into(),
            description: "A capable agent for a self-contained piece of work of several steps: \
                          research in files, analysis, writing or editing files."
                .into(),
            system_prompt: String::new(),
            tools: None,
        },
        SubagentType {
            name: "bash".into(),
            description: "Runs commands and works with files in the sandbox: builds, tests, \
                          data processing. Sandbox tools only."
                .into(),
            system_prompt: "Work with the sandbox tools: run commands, read and write files."
                .into(),
            tools: Some(SANDBOX_TOOLS.iter().map(|t| t.to_string()).collect()),
        },
    ];
    for t in cfg.types.iter().chain(own) {
        all.retain(|b| b.name != t.name);
        all.push(t.clone());
    }
    all
}

/// The subagent runs working in this process, by run id: how a cancel through the API (or
/// from another replica) reaches one, and where its followers find its log.
#[derive(Debug, Default)]
pub struct ChildRuns(Mutex<HashMap<String, (CancellationToken, Arc<EventLog>)>>);

impl ChildRuns {
    fn map(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, (CancellationToken, Arc<EventLog>)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Cancels the subagent run `run_id`; false when none of this process has that id.
    pub fn cancel(&self, run_id: &str) -> bool {
        let token = self.map().get(run_id).map(|(t, _)| t.clone());
        token.map(|t| t.cancel()).is_some()
    }

    /// The log of the subagent run `run_id` working here.
    pub(crate) fn log(&self, run_id: &str) -> Option<Arc<EventLog>> {
        self.map().get(run_id).map(|(_, l)| l.clone())
    }

    pub(super) fn insert(
        self: &Arc<Self>,
        run_id: &str,
        token: CancellationToken,
        log: Arc<EventLog>,
    ) -> Registered {
        self.map().insert(run_id.to_string(), (token, log));
        Registered(self.clone(), run_id.to_string())
    }
}

/// Removes a subagent run from [`ChildRuns`] when it ends.
pub(super) struct Registered(Arc<ChildRuns>, String);

impl Drop for Registered {
    fn drop(&mut self) {
        self.0.map().remove(&self.1);
    }
}

/// One parent run's subagents: free slots, how many started, and what they used.
pub struct Tasks {
    pub(super) cfg: SubagentConfig,
    pub(super) types: Vec<SubagentType>,
    pub(super) slots: Arc<Semaphore>,
    pub(super) started: AtomicUsize,
    pub(super) usage: Mutex<RunUsage>,
    pub(super) instance: String,
    pub(super) children: Arc<ChildRuns>,
}

impl Tasks {
    /// The subagents of a run on this server (`instance` is recorded with their runs), with
    /// the run's assistant's own types.
    pub fn new(
        cfg: &SubagentConfig,
        instance: &str,
        own: &[SubagentType],
        children: Arc<ChildRuns>,
    ) -> Self {
        Tasks {
            children,
            types: types(cfg, own),
            slots: Arc::new(Semaphore::new(cfg.max_concurrent)),
            started: AtomicUsize::new(0),
            usage: Mutex::new(RunUsage::default()),
            instance: instance.to_string(),
            cfg: cfg.clone(),
        }
    }

    /// What the subagents used so far (taken: counted once).
    pub(crate) fn take_usage(&self) -> RunUsage {
        std::mem::take(&mut *self.usage.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Adds `more` to `usage`.
pub(crate) fn add_usage(usage: &mut RunUsage, more: &RunUsage) {
    usage.add(more);
}

/// Runs a subagent for a `task` call that got its slot: the parent run does (the child is
/// a run of its own, built from the parent's).
#[async_trait]
pub trait Delegate: Send + Sync {
    /// Runs `task` as the subagent of the call `call_id` to its end; answers the call's
    /// result.
    async fn run_subagent(
        &self,
        call_id: &str,
        task: &Request,
        pool: &Tasks,
    ) -> Result<ToolOutput, ToolError>;
}

/// A subagent's work, as the model asked for it.
#[derive(Debug, Clone)]
pub struct Request {
    /// A few words saying what it is (shown to the person).
    pub description: String,
    /// The whole task.
    pub prompt: String,
    /// The subagent type.
    pub kind: SubagentType,
}

/// The arguments of `task`.
#[derive(Deserialize, JsonSchema)]
struct TaskArgs {
    /// A few words saying what the task is (shown to the person)
    description: String,
    /// The whole task: what to do, with every detail needed
    prompt: String,
    // Checked against the run's types (listed in the schema as an enum).
    #[serde(default, deserialize_with = "crate::tools::args::opt_text")]
    subagent_type: Option<String>,
}

fn request(args: TaskArgs, tasks: &Tasks) -> Result<Request, ToolError> {
    let text = |value: String, key: &str| {
        let value = value.trim();
        if value.is_empty() {
            return Err(ToolError::Model(format!("'{key}' is required")));
        }
        Ok(value.to_string())
    };
    let description: String = text(args.description, "description")?
        .chars()
        .take(200)
        .collect();
    let prompt = text(args.prompt, "prompt")?;
    let name = args.subagent_type.as_deref().unwrap_or("general-purpose");
    let kind = tasks
        .types
        .iter()
        .find(|t| t.name == name)
        .cloned()
        .ok_or_else(|| {
            let names: Vec<&str> = tasks.types.iter().map(|t| t.name.as_str()).collect();
            ToolError::Model(format!(
                "there is no subagent type '{}' (types: {})",
                name.chars().take(64).collect::<String>(),
                names.join(", ")
            ))
        })?;
    Ok(Request {
        description,
        prompt,
        kind,
    })
}

/// The `task` tool of one run, over its pool.
pub(crate) struct TaskTool {
    pool: Arc<Tasks>,
    description: String,
}

impl TaskTool {
    /// The tool for `pool`'s subagents.
    pub(crate) fn new(pool: Arc<Tasks>) -> Self {
        let kinds: Vec<String> = pool
            .types
            .iter()
            .map(|t| format!("- {}: {}", t.name, t.description))
            .collect();
        let description = format!(
            "Delegate a self-contained piece of work to a subagent, which works on it alone \
             (in the same sandbox and files) and answers with its result. Call it several \
             times in one answer to work in parallel (up to {} at once). Give the subagent \
             everything it needs in the prompt: it does not see this conversation.\n\
             Subagent types:\n{}",
            pool.cfg.max_concurrent,
            kinds.join("\n")
        );
        TaskTool { pool, description }
    }
}

#[async_trait]
impl Tool for TaskTool {
    fn name(&self) -> &str {
        TASK
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        let mut schema = schema_of::<TaskArgs>();
        let names: Vec<&str> = self.pool.types.iter().map(|t| t.name.as_str()).collect();
        schema["properties"]["subagent_type"] = json!({"type": "string", "enum": names});
        schema
    }

    /// Waits for a slot (saying the task is queued when there is none), then has the run
    /// start the subagent.
    async fn call(&self, args: Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let Some(delegate) = ctx.delegate else {
            return Err(ToolError::Model("subagents are not available here".into()));
        };
        let tasks = &self.pool;
        let req = request(parse_args::<TaskArgs>(TASK, args)?, tasks)?;
        if tasks.started.fetch_add(1, Ordering::SeqCst) >= tasks.cfg.max_total {
            return Err(ToolError::Model(format!(
                "this run has started its limit of {} subagents (agent.subagents.max_total); do the rest yourself",
                tasks.cfg.max_total
            )));
        }
        let emit = |event: &CustomEvent| {
            if let Some(log) = ctx.events {
                log.emit(&StreamEvent::Custom(event));
            }
        };
        let permit = match tasks.slots.clone().try_acquire_owned() {
            Ok(p) => p,
            Err(_) => {
                emit(&CustomEvent::TaskQueued {
                    task_id: ctx.call_id.to_string(),
                    description: req.description.clone(),
                    subagent_type: req.kind.name.clone(),
                });
                tokio::select! {
                    p = tasks.slots.clone().acquire_owned() => p.map_err(|_| ToolError::Model("subagents are shutting down".into()))?,
                    () = ctx.cancel.cancelled() => {
                        // The card that said "queued" learns it never started.
                        if let Some(log) = ctx.events {
                            never_started(log, ctx.call_id, CustomEvent::TaskCancelled, None);
                        }
                        return Err(ToolError::Model("the run was stopped".into()));
                    }
                }
            }
        };
        let result = delegate.run_subagent(ctx.call_id, &req, tasks).await;
        drop(permit);
        result
    }
}

/// Says how a task that never started a run ended (`end` builds the event).
pub(super) fn never_started(
    log: &EventLog,
    call_id: &str,
    end: fn(TaskEnd) -> CustomEvent,
    error: Option<String>,
) {
    log.emit(&StreamEvent::Custom(&end(TaskEnd {
        task_id: call_id.to_string(),
        run_id: String::new(),
        result: None,
        error,
        usage: RunUsage::default(),
        duration_ms: 0,
    })));
}
