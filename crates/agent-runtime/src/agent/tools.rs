//! Running the tool calls of one model answer.

use antler_protocol::messages::{AiMessage, Message};
use antler_protocol::stream::{MessagePart, Node, StreamEvent};

use std::collections::HashMap;

use super::mcp::TOOL_SEARCH;
use super::memory_tools;
use super::slash::Activation;
use super::{AgentRun, AgentState};
use crate::langchain::tool_message;
use crate::tools::{Effect, ToolContext, ToolError, ToolOutput, cap};

impl AgentRun<'_> {
    /// Runs every call of `ai` concurrently and appends the results in call order. Answers
    /// the calls' effects, or the message of a fatal tool error (every call still has its
    /// result in the history).
    pub(super) async fn run_tools(
        &self,
        ai: &AiMessage,
        state: &mut AgentState,
        activation: Option<&Activation>,
    ) -> Result<Vec<Effect>, String> {
        let ctx = ToolContext {
            sandbox: self.sandbox,
            skills: self.skills,
            cfg: self.cfg,
            cancel: self.cancel,
        };
        // Searches first: they change which MCP tools the next model call gets.
        let mut searched: HashMap<&str, ToolOutput> = HashMap::new();
        for call in &ai.tool_calls {
            if call.name == TOOL_SEARCH
                && state.mcp.deferred
                && self.may_call(&call.name)
                && activation.is_none_or(|a| a.allows(&call.name))
            {
                let query = call
                    .args
                    .get("query")
                    .and_then(|q| q.as_str())
                    .unwrap_or("");
                let found = state.mcp.search(query, self.promote_top_k);
                searched.insert(call.id.as_str(), found);
            }
        }
        let mcp = &state.mcp;
        let searched = &searched;
        let valid = ai.tool_calls.iter().map(|call| {
            let ctx = &ctx;
            async move {
                if let Some(found) = searched.get(call.id.as_str()) {
                    return (call.id.clone(), call.name.clone(), Ok(found.clone()));
                }
                let result = match activation {
                    _ if !self.may_call(&call.name) => Err(ToolError::Model(format!(
                        "'{}' is not one of the tools offered to you in this conversation.",
                        call.name
                    ))),
                    // The skill the person activated limits the tools (`allowed-tools`).
                    Some(a) if !a.allows(&call.name) => Err(ToolError::Model(format!(
                        "'{}' is not allowed while following the skill '{}' (its allowed-tools: {}).",
                        call.name,
                        a.name,
                        a.allowed.as_deref().unwrap_or_default().join(", ")
                    ))),
                    _ if self.memory_tools && memory_tools::NAMES.contains(&call.name.as_str()) => {
                        self.call_memory(&call.name, &call.args).await
                    }
                    _ if call.name == super::tasks::TASK => {
                        self.call_task(&call.id, &call.args, mcp).await
                    }
                    _ => match mcp.find(&call.name) {
                        Some(tool) => self.call_mcp(tool, &call.id, &call.args).await,
                        None => self.tools.call(&call.name, call.args.clone(), ctx).await,
                    },
                };
                let result = match result {
                    Ok(out) => Ok(self.fit(out, &call.id).await),
                    e => e,
                };
                (call.id.clone(), call.name.clone(), result)
            }
        });
        let mut results = futures::future::join_all(valid).await;
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
            let out = match result {
                Ok(out) => out,
                Err(ToolError::Model(message)) => ToolOutput::error(message),
                Err(ToolError::Fatal(message)) => {
                    let out = ToolOutput::error(&message);
                    fatal.get_or_insert(message);
                    out
                }
            };
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
