//! The tools of one run and running the calls of one model answer: every call goes through
//! the run's registry, after the one permission check ([`AgentRun::refusal`]).

use std::borrow::Cow;
use std::sync::Arc;

use antler_protocol::console::RunStep;
use antler_protocol::messages::{AiMessage, Message, ToolCall};
use antler_protocol::stream::{MessagePart, Node, StreamEvent};
use tracing::Instrument;

use super::slash::Activation;
use super::{AgentRun, AgentState, memory_tools, tasks};
use crate::langchain::tool_message;
use crate::telemetry::ToolCallObserver;
use crate::tools::{
    Effect, MemoryAccess, Phase, Tool, ToolContext, ToolError, ToolOutput, ToolRegistry, cap,
};

impl AgentRun<'_> {
    /// The run's registry: the built-in tools, then (when the run has them) the memory
    /// tools, `task`, the web tools, and the MCP tools with `tool_search`.
    pub(super) fn registry(&self) -> ToolRegistry {
        let mut registry = self.tools.clone();
        let mut own: Vec<Arc<dyn Tool>> = Vec::new();
        if self.memory_tools && self.memory_source.is_some() {
            own.extend(memory_tools::tools());
        }
        if let Some(pool) = self.tasks {
            own.push(Arc::new(tasks::TaskTool::new(pool.clone())));
        }
        if let Some(web) = self.web {
            own.extend(web.tools_for(self.profile.web.as_ref(), self.sources));
        }
        if let Some(hub) = self.mcp {
            own.extend(self.mcp_tools.tools(hub, self.promote_top_k));
        }
        for tool in own {
            if let Err(e) = registry.register(tool) {
                tracing::warn!(run.id = self.run_id, error = %e, "a tool was left out of the run");
            }
        }
        registry
    }

    /// Runs one call through `tools`, unless the run may not call it; output over the limit
    /// is fitted.
    async fn call_tool(
        &self,
        tools: &ToolRegistry,
        call: &ToolCall,
        activation: Option<&Activation>,
    ) -> Result<ToolOutput, ToolError> {
        if let Some(why) = self.refusal(&call.name, activation) {
            return Err(ToolError::Model(why));
        }
        if let Some(secrets) = self.sandbox.secrets() {
            secrets.note_uses(&call.args.to_string());
        }
        let memory = self
            .memory_source
            .filter(|_| self.memory_tools)
            .map(|source| MemoryAccess {
                source: source.as_ref(),
                owner: self.owner,
                profile: self.profile,
            });
        let ctx = ToolContext {
            sandbox: self.sandbox,
            skills: self.skills,
            cfg: self.cfg,
            cancel: self.cancel,
            call_id: &call.id,
            events: Some(self.log),
            memory,
            delegate: self.tasks.map(|_| self as &dyn super::Delegate),
        };
        let mut out = tools.call(&call.name, call.args.clone(), &ctx).await?;
        // Before the output is fitted (its whole text may go to a file the person can
        // download) and long before it is stored or streamed.
        if let Some(secrets) = self.sandbox.secrets() {
            redact_output(secrets.set(), &mut out);
        }
        Ok(self.fit(out, &call.id).await)
    }

    /// [`Self::call_tool`] in the call's span, with its step of the run's timeline.
    async fn observed_call(
        &self,
        tools: &ToolRegistry,
        call: &ToolCall,
        activation: Option<&Activation>,
    ) -> (Result<ToolOutput, ToolError>, RunStep) {
        let observer = self
            .span
            .in_scope(|| ToolCallObserver::start(&call.name, &call.id, &call.args));
        let span = observer.span().clone();
        let result = self
            .call_tool(tools, call, activation)
            .instrument(span)
            .await;
        let step = observer.done(&result, self.cancel.is_cancelled());
        (result, step)
    }

    /// Runs every call of `ai` and appends the results in call order: calls of tools of the
    /// first [`Phase`] one after another, then the others concurrently. Answers the calls'
    /// effects, or the message of a fatal tool error (every call still has its result in the
    /// history).
    pub(super) async fn run_tools(
        &self,
        ai: &AiMessage,
        state: &mut AgentState,
        activation: Option<&Activation>,
        tools: &ToolRegistry,
    ) -> Result<Vec<Effect>, String> {
        let first = |call: &ToolCall| tools.phase(&call.name) == Phase::First;
        let mut done: Vec<Option<Result<ToolOutput, ToolError>>> =
            ai.tool_calls.iter().map(|_| None).collect();
        let mut steps = Vec::with_capacity(ai.tool_calls.len());
        for (i, call) in ai.tool_calls.iter().enumerate().filter(|(_, c)| first(c)) {
            let (result, step) = self.observed_call(tools, call, activation).await;
            done[i] = Some(result);
            steps.push(step);
        }
        let rest =
            futures::future::join_all(
                ai.tool_calls
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| !first(c))
                    .map(|(i, call)| async move {
                        (i, self.observed_call(tools, call, activation).await)
                    }),
            )
            .await;
        for (i, (result, step)) in rest {
            done[i] = Some(result);
            steps.push(step);
        }
        steps.sort_by(|a, b| a.started_at.cmp(&b.started_at));
        state.steps.extend(steps);
        let mut results: Vec<(String, String, Result<ToolOutput, ToolError>)> = ai
            .tool_calls
            .iter()
            .zip(done)
            .map(|(call, result)| {
                // Every call ran in one of the two phases.
                let result = result.unwrap_or_else(|| Err(ToolError::Model("not run".into())));
                (call.id.clone(), call.name.clone(), result)
            })
            .collect();
        // What subagents used is the run's too.
        if let Some(tasks) = self.tasks {
            super::tasks::add_usage(&mut state.extra, &tasks.take_usage());
        }
        results.extend(ai.invalid_tool_calls.iter().map(|call| {
            let message = format!(
                "the arguments of this {} call are not valid ({}). Call it again with a JSON object matching its schema.",
                call.name, call.error
            );
            (call.id.clone(), call.name.clone(), Err(ToolError::Model(message)))
        }));
        self.note_skills_read(ai);
        let metadata = self.metadata(Node::Tools, state.step);
        let mut effects = Vec::new();
        let mut messages = Vec::new();
        let mut fatal = None;
        for (id, name, result) in results {
            let mut out = match result {
                Ok(out) => out,
                Err(ToolError::Model(message)) => ToolOutput::error(message),
                Err(ToolError::Fatal(message)) => {
                    let out = ToolOutput::error(&message);
                    fatal.get_or_insert(message);
                    out
                }
            };
            // Errors too, before the result is stored or streamed.
            if let Some(secrets) = self.sandbox.secrets() {
                redact_output(secrets.set(), &mut out);
            }
            let msg = Message::Tool(tool_message(&id, &name, &out));
            self.log.emit(&StreamEvent::Messages(
                MessagePart::Message(&msg),
                &metadata,
            ));
            messages.push(msg.clone());
            state.values.messages.push(msg);
            match &out.effect {
                Effect::Present(paths) => {
                    for p in paths {
                        if !state.values.artifacts.contains(p) {
                            state.values.artifacts.push(p.clone());
                        }
                    }
                }
                Effect::Todos(todos) => state.values.todos.clone_from(todos),
                Effect::None | Effect::Clarify => {}
            }
            effects.push(out.effect);
        }
        self.log.emit(&StreamEvent::Updates(Node::Tools, &messages));
        fatal.map_or(Ok(effects), Err)
    }

    /// Output over `agent.max_tool_output_chars`: kept whole in a file of the thread's
    /// workspace, the model gets its head, its tail and where the rest is (only the middle
    /// is cut when the file cannot be written).
    async fn fit(&self, mut out: ToolOutput, call_id: &str) -> ToolOutput {
        let max = self.cfg.max_tool_output_chars;
        let count = out.content.chars().count();
        if count <= max {
            return out;
        }
        let safe: String = call_id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .take(64)
            .collect();
        let path = format!("/mnt/user-data/workspace/tool-outputs/{safe}.txt");
        let written = match self.sandbox.get().await {
            Ok(sandbox) => sandbox.write_file(&path, &out.content, false).await.is_ok(),
            Err(_) => false,
        };
        if !written {
            out.content = cap(&out.content, max);
            return out;
        }
        let half = max / 2;
        let head: String = out.content.chars().take(half).collect();
        let tail: String = out.content.chars().skip(count - half).collect();
        out.content = format!(
            "{head}\n\n[... {} of {count} characters omitted; the whole output is in {path}: read parts of it with read_file (line ranges) or grep ...]\n\n{tail}",
            count - 2 * half
        );
        out
    }

    /// Records the skills whose `SKILL.md` the model asked to read as used by the run's owner.
    fn note_skills_read(&self, ai: &AiMessage) {
        for call in ai.tool_calls.iter().filter(|c| c.name == "read_file") {
            let Some(path) = call.args.get("path").and_then(|p| p.as_str()) else {
                continue;
            };
            if let Some(skill) = self
                .skills
                .list
                .skills
                .iter()
                .find(|s| s.enabled && s.location == path)
            {
                self.recent.record(self.owner, &skill.name);
            }
        }
    }
}

/// Every kind of tool a run can have, as the model is shown them (the tool-definitions
/// snapshot): the built-in ones, memory, `task` with the default subagent types, the web
/// tools, one MCP tool, and `tool_search` (the MCP tools deferred).
#[cfg(test)]
pub(crate) fn every_kind_of_tool() -> ToolRegistry {
    let mut registry = ToolRegistry::builtin();
    let pool = super::Tasks::new(
        &crate::config::SubagentConfig::default(),
        "snapshot",
        &[],
        Arc::default(),
    );
    let offered = antler_mcp::OfferedTool {
        model_name: "mcp__weather__get_forecast".into(),
        server: "weather".into(),
        tool: antler_mcp::ToolInfo {
            name: "get_forecast".into(),
            description: "Get the weather forecast for a city.".into(),
            input_schema: serde_json::json!({"type": "object", "properties": {
                "city": {"type": "string"}}, "required": ["city"]}),
        },
    };
    let deferred = antler_mcp::ToolSearchConfig {
        max_tools: 0,
        ..Default::default()
    };
    let catalog = Arc::new(super::McpTools::new(vec![offered], &deferred));
    let hub = antler_mcp::McpHub::new(Arc::new(antler_mcp::client::RmcpConnector::new(
        std::env::temp_dir(),
    )));
    let mut own: Vec<Arc<dyn Tool>> = memory_tools::tools().into();
    own.push(Arc::new(tasks::TaskTool::new(Arc::new(pool))));
    let web = crate::tools::web::Web::new(&crate::tools::web::WebToolsConfig {
        search: crate::tools::web::SearchConfig {
            provider: crate::tools::web::SearchProvider::Searxng,
            base_url: Some("http://127.0.0.1:1".into()),
            ..Default::default()
        },
        ..Default::default()
    })
    .expect("a valid configuration");
    own.extend(Arc::new(web).tools_for(None, &Arc::default()));
    own.extend(catalog.tools(&hub, 5));
    for tool in own {
        registry.register(tool).expect("every name once");
    }
    registry
}

/// `out` with every secret value replaced by its name.
fn redact_output(secrets: &crate::secrets::SecretSet, out: &mut ToolOutput) {
    if let Cow::Owned(clean) = secrets.redact(&out.content) {
        out.content = clean;
    }
    if let Some(artifact) = &mut out.artifact {
        secrets.redact_json(artifact);
    }
}
