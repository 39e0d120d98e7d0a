//! MCP tools in a run: each offered tool is a [`Tool`] of the run's registry, listed to the
//! model (all of them, or — over the configured budget — only those a search promoted) beside
//! `tool_search`, a tool of the first [`Phase`]: its promotions are in place before the other
//! calls of the same answer run. Results become tool messages (text, images for a model that
//! can see, resources as text).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use tracing::Instrument;

use antler_mcp::{CallResult, Content, McpError, McpHub, OfferedTool, Progress, ToolSearchConfig};
use antler_protocol::stream::{CustomEvent, StreamEvent};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::bm25;
use crate::tools::{Phase, Tool, ToolContext, ToolError, ToolOutput, parse_args, schema_of};

/// The name of the search over deferred MCP tools.
pub(crate) const TOOL_SEARCH: &str = "tool_search";

/// The MCP tools of one run and what its searches promoted.
#[derive(Debug, Default)]
pub struct McpTools {
    /// Every MCP tool the run may call.
    pub offered: Vec<OfferedTool>,
    /// Whether only searched tools are given to the model.
    pub deferred: bool,
    /// Tools a search promoted into the model's definitions.
    promoted: Mutex<HashSet<String>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn description(t: &OfferedTool) -> String {
    format!("{} (MCP server '{}')", t.tool.description, t.server)
}

/// How long a tool's definition is, for the budget.
fn definition_chars(t: &OfferedTool) -> usize {
    json!({"type": "function", "function": {
        "name": t.model_name,
        "description": description(t),
        "parameters": t.tool.input_schema,
    }})
    .to_string()
    .len()
}

impl McpTools {
    /// The tools of a run, deferred when they exceed `budget`.
    pub fn new(offered: Vec<OfferedTool>, budget: &ToolSearchConfig) -> Self {
        let chars: usize = offered.iter().map(definition_chars).sum();
        let deferred =
            budget.enabled && (offered.len() > budget.max_tools || chars > budget.max_chars);
        McpTools {
            offered,
            deferred,
            promoted: Mutex::new(HashSet::new()),
        }
    }

    /// A subagent's: the tools `allowed` keeps, deferred as here, with what was promoted.
    pub(crate) fn subset(&self, allowed: impl Fn(&str) -> bool) -> Self {
        McpTools {
            offered: self
                .offered
                .iter()
                .filter(|t| allowed(&t.model_name))
                .cloned()
                .collect(),
            deferred: self.deferred,
            promoted: Mutex::new(lock(&self.promoted).clone()),
        }
    }

    /// The run's tools for its registry: one per offered tool, then `tool_search` when they
    /// are deferred.
    pub(crate) fn tools(
        self: &Arc<Self>,
        hub: &Arc<McpHub>,
        promote_top_k: usize,
    ) -> Vec<Arc<dyn Tool>> {
        let mut tools: Vec<Arc<dyn Tool>> = self
            .offered
            .iter()
            .map(|t| {
                Arc::new(McpTool {
                    hub: hub.clone(),
                    description: description(t),
                    offered: t.clone(),
                    catalog: self.clone(),
                }) as Arc<dyn Tool>
            })
            .collect();
        if self.deferred {
            tools.push(Arc::new(ToolSearch {
                description: format!(
                    "Search the {} tools of the connected MCP servers that are not listed here, by words describing what you need. The best matches become callable.",
                    self.offered.len()
                ),
                catalog: self.clone(),
                top_k: promote_top_k,
            }));
        }
        tools
    }

    /// Whether the model is shown the tool `name` now.
    fn listed(&self, name: &str) -> bool {
        !self.deferred || lock(&self.promoted).contains(name)
    }

    /// Ranks the deferred tools for `query` and promotes the best `top_k`.
    pub fn search(&self, query: &str, top_k: usize) -> ToolOutput {
        let docs: Vec<Vec<String>> = self
            .offered
            .iter()
            .map(|t| {
                let mut doc = bm25::words(&t.tool.name);
                doc.extend(bm25::words(&t.tool.name));
                doc.extend(bm25::words(&t.tool.description));
                if let Some(props) = t.tool.input_schema["properties"].as_object() {
                    for p in props.keys() {
                        doc.extend(bm25::words(p));
                    }
                }
                doc
            })
            .collect();
        let ranked = bm25::rank(&docs, query, top_k.max(1));
        if ranked.is_empty() {
            return ToolOutput::text(format!("No MCP tool matches '{query}'. Try other words."));
        }
        let mut lines = vec!["These tools can now be called:".to_string()];
        let mut promoted = lock(&self.promoted);
        for (i, _) in ranked {
            let t = &self.offered[i];
            promoted.insert(t.model_name.clone());
            lines.push(format!("- {}: {}", t.model_name, t.tool.description));
        }
        ToolOutput::text(lines.join("\n"))
    }
}

/// `tool_search`: finds deferred MCP tools by words and makes the best callable.
struct ToolSearch {
    description: String,
    catalog: Arc<McpTools>,
    top_k: usize,
}

/// The arguments of `tool_search`.
#[derive(Deserialize, JsonSchema)]
struct SearchArgs {
    /// What the tool should do
    query: String,
}

#[async_trait]
impl Tool for ToolSearch {
    fn name(&self) -> &str {
        TOOL_SEARCH
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        schema_of::<SearchArgs>()
    }

    fn phase(&self) -> Phase {
        Phase::First
    }

    async fn call(&self, args: Value, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let args = parse_args::<SearchArgs>(TOOL_SEARCH, args)?;
        Ok(self.catalog.search(&args.query, self.top_k))
    }
}

/// One tool of an MCP server; its calls go to the server through the hub.
struct McpTool {
    hub: Arc<McpHub>,
    offered: OfferedTool,
    description: String,
    catalog: Arc<McpTools>,
}

#[async_trait]
impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.offered.model_name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        self.offered.tool.input_schema.clone()
    }

    fn listed(&self) -> bool {
        self.catalog.listed(&self.offered.model_name)
    }

    fn forwards_arguments(&self) -> bool {
        true
    }

    /// Calls the tool; its progress goes out as `tool_progress` events.
    async fn call(&self, args: Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let args: Map<String, Value> = match args {
            Value::Object(m) => m,
            Value::Null => Map::new(),
            _ => {
                return Err(ToolError::Model(
                    "the arguments must be a JSON object".into(),
                ));
            }
        };
        let log = ctx.events.cloned();
        let id = ctx.call_id.to_string();
        let progress = Arc::new(move |p: Progress| {
            if let Some(log) = &log {
                log.emit(&StreamEvent::Custom(&CustomEvent::ToolProgress {
                    tool_call_id: id.clone(),
                    progress: p.progress,
                    total: p.total,
                    message: p.message,
                }));
            }
        });
        let tool = &self.offered;
        let span = crate::telemetry::mcp_span(&tool.server, &tool.tool.name);
        let result = self
            .hub
            .call(
                &tool.server,
                &tool.tool.name,
                args,
                progress,
                ctx.cancel.child_token(),
                Some(&crate::tools::SandboxLauncher(ctx.sandbox)),
            )
            .instrument(span.clone())
            .await;
        if result.is_err() {
            crate::telemetry::span_failed(&span, "mcp");
        }
        let origin = json!({"server": tool.server, "tool": tool.tool.name});
        match result {
            Ok(r) => Ok(output(r, origin)),
            Err(McpError::Cancelled) => Err(ToolError::Model("the call was cancelled".into())),
            Err(e) => Err(ToolError::Model(e.to_string())),
        }
    }
}

/// A call's result as a tool message: text parts joined, images kept for a model that can
/// see (as `view_image`'s are), resources as their text with a note.
fn output(r: CallResult, origin: Value) -> ToolOutput {
    let mut text = Vec::new();
    let mut images = Vec::new();
    for part in r.content {
        match part {
            Content::Text(t) => text.push(t),
            Content::Image { mime_type, data } => {
                text.push(format!("[image {mime_type}, shown to you next]"));
                images.push(json!({"mimeType": mime_type, "data": data}));
            }
            Content::Resource {
                uri, text: Some(t), ..
            } => text.push(format!("[resource {uri}]\n{t}")),
            Content::Resource { uri, mime_type, .. } => text.push(format!(
                "[resource {uri} ({}), not text]",
                mime_type.as_deref().unwrap_or("binary")
            )),
            Content::Other(what) => text.push(format!("[{what}]")),
        }
    }
    let content = text.join("\n");
    let mut artifact = json!({"mcp": origin});
    if !images.is_empty() {
        artifact["images"] = json!(images);
    }
    ToolOutput {
        is_error: r.is_error,
        artifact: Some(artifact),
        ..ToolOutput::text(if r.is_error {
            format!("Error: {content}")
        } else {
            content
        })
    }
}
