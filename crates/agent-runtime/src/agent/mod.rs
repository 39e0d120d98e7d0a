//! The agent loop: system prompt with the skills section → stream the model → run the tool
//! calls (concurrently, results in call order) → repeat, until a reply without tool calls,
//! the model-call limit, a hook stopping the run, a fatal tool error, or cancellation. Every
//! step is streamed to the run's event log and saved as a checkpoint.

mod mcp;
mod memory_tools;
mod model_call;
mod slash;
mod state;
mod summarize;
mod task_pool;
mod tasks;
mod tools;

pub use mcp::McpTools;
pub use state::AgentState;
pub use task_pool::{Delegate, Request};
pub use tasks::{ChildRuns, Tasks};
#[cfg(test)]
pub(crate) use tools::every_kind_of_tool;

use antler_protocol::messages::Message;
use antler_protocol::prompt_text::{Lines, push_escaped};
use antler_protocol::runs::{RunStatus, StopReason};
use antler_protocol::stream::{MessageMetadata, Node, StreamEvent, StreamMode};
use antler_protocol::threads::ThreadStatus;
use antler_skills::Snapshot;
use antler_store::Store;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::checkpoints::{Checkpointing, Source, node_writes};
use crate::config::AgentConfig;
use crate::hooks::{Flow, Hook, Services};
use crate::langchain::{repair_dangling_tool_calls, to_openai};
use crate::model::{ModelClient, ModelError};
use crate::profile::AgentProfile;
use crate::prompt::system_prompt;
use crate::runs::RecentSkills;
use crate::runs::log::EventLog;
use crate::tools::{SandboxHandle, ToolRegistry};
use slash::Activation;

/// Everything one run needs.
pub struct AgentRun<'a> {
    /// The run.
    pub run_id: &'a str,
    /// Its thread.
    pub thread_id: &'a str,
    /// Persistence.
    pub store: &'a Store,
    /// Where events go.
    pub log: &'a std::sync::Arc<EventLog>,
    /// Cancellation (Stop, disconnect, timeout).
    pub cancel: &'a CancellationToken,
    /// The model; `None` fails the run with a clear message.
    pub model: Option<&'a ModelClient>,
    /// The thread's sandbox.
    pub sandbox: &'a SandboxHandle,
    /// The catalog at run start.
    pub skills: &'a Snapshot,
    /// Who the run is for.
    pub owner: &'a str,
    /// The skills people used lately (read or activated skills are recorded here).
    pub recent: &'a RecentSkills,
    /// The built-in tools; the run adds its own (memory, `task`, MCP) to a copy.
    pub tools: &'a ToolRegistry,
    /// Limits.
    pub cfg: &'a AgentConfig,
    /// Character budget of the skills section.
    pub prompt_budget: usize,
    /// The hook pipeline.
    pub hooks: &'a [Box<dyn Hook>],
    /// Metadata every checkpoint of the run carries.
    pub context: &'a serde_json::Map<String, serde_json::Value>,
    /// The agent the run is (the built-in one or an assistant).
    pub profile: &'a AgentProfile,
    /// The MCP servers, when any are configured.
    pub mcp: Option<&'a std::sync::Arc<antler_mcp::McpHub>>,
    /// The run's MCP tools (empty without servers) and what its searches promoted.
    pub mcp_tools: &'a std::sync::Arc<McpTools>,
    /// How many MCP tools a search promotes.
    pub promote_top_k: usize,
    /// Plan mode: the agent keeps a checklist with `write_todos`.
    pub plan_mode: bool,
    /// What the run remembers about the person.
    pub memory: &'a [crate::memory::RememberedFact],
    /// The memory, for its tools.
    pub memory_source: Option<&'a std::sync::Arc<dyn crate::memory::MemorySource>>,
    /// Tool mode: the model manages memory with `memory_*` tools.
    pub memory_tools: bool,
    /// The model that summarizes long conversations (the run's when `None`).
    pub summary_model: Option<&'a ModelClient>,
    /// Checkpoints are saved (false for a subagent, whose history is its own).
    pub persist: bool,
    /// The subagent type, when this run is a subagent's.
    pub subagent: Option<&'a crate::config::SubagentType>,
    /// The `task` tool's subagents (a lead agent's run only).
    pub tasks: Option<&'a std::sync::Arc<Tasks>>,
    /// The web tools, when the server offers any.
    pub web: Option<&'a std::sync::Arc<crate::tools::web::Web>>,
    /// The web pages the run (with its subagents) searched up and read.
    pub sources: &'a std::sync::Arc<crate::tools::web::RunSources>,
    /// The run's span: its model and tool calls' spans are made inside it.
    pub span: &'a tracing::Span,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// `success`, `error` or `interrupted` (the manager turns a deadline into `timeout`).
    pub status: RunStatus,
    /// Why.
    pub stop_reason: StopReason,
    /// Error message for `error`.
    pub error: Option<String>,
}

impl Outcome {
    /// An ending with `status` for `stop_reason`.
    pub fn stop(status: RunStatus, stop_reason: StopReason, error: Option<String>) -> Self {
        Outcome {
            status,
            stop_reason,
            error,
        }
    }

    /// Stopped by cancellation.
    pub fn interrupted() -> Self {
        Outcome::stop(RunStatus::Interrupted, StopReason::Cancelled, None)
    }

    /// A failure with a message.
    pub fn failed(message: String) -> Self {
        Outcome::stop(RunStatus::Error, StopReason::Error, Some(message))
    }
}

impl AgentRun<'_> {
    fn services(&self) -> Services<'_> {
        Services {
            run_id: self.run_id,
            thread_id: self.thread_id,
            log: self.log,
            model: self.model,
            cfg: self.cfg,
            cancel: self.cancel,
        }
    }

    /// The hooks of this run: a subagent's names no thread and asks no questions.
    fn hooks(&self) -> impl Iterator<Item = &Box<dyn Hook>> {
        self.hooks.iter().filter(|h| {
            self.subagent.is_none() || !matches!(h.name(), "title_generation" | "clarification")
        })
    }

    /// Whether the run's agent may call the tool `name`: its assistant allows it, and only a
    /// model that can see views images.
    fn may_call(&self, name: &str) -> bool {
        // The run's MCP tools were already limited to its assistant's.
        (name == mcp::TOOL_SEARCH || self.profile.allows_tool(name))
            && self.subagent_may_call(name)
            && (name != tasks::TASK || self.tasks.is_some())
            && (name != "write_todos" || self.plan_mode)
            && (name != "view_image" || self.model.is_some_and(|m| m.config().supports_vision))
    }

    /// Why the tool `name` may not be called now, or `None` when it may: the one check for
    /// every tool, both for what the model is shown and for each call it makes.
    fn refusal(&self, name: &str, activation: Option<&Activation>) -> Option<String> {
        if !self.may_call(name) {
            return Some(format!(
                "'{name}' is not one of the tools offered to you in this conversation."
            ));
        }
        // The skill the person activated limits the tools (`allowed-tools`).
        let a = activation.filter(|a| !a.allows(name))?;
        Some(format!(
            "'{name}' is not allowed while following the skill '{}' (its allowed-tools: {}).",
            a.name,
            a.allowed.as_deref().unwrap_or_default().join(", ")
        ))
    }

    fn metadata(&self, node: Node, step: u64) -> MessageMetadata {
        MessageMetadata {
            run_id: self.run_id.to_string(),
            thread_id: self.thread_id.to_string(),
            langgraph_node: node,
            langgraph_step: step,
            langgraph_checkpoint_ns: String::new(),
            ls_model_name: self.model.map(|m| m.config().model.clone()),
        }
    }

    fn emit_values(&self, state: &AgentState) {
        self.log.emit(&StreamEvent::Values(&state.values));
    }

    async fn save(
        &self,
        state: &mut AgentState,
        source: Source,
        writes: serde_json::Value,
    ) -> Result<(), String> {
        if !self.persist {
            return Ok(());
        }
        let values = state.values.to_value();
        self.save_chain(state, &[(&values, source, &writes)])
            .await?;
        state.saved = Some(values);
        Ok(())
    }

    /// Saves checkpoints made one after the other at once (see [`Checkpointing::save_chain`]).
    async fn save_chain(
        &self,
        state: &mut AgentState,
        links: &[(&serde_json::Value, Source, &serde_json::Value)],
    ) -> Result<(), String> {
        if !self.persist {
            return Ok(());
        }
        let saving = Checkpointing {
            thread_id: self.thread_id,
            run_id: Some(self.run_id),
            context: self.context,
        };
        saving
            .save_chain(self.store, &mut state.head, links, ThreadStatus::Busy)
            .await
            .map_err(|e| {
                tracing::error!(run.id = self.run_id, error = %e, "thread state could not be saved");
                "the thread's state could not be saved".to_string()
            })?;
        Ok(())
    }

    /// Saves and streams the state after `node` added `added` messages; a failed save ends
    /// the run.
    async fn checkpoint(
        &self,
        state: &mut AgentState,
        node: Node,
        added: usize,
    ) -> Result<(), Outcome> {
        let from = state.values.messages.len().saturating_sub(added);
        let writes = node_writes(node.as_str(), &state.values.messages[from..]);
        self.save(state, Source::Loop, writes)
            .await
            .map_err(Outcome::failed)?;
        self.emit_values(state);
        Ok(())
    }

    /// Runs the loop on `state` (which already holds the thread's earlier messages).
    pub async fn run(&self, state: &mut AgentState, input: Vec<Message>) -> Outcome {
        let activation = slash::activation(&input, self.skills);
        if let Some(a) = &activation {
            tracing::info!(run.id = self.run_id, skill.name = %a.name, "skill activated by a slash command");
            self.recent.record(self.owner, &a.name);
        }
        // As LangGraph: an input checkpoint (the state before the input, which is in its
        // writes), then the input applied. Clients fork from the input checkpoint to edit
        // the message; a run without input (Regenerate) continues the checkpoint it names.
        if !input.is_empty() {
            let writes = serde_json::json!({"__start__": {"messages": &input}});
            let before = self.persist.then(|| state.values.to_value());
            let held = state.values.messages.len();
            state.values.messages.extend(input);
            // A question asked by an earlier run is answered (or passed over) by this one.
            let asked = std::mem::take(&mut state.values.interrupts);
            // Both at once: the input checkpoint and the input applied.
            if let Some(before) = before {
                let after = state.values.to_value();
                let links = [
                    (&before, Source::Input, &writes),
                    (&after, Source::Loop, &serde_json::Value::Null),
                ];
                if let Err(e) = self.save_chain(state, &links).await {
                    // Neither was saved: the state is the stored one, without the input.
                    state.values.messages.truncate(held);
                    state.values.interrupts = asked;
                    return Outcome::failed(e);
                }
                state.saved = Some(after);
            }
            self.emit_values(state);
        } else {
            state.values.interrupts.clear();
        }
        let tools = self.registry();
        let outcome = self.steps(state, activation.as_ref(), &tools).await;
        let svc = self.services();
        if outcome.status == RunStatus::Success {
            for hook in self.hooks() {
                // Inside the run's span: a hook's model call (the title) is the run's.
                hook.after_run(state, &svc)
                    .instrument(self.span.clone())
                    .await;
            }
        } else {
            for hook in self.hooks() {
                hook.after_stop(state, &svc);
            }
        }
        self.emit_values(state);
        outcome
    }

    async fn steps(
        &self,
        state: &mut AgentState,
        activation: Option<&Activation>,
        tools: &ToolRegistry,
    ) -> Outcome {
        let Some(model) = self.model else {
            return Outcome::failed("No model is configured. Set ANTLER_MODEL_BASE_URL and ANTLER_MODEL (and OPENAI_API_KEY), or add `models` to the configuration.".into());
        };
        let recent = self.recent.list(self.owner);
        let (section, complete) = self.skills.prompt_with_recent(self.prompt_budget, &recent);
        let mut system = system_prompt(&section);
        if self.plan_mode {
            system.push_str("\n\n");
            system.push_str(crate::prompt::PLANNING);
        }
        if let Some(memory) = crate::memory::section(self.memory) {
            system.push_str("\n\n");
            system.push_str(&memory);
        }
        if let Some(instructions) = &self.profile.instructions {
            system.push_str("\n\n<agent_instructions>\n");
            push_escaped(&mut system, instructions, Lines::Many);
            system.push_str("\n</agent_instructions>");
        }
        if let Some(a) = activation {
            system.push_str("\n\n");
            system.push_str(&a.section());
        }
        if let Some(section) = self.subagent_section() {
            system.push_str("\n\n");
            system.push_str(&section);
        }
        let web: Vec<&str> = [crate::tools::web::WEB_SEARCH, crate::tools::web::WEB_FETCH]
            .into_iter()
            .filter(|n| tools.get(n).is_some() && self.refusal(n, activation).is_none())
            .collect();
        if let Some(section) = crate::tools::web::Web::prompt_section(&web) {
            system.push_str("\n\n");
            system.push_str(&section);
        }
        // `search_skills` is offered only when the prompt cannot list every skill.
        let offered = |name: &str| {
            !(complete && name == "search_skills") && self.refusal(name, activation).is_none()
        };
        let svc = self.services();
        loop {
            if self.cancel.is_cancelled() {
                return Outcome::interrupted();
            }
            if state.usage.model_calls >= u64::from(self.cfg.max_model_calls) {
                return Outcome::stop(
                    RunStatus::Error,
                    StopReason::ModelCallLimit,
                    Some(format!(
                        "The run reached its limit of {} model calls.",
                        self.cfg.max_model_calls
                    )),
                );
            }
            for hook in self.hooks() {
                hook.before_model(state, &svc);
            }
            self.summarize_if_needed(state, &system)
                .instrument(self.span.clone())
                .await;
            state.step += 1;
            state.usage.model_calls += 1;
            let request = to_openai(
                &summarize::with_summary(&system, state),
                &state.values.messages[summarize::unsummarized(state)..],
                model.config().supports_vision,
            );
            // Listed again for every call: a search may have promoted MCP tools.
            let defs = tools.listed_definitions(offered);
            let ai = match self.call_model(model, request, defs, state).await {
                Ok(ai) => ai,
                Err(ModelError::Cancelled) => return Outcome::interrupted(),
                // The partial answer is dropped: the history stays valid for the next run.
                Err(e) => return Outcome::failed(e.to_string()),
            };
            let has_calls = !ai.tool_calls.is_empty() || !ai.invalid_tool_calls.is_empty();
            state.values.messages.push(Message::Ai(ai.clone()));
            if self.log.wants(StreamMode::Updates) {
                let last = state.values.messages.len() - 1;
                self.log.emit(&StreamEvent::Updates(
                    Node::Agent,
                    &state.values.messages[last..],
                ));
            }
            if let Err(outcome) = self.checkpoint(state, Node::Agent, 1).await {
                return outcome;
            }
            for hook in self.hooks() {
                if let Flow::Stop {
                    status,
                    stop_reason,
                    error,
                } = hook.after_model(state, &svc)
                {
                    // Calls that will not run still need results to keep the history valid.
                    let before = state.values.messages.len();
                    repair_dangling_tool_calls(&mut state.values.messages);
                    let added = state.values.messages.len() - before;
                    let _ = self.checkpoint(state, Node::Tools, added).await;
                    return Outcome::stop(status, stop_reason, error);
                }
            }
            if !has_calls {
                return Outcome::stop(RunStatus::Success, StopReason::Completed, None);
            }
            state.step += 1;
            let before = state.values.messages.len();
            let ran = self.run_tools(&ai, state, activation, tools).await;
            let added = state.values.messages.len() - before;
            let effects = match ran {
                Ok(effects) => effects,
                Err(fatal) => {
                    let _ = self.checkpoint(state, Node::Tools, added).await;
                    return Outcome::failed(fatal);
                }
            };
            // One checkpoint per step: saved after the hooks that may add to it.
            for hook in self.hooks() {
                if let Flow::Stop {
                    status,
                    stop_reason,
                    error,
                } = hook.after_tools(state, &svc, &effects)
                {
                    let added = state.values.messages.len() - before;
                    let _ = self.checkpoint(state, Node::Tools, added).await;
                    return Outcome::stop(status, stop_reason, error);
                }
            }
            let added = state.values.messages.len() - before;
            if let Err(outcome) = self.checkpoint(state, Node::Tools, added).await {
                return outcome;
            }
            if self.cancel.is_cancelled() {
                return Outcome::interrupted();
            }
        }
    }
}
