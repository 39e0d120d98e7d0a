//! Creating a run: checking the request, applying the multitask strategy, recording it, and
//! starting it.

use std::collections::HashSet;
use std::sync::Arc;

use antler_protocol::messages::Message;
use antler_protocol::runs::{
    IfNotExists, MultitaskStrategy, OnDisconnect, RunCreate, RunStatus, StopReason,
};
use antler_protocol::stream::{RunMetadata, StreamEvent, StreamMode};
use antler_store::RunRecord;
use chrono::{SubsecRound, Utc};
use serde_json::{Map, Value, json};

use super::active::{ActiveRun, RunError};
use super::choice::{MODEL_CHOICE_KEY, ModelChoice};
use super::execute::{Start, stored_values};
use super::log::EventLog;
use super::manager::{RunManager, lock};
use crate::langchain::parse_input;
use crate::model::ModelClient;
use crate::profile::AgentProfile;

impl RunManager {
    /// Creates a run and starts it (it waits for earlier runs of the thread when enqueued).
    /// Also answers the record as created (`pending`): the stored one may already have moved
    /// on by the time the caller reads it.
    pub async fn create(
        self: &Arc<Self>,
        owner: &str,
        thread_id: &str,
        req: RunCreate,
        profile: AgentProfile,
    ) -> Result<(Arc<ActiveRun>, RunRecord), RunError> {
        let store = &self.deps.store;
        let thread = store.threads.get(owner, thread_id).await?;
        if thread.is_none() {
            if req.if_not_exists == Some(IfNotExists::Create) {
                // Taken by someone else: the same answer as creating a thread with that id.
                if store
                    .threads
                    .create(owner, thread_id, Map::new())
                    .await?
                    .is_none()
                {
                    return Err(RunError::Conflict(format!(
                        "thread '{thread_id}' already exists"
                    )));
                }
            } else {
                return Err(RunError::NotFound(format!("no thread '{thread_id}'")));
            }
        }
        if req.assistant_id.trim().is_empty() {
            return Err(RunError::Invalid("assistant_id is required".into()));
        }
        // What the run continues: a named checkpoint (a new branch) or the thread's newest.
        let base_checkpoint = match req.from_checkpoint() {
            Some(id) => Some(
                store
                    .state
                    .get(thread_id, id)
                    .await?
                    .filter(|_| thread.is_some())
                    .ok_or_else(|| {
                        let shown: String = id.chars().take(80).collect();
                        RunError::NotFound(format!(
                            "no checkpoint '{shown}' in thread '{thread_id}'"
                        ))
                    })?,
            ),
            None => None,
        };
        let base = match &base_checkpoint {
            Some(c) => Some(&c.state),
            None => thread.as_ref().map(|t| &t.values),
        };
        let mut input = parse_input(req.input.as_ref()).map_err(RunError::Invalid)?;
        if let Some(command) = &req.command {
            input = resume(command, &input, base)?;
        }
        if input.iter().any(|m| !matches!(m, Message::Human(_))) {
            let history = match base {
                Some(v) => stored_values(v)?.messages,
                None => Vec::new(),
            };
            input = crate::input::reconcile(input, &history).map_err(RunError::Invalid)?;
        }
        // No input answers the last message again when it has no answer yet: a run that
        // failed or was stopped before the model replied, or Regenerate from a checkpoint.
        if input.is_empty() {
            let unanswered = match base {
                Some(v) => matches!(
                    stored_values(v)?.messages.last(),
                    Some(Message::Human(_) | Message::Tool(_))
                ),
                None => false,
            };
            if !unanswered {
                return Err(RunError::Invalid(
                    "input.messages must hold at least one user message (a run without input only answers again a last message that has no answer yet)".into(),
                ));
            }
        }
        let modes: HashSet<StreamMode> = req
            .stream_mode
            .as_ref()
            .map_or_else(|| vec![StreamMode::Values], |m| m.modes())
            .into_iter()
            .collect();
        let strategy = req.multitask_strategy.unwrap_or_default();
        let options = req.options();
        let choice = ModelChoice::of(
            &options,
            thread
                .as_ref()
                .and_then(|t| t.metadata.get(MODEL_CHOICE_KEY)),
        )?;
        let model = self
            .model_for(&choice, &profile)?
            .map(|m| m.with_thinking(choice.thinking));

        let run_id = uuid::Uuid::new_v4().to_string();
        let (log, writer) = EventLog::new(
            &run_id,
            modes,
            self.deps.cfg.event_log_max_bytes,
            self.sink(),
        );
        let run = Arc::new(ActiveRun::new(
            &run_id,
            thread_id,
            owner,
            log,
            req.on_disconnect != Some(OnDisconnect::Continue),
        ));
        // Runs of this thread on other replicas count like local ones.
        let remote = self.remote_active(thread_id).await?;
        // The runs a rollback deletes once they have stopped (before this one starts).
        let mut rollback: Vec<String> = Vec::new();
        if let Some(current) = remote.first() {
            match strategy {
                MultitaskStrategy::Reject => return Err(busy(thread_id, &current.run_id)),
                MultitaskStrategy::Interrupt | MultitaskStrategy::Rollback => {
                    for r in &remote {
                        store
                            .bus
                            .publish(antler_store::Topic::RunCancel, &r.run_id)
                            .await?;
                    }
                    if strategy == MultitaskStrategy::Rollback {
                        rollback.extend(remote.iter().map(|r| r.run_id.clone()));
                    }
                }
                MultitaskStrategy::Enqueue => {}
            }
        }
        let queue = self.queue(thread_id);
        {
            let mut runs = lock(&queue.runs);
            if let Some(current) = runs.first() {
                match strategy {
                    MultitaskStrategy::Reject => return Err(busy(thread_id, &current.run_id)),
                    MultitaskStrategy::Interrupt | MultitaskStrategy::Rollback => {
                        for r in runs.iter() {
                            r.cancel(StopReason::Interrupted);
                        }
                        if strategy == MultitaskStrategy::Rollback {
                            rollback.extend(runs.iter().map(|r| r.run_id.clone()));
                        }
                    }
                    MultitaskStrategy::Enqueue => {}
                }
            }
            runs.push(run.clone());
        }
        let record = self.record(&run, &req, &profile, strategy);
        if let Err(e) = store.runs.create(&record).await {
            lock(&queue.runs).retain(|r| r.run_id != run_id);
            return Err(e.into());
        }
        if choice.named {
            let name = model.as_ref().map(|m| m.config().name.as_str());
            let patch = choice.remember(name);
            // The web UI names its choice on every run: written only when it changed, and a
            // failed write costs the run nothing (its record is stored and queued by now).
            let known = thread
                .as_ref()
                .and_then(|t| t.metadata.get(MODEL_CHOICE_KEY));
            if known != patch.get(MODEL_CHOICE_KEY)
                && let Err(error) = store.threads.merge_metadata(owner, thread_id, patch).await
            {
                tracing::warn!(%error, thread.id = thread_id, "could not remember the run's model choice");
            }
        }
        let memory = match &self.deps.memory {
            Some(source) => {
                source
                    .for_run(owner, &profile.assistant_id, &last_human_text(&input))
                    .await
            }
            None => Vec::new(),
        };
        run.log.set_input(req.input.clone().unwrap_or(Value::Null));
        run.log.emit(&StreamEvent::Metadata(&RunMetadata {
            run_id: run_id.clone(),
            thread_id: thread_id.to_string(),
            attempt: 1,
            memory: memory.iter().map(|f| f.id.clone()).collect(),
        }));
        let context = checkpoint_context(&record, &profile);
        let created_at = record.created_at;
        let plan_mode = self.deps.cfg.plan_mode || asks_plan_mode(&req);
        lock(&self.active).insert(run_id, run.clone());
        crate::telemetry::run_started();
        // Inside the request's span (its `traceparent`), when it has one.
        let span = crate::telemetry::run_span(
            &run.run_id,
            thread_id,
            req.assistant_id.trim(),
            &profile.assistant_id,
        );
        let this = self.clone();
        let task_run = run.clone();
        tokio::spawn(async move {
            let start = Start {
                input,
                checkpoint: base_checkpoint.map(|c| c.checkpoint_id),
                context,
                profile,
                plan_mode,
                subagents: options.subagent_enabled != Some(false),
                memory,
                created_at,
                rollback,
                span,
            };
            this.execute(task_run, queue, start, model, writer).await;
        });
        Ok((run, record))
    }

    /// The record of a new run.
    fn record(
        &self,
        run: &ActiveRun,
        req: &RunCreate,
        profile: &AgentProfile,
        strategy: MultitaskStrategy,
    ) -> RunRecord {
        // Microseconds, as both engines store a time: the record in memory and the stored
        // one order the same.
        let now = Utc::now().trunc_subsecs(6);
        RunRecord {
            run_id: run.run_id.clone(),
            thread_id: run.thread_id.clone(),
            owner: run.owner.clone(),
            assistant_id: profile.assistant_id.clone(),
            status: RunStatus::Pending,
            stop_reason: None,
            error: None,
            multitask_strategy: strategy,
            metadata: req.metadata.clone().unwrap_or_default(),
            kwargs: json!({
                "input": req.input,
                "stream_mode": req.stream_mode,
                "config": req.config,
                "context": req.context,
                "on_disconnect": req.on_disconnect,
            }),
            instance: self.deps.instance.clone(),
            usage: antler_protocol::runs::RunUsage::default(),
            created_at: now,
            updated_at: now,
        }
    }

    /// The model for a run: `configurable.model_name` (in `config` or `context`), else the
    /// one remembered on the thread (while it is configured), else the assistant's, else the
    /// default.
    fn model_for(
        &self,
        choice: &ModelChoice,
        profile: &AgentProfile,
    ) -> Result<Option<ModelClient>, RunError> {
        let models = &self.deps.models;
        let remembered = choice
            .remembered_model
            .as_deref()
            .filter(|name| models.iter().any(|m| m.config().name == *name));
        let asked = choice
            .model_name
            .as_deref()
            .or(remembered)
            .or(profile.model_name.as_deref());
        match asked {
            Some(name) => models
                .iter()
                .find(|m| m.config().name == name)
                .cloned()
                .map(Some)
                .ok_or_else(|| RunError::Invalid(format!("no model named '{name}' is configured"))),
            None => Ok(self.deps.cfg.default_model_in(models).cloned()),
        }
    }
}

/// The text of the run's newest human message (what memory is searched with).
fn last_human_text(input: &[Message]) -> String {
    input
        .iter()
        .rev()
        .find_map(|m| match m {
            Message::Human(h) => Some(h.content.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

/// Whether the run asks for plan mode (`context.plan_mode` or
/// `config.configurable.plan_mode`).
fn asks_plan_mode(req: &RunCreate) -> bool {
    req.options().plan_mode.unwrap_or(false)
}

/// Metadata every checkpoint of a run carries, as LangGraph's: the run's own metadata and
/// which run, thread and assistant made it.
fn checkpoint_context(record: &RunRecord, profile: &AgentProfile) -> Map<String, Value> {
    let mut context = record.metadata.clone();
    context.insert("run_id".into(), record.run_id.clone().into());
    context.insert("thread_id".into(), record.thread_id.clone().into());
    context.insert("assistant_id".into(), record.assistant_id.clone().into());
    context.insert("graph_id".into(), profile.graph_id().into());
    context
}

/// The `reject` strategy's answer when `thread_id` already runs `run_id`.
fn busy(thread_id: &str, run_id: &str) -> RunError {
    RunError::Conflict(format!(
        "thread '{thread_id}' already has a run in progress ({run_id}); use multitask_strategy interrupt, rollback or enqueue"
    ))
}

/// The message that answers the thread's pending interrupt with `command.resume`.
fn resume(
    command: &Value,
    input: &[Message],
    base: Option<&Value>,
) -> Result<Vec<Message>, RunError> {
    let Some(answer) = command.get("resume").filter(|v| !v.is_null()) else {
        return Err(RunError::Invalid(
            "command must hold \"resume\" (update and goto are not supported)".into(),
        ));
    };
    if !input.is_empty() {
        return Err(RunError::Invalid(
            "send either input.messages or command.resume, not both".into(),
        ));
    }
    let waiting = match base {
        Some(v) => !stored_values(v)?.interrupts.is_empty(),
        None => false,
    };
    if !waiting {
        return Err(RunError::Invalid(
            "the thread is not waiting for an answer: there is no interrupt to resume".into(),
        ));
    }
    let text = match answer {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if text.trim().is_empty() {
        return Err(RunError::Invalid("command.resume must not be empty".into()));
    }
    Ok(vec![Message::Human(
        antler_protocol::messages::HumanMessage {
            id: crate::langchain::new_id(),
            content: text,
            ..Default::default()
        },
    )])
}
