//! The `task` tool's side of a run: the subagent types, the slots and counters of one run's
//! subagents, the registry through which a subagent run is cancelled by id, and reading a
//! call's arguments.

use std::collections::HashMap;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};

use antler_protocol::runs::RunUsage;
use serde_json::{Value, json};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::config::{SubagentConfig, SubagentType};
use crate::runs::log::EventLog;
use crate::tools::ToolError;

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

    /// The `task` tool's definition.
    pub(crate) fn definition(&self) -> Value {
        let kinds: Vec<String> = self
            .types
            .iter()
            .map(|t| format!("- {}: {}", t.name, t.description))
            .collect();
        json!({"type": "function", "function": {
            "name": TASK,
            "description": format!(
                "Delegate a self-contained piece of work to a subagent, which works on it alone \
                 (in the same sandbox and files) and answers with its result. Call it several \
                 times in one answer to work in parallel (up to {} at once). Give the subagent \
                 everything it needs in the prompt: it does not see this conversation.\n\
                 Subagent types:\n{}",
                self.cfg.max_concurrent,
                kinds.join("\n")
            ),
            "parameters": {"type": "object", "properties": {
                "description": {"type": "string", "description": "A few words saying what the task is (shown to the person)"},
                "prompt": {"type": "string", "description": "The whole task: what to do, with every detail needed"},
                "subagent_type": {"type": "string", "enum": self.types.iter().map(|t| t.name.as_str()).collect::<Vec<_>>()},
            }, "required": ["description", "prompt"]},
        }})
    }

    /// What the subagents used so far (taken: counted once).
    pub(crate) fn take_usage(&self) -> RunUsage {
        std::mem::take(&mut *self.usage.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Adds `more` to `usage`.
pub(crate) fn add_usage(usage: &mut RunUsage, more: &RunUsage) {
    usage.input_tokens += more.input_tokens;
    usage.output_tokens += more.output_tokens;
    usage.model_calls += more.model_calls;
}

/// What the model asked for.
pub(super) struct Request {
    pub(super) description: String,
    pub(super) prompt: String,
    pub(super) kind: SubagentType,
}

pub(super) fn request(args: &Value, tasks: &Tasks) -> Result<Request, ToolError> {
    let text = |key: &str| {
        args.get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .ok_or_else(|| ToolError::Model(format!("'{key}' is required")))
    };
    let description: String = text("description")?.chars().take(200).collect();
    let prompt = text("prompt")?;
    let name = args
        .get("subagent_type")
        .and_then(Value::as_str)
        .unwrap_or("general-purpose");
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
