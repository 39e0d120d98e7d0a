//! What a run's assistant makes of the agent: instructions added to the system prompt, a
//! model, and the skills and tools it may use.

use std::collections::HashSet;

use antler_protocol::assistants::{AgentSettings, GRAPH_ID, MemoryScope};

/// The agent one run is: the built-in one, or a custom agent (an assistant).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentProfile {
    /// The assistant's id, recorded with the run and its checkpoints.
    pub assistant_id: String,
    /// Instructions added to the system prompt.
    pub instructions: Option<String>,
    /// A configured model's name (a run's own choice wins).
    pub model_name: Option<String>,
    /// Skills it may use; all when `None`.
    pub skills: Option<HashSet<String>>,
    /// Tools it may use; all when `None`.
    pub tools: Option<HashSet<String>>,
    /// Memory tools on or off (the configuration decides when `None`).
    pub memory_tools: Option<bool>,
    /// What it learns is kept for it alone.
    pub private_memory: bool,
    /// Subagent types of its own.
    pub subagent_types: Vec<antler_protocol::assistants::SubagentType>,
    /// The image its sandboxes start from; the server's when `None`.
    pub sandbox_image: Option<String>,
    /// Its network policy over the server's.
    pub sandbox_network: Option<antler_protocol::egress::AgentNetwork>,
    /// Secrets its runs get, by name (set by an admin).
    pub secrets: Vec<String>,
    /// Its web tools' settings (set by an admin).
    pub web: Option<antler_protocol::web::AgentWeb>,
}

impl AgentProfile {
    /// The built-in agent: everything allowed, nothing added.
    pub fn built_in(assistant_id: &str) -> Self {
        AgentProfile {
            assistant_id: assistant_id.to_string(),
            instructions: None,
            model_name: None,
            skills: None,
            tools: None,
            memory_tools: None,
            private_memory: false,
            subagent_types: Vec::new(),
            sandbox_image: None,
            sandbox_network: None,
            secrets: Vec::new(),
            web: None,
        }
    }

    /// A custom agent with `settings`.
    pub fn custom(assistant_id: &str, settings: AgentSettings) -> Self {
        AgentProfile {
            assistant_id: assistant_id.to_string(),
            instructions: settings.system_prompt.filter(|s| !s.trim().is_empty()),
            model_name: settings.model_name,
            skills: settings.skills.map(|s| s.into_iter().collect()),
            tools: settings.tools.map(|t| t.into_iter().collect()),
            memory_tools: settings.memory_tools,
            private_memory: settings.memory_scope == Some(MemoryScope::Assistant),
            subagent_types: settings.subagent_types.unwrap_or_default(),
            sandbox_image: settings.sandbox_image,
            sandbox_network: settings.sandbox_network,
            secrets: settings.secrets.unwrap_or_default(),
            web: settings.web,
        }
    }

    /// The assistant whose own facts it learns and adds, or `None` for the person's shared
    /// memory.
    pub fn memory_scope(&self) -> Option<&str> {
        self.private_memory.then_some(self.assistant_id.as_str())
    }

    /// The graph its runs belong to.
    pub fn graph_id(&self) -> &'static str {
        GRAPH_ID
    }

    /// Whether it may call the tool `name`; an entry ending in `*` allows every tool with
    /// that prefix (`mcp__github__*`: every tool of one MCP server).
    pub fn allows_tool(&self, name: &str) -> bool {
        self.tools.as_ref().is_none_or(|t| {
            t.contains(name)
                || t.iter().any(|p| {
                    p.strip_suffix('*')
                        .is_some_and(|prefix| name.starts_with(prefix))
                })
        })
    }
}
