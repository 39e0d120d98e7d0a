//! MCP tools in a run: their definitions (all of them, or — over the configured budget —
//! `tool_search` plus the tools a search promoted), and their calls, whose results become
//! tool messages (text, images for a model that can see, resources as text).

use std::collections::HashSet;
use std::sync::Arc;

use antler_mcp::{CallResult, Content, McpError, OfferedTool, Progress, ToolSearchConfig};
use antler_protocol::stream::{CustomEvent, StreamEvent};
use serde_json::{Map, Value, json};

use super::AgentRun;
use crate::bm25;
use crate::tools::{ToolError, ToolOutput};

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
    pub promoted: HashSet<String>,
}

fn definition(t: &OfferedTool) -> Value {
    let mut parameters = t.tool.input_schema.clone();
    if !parameters.is_object() {
        parameters = json!({"type": "object", "properties": {}});
    }
    json!({"type": "function", "function": {
        "name": t.model_name,
        "description": format!("{} (MCP server '{}')", t.tool.description, t.server),
        "parameters": parameters,
    }})
}

impl McpTools {
    /// The tools of a run, deferred when they exceed `budget`.
    pub fn new(offered: Vec<OfferedTool>, budget: &ToolSearchConfig) -> Self {
        let chars: usize = offered
            .iter()
            .map(|t| definition(t).to_string().len())
            .sum();
        let deferred =
            budget.enabled && (offered.len() > budget.max_tools || chars > budget.max_chars);
        McpTools {
            offered,
            deferred,
            promoted: HashSet::new(),
        }
    }

    /// The definitions for the next model call.
    pub fn definitions(&self) -> Vec<Value> {
        let mut defs: Vec<Value> = self
            .offered
            .iter()
            .filter(|t| !self.deferred || self.promoted.contains(&t.model_name))
            .map(definition)
            .collect();
        if self.deferred {
            defs.push(json!({"type": "function", "function": {
                "name": TOOL_SEARCH,
                "description": format!(
                    "Search the {} tools of the connected MCP servers that are not listed here, by words describing what you need. The best matches become callable.",
                    self.offered.len()
                ),
                "parameters": {"type": "object", "properties": {
                    "query": {"type": "string", "description": "What the tool should do"},
                }, "required": ["query"]},
            }}));
        }
        defs
    }

    /// The offered tool called `name`.
    pub fn find(&self, name: &str) -> Option<&OfferedTool> {
        self.offered.iter().find(|t| t.model_name == name)
    }

    /// Ranks the deferred tools for `query` and promotes the best `top_k`.
    pub fn search(&mut self, query: &str, top_k: usize) -> ToolOutput {
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
        for (i, _) in ranked {
            let t = &self.offered[i];
            self.promoted.insert(t.model_name.clone());
            lines.push(format!("- {}: {}", t.model_name, t.tool.description));
        }
        ToolOutput::text(lines.join("\n"))
    }
}

impl AgentRun<'_> {
    /// Calls an MCP tool; its progress goes out as `tool_progress` events.
    pub(super) async fn call_mcp(
        &self,
        tool: &OfferedTool,
        call_id: &str,
        args: &Value,
    ) -> Result<ToolOutput, ToolError> {
        let Some(hub) = self.mcp else {
            return Err(ToolError::Model("MCP tools are not available".into()));
        };
        let args: Map<String, Value> = match args {
            Value::Object(m) => m.clone(),
            Value::Null => Map::new(),
            _ => {
                return Err(ToolError::Model(
                    "the arguments must be a JSON object".into(),
                ));
            }
        };
        let log = self.log.clone();
        let id = call_id.to_string();
        let progress = Arc::new(move |p: Progress| {
            log.emit(&StreamEvent::Custom(&CustomEvent::ToolProgress {
                tool_call_id: id.clone(),
                progress: p.progress,
                total: p.total,
                message: p.message,
            }));
        });
        let result = hub
            .call(
                &tool.server,
                &tool.tool.name,
                args,
                progress,
                self.cancel.child_token(),
                Some(&crate::tools::SandboxLauncher(self.sandbox)),
            )
            .await;
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
