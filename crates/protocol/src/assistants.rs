//! Assistants, as the LangGraph Agent Server has them: a configured version of a graph. In
//! Antler an assistant is a custom agent: instructions added to the system prompt, a model,
//! and the skills and tools it may use (its [`AgentSettings`], in `context`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::threads::SortOrder;
use crate::wire_enum::wire_enum;

/// The graph every assistant configures (the lead agent).
pub const GRAPH_ID: &str = "agent";

/// An assistant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Assistant {
    /// Its id (a UUID; the built-in one's is fixed).
    pub assistant_id: String,
    /// The graph it configures: always `agent`.
    pub graph_id: String,
    /// LangGraph run configuration (kept as given).
    #[schema(value_type = Object)]
    pub config: Value,
    /// The agent's settings ([`AgentSettings`]), plus any other keys a client keeps there.
    #[schema(value_type = Object)]
    pub context: Value,
    /// Free-form metadata.
    #[schema(value_type = Object)]
    pub metadata: Map<String, Value>,
    /// Its current version (1 first).
    pub version: i64,
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// RFC 3339 creation time.
    pub created_at: String,
    /// RFC 3339 time of the current version.
    pub updated_at: String,
}

/// What a custom agent is, in its `context` (also read from `config.configurable`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AgentSettings {
    /// Instructions added to the system prompt (DeerFlow's `SOUL.md`), at most 20,000
    /// characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// A configured model's name (`GET /api/models`); the server's default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_name: Option<String>,
    /// The skills it may use, by name; every enabled skill when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<String>>,
    /// The tools it may use, by name; every tool when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// Memory tools (`memory_search`, `memory_add`, …) on or off; the server's `memory.tools`
    /// when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_tools: Option<bool>,
    /// Whose the facts it learns are: `shared` (the default: every agent of the person reads
    /// them) or `assistant` (kept for this agent alone; it still reads the shared ones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_scope: Option<MemoryScope>,
    /// Subagent types its `task` tool offers besides the server's (one of the same name
    /// replaces it), at most 20.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_types: Option<Vec<SubagentType>>,
    /// The Docker image its sandboxes start from instead of the server's
    /// (`sandbox.docker.image`). Only admins may set or change it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "antler-sandbox:full")]
    pub sandbox_image: Option<String>,
    /// How its sandboxes reach the network, over the server's `sandbox.network` and
    /// `sandbox.egress.allowed_domains`. Only admins may set or change it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_network: Option<crate::egress::AgentNetwork>,
    /// Secrets (by name) its runs get as environment variables, besides those whose own
    /// grant names this agent. Only admins may set or change it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secrets: Option<Vec<String>>,
    /// Its web tools: off, or limited to some hosts (narrowing the server's `web.*`). Only
    /// admins may set or change it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub web: Option<crate::web::AgentWeb>,
}

impl AgentSettings {
    /// Each setting of `self`, or else of `other`.
    pub fn or(self, other: AgentSettings) -> AgentSettings {
        AgentSettings {
            system_prompt: self.system_prompt.or(other.system_prompt),
            model_name: self.model_name.or(other.model_name),
            skills: self.skills.or(other.skills),
            tools: self.tools.or(other.tools),
            memory_tools: self.memory_tools.or(other.memory_tools),
            memory_scope: self.memory_scope.or(other.memory_scope),
            subagent_types: self.subagent_types.or(other.subagent_types),
            sandbox_image: self.sandbox_image.or(other.sandbox_image),
            sandbox_network: self.sandbox_network.or(other.sandbox_network),
            secrets: self.secrets.or(other.secrets),
            web: self.web.or(other.web),
        }
    }
}

/// A kind of subagent the `task` tool can start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SubagentType {
    /// What the lead agent names it by (`subagent_type`), at most 64 characters.
    pub name: String,
    /// When to use it (shown to the lead agent).
    pub description: String,
    /// Instructions added to its system prompt.
    #[serde(default)]
    pub system_prompt: String,
    /// The tools it may use; every tool but `task` and `ask_clarification` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
}

wire_enum! {
    /// Whose the facts an agent learns are.
    pub enum MemoryScope {
        /// Every agent of the person reads them.
        Shared = "shared",
        /// Only this agent reads them.
        Assistant = "assistant",
    }
}

wire_enum! {
    /// What `POST /api/assistants` does when the id is taken.
    pub enum AssistantIfExists {
        /// 409 (the default).
        Raise = "raise",
        /// Answer the existing assistant.
        DoNothing = "do_nothing",
    }
}

/// `POST /api/assistants` body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AssistantCreate {
    /// `agent` (the only graph).
    pub graph_id: String,
    /// Its id (a UUID); generated when absent.
    #[serde(default)]
    pub assistant_id: Option<String>,
    /// LangGraph run configuration; `configurable` may hold the settings too.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub config: Option<Value>,
    /// The agent's settings ([`AgentSettings`]).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub context: Option<Value>,
    /// Free-form metadata.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Map<String, Value>>,
    /// `raise` (default) or `do_nothing` when the id is taken.
    #[serde(default)]
    pub if_exists: Option<AssistantIfExists>,
    /// Its name (default: "Untitled"), at most 200 characters.
    #[serde(default)]
    pub name: Option<String>,
    /// What it is for, at most 2,000 characters.
    #[serde(default)]
    pub description: Option<String>,
}

/// `PATCH /api/assistants/{assistant_id}` body: a new version with these fields replaced.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AssistantPatch {
    /// `agent` (the only graph).
    #[serde(default)]
    pub graph_id: Option<String>,
    /// Replaces the configuration.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub config: Option<Value>,
    /// Replaces the settings.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub context: Option<Value>,
    /// Merged into the metadata.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Map<String, Value>>,
    /// Replaces the name.
    #[serde(default)]
    pub name: Option<String>,
    /// Replaces the description.
    #[serde(default)]
    pub description: Option<String>,
}

wire_enum! {
    /// Sort field of an assistant search.
    #[derive(Default)]
    pub enum AssistantSortBy {
        /// Creation time.
        CreatedAt = "created_at",
        /// Time of the current version (the default).
        #[default]
        UpdatedAt = "updated_at",
        /// The id.
        AssistantId = "assistant_id",
        /// The graph.
        GraphId = "graph_id",
        /// The name.
        Name = "name",
    }
}

/// `POST /api/assistants/search` and `/count` body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AssistantSearch {
    /// Only assistants whose metadata has all these key/value pairs.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Map<String, Value>>,
    /// Only assistants of this graph.
    #[serde(default)]
    pub graph_id: Option<String>,
    /// Only assistants whose name contains this (ignoring case).
    #[serde(default)]
    pub name: Option<String>,
    /// Page size, 1–1000 (default 10).
    #[serde(default, deserialize_with = "crate::de::opt_u32")]
    #[schema(format = Int64, maximum = 4294967295_u64)]
    pub limit: Option<u32>,
    /// Assistants to skip.
    #[serde(default, deserialize_with = "crate::de::opt_u32")]
    #[schema(format = Int64, maximum = 4294967295_u64)]
    pub offset: Option<u32>,
    /// `updated_at` (default), `created_at`, `assistant_id`, `graph_id` or `name`.
    #[serde(default)]
    pub sort_by: Option<AssistantSortBy>,
    /// `desc` (default) or `asc`.
    #[serde(default)]
    pub sort_order: Option<SortOrder>,
}

/// `POST /api/assistants/{assistant_id}/versions` body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AssistantVersionsQuery {
    /// Only versions whose metadata has all these key/value pairs.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Map<String, Value>>,
    /// Page size, 1–1000 (default 10).
    #[serde(default, deserialize_with = "crate::de::opt_u32")]
    #[schema(format = Int64, maximum = 4294967295_u64)]
    pub limit: Option<u32>,
    /// Versions to skip.
    #[serde(default, deserialize_with = "crate::de::opt_u32")]
    #[schema(format = Int64, maximum = 4294967295_u64)]
    pub offset: Option<u32>,
}

/// `POST /api/assistants/{assistant_id}/latest` body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AssistantLatest {
    /// The version to make current (versions count from 1).
    #[schema(minimum = 1, maximum = 2147483647)]
    pub version: i64,
}

/// `GET /api/assistants/{assistant_id}/schemas`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AssistantSchemas {
    /// `agent`.
    pub graph_id: String,
    /// JSON Schema of a run's input.
    #[schema(value_type = Object)]
    pub input_schema: Value,
    /// JSON Schema of a run's output (the thread's values).
    #[schema(value_type = Object)]
    pub output_schema: Value,
    /// JSON Schema of the thread's state.
    #[schema(value_type = Object)]
    pub state_schema: Value,
    /// JSON Schema of `config.configurable`.
    #[schema(value_type = Object)]
    pub config_schema: Value,
    /// JSON Schema of `context` (the agent's settings).
    #[schema(value_type = Object)]
    pub context_schema: Value,
}

/// `GET /api/assistants/{assistant_id}/graph`: the agent's nodes and edges.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AssistantGraph {
    /// `{id, type, data}` per node.
    #[schema(value_type = Vec<Object>)]
    pub nodes: Vec<Value>,
    /// `{source, target, conditional}` per edge.
    #[schema(value_type = Vec<Object>)]
    pub edges: Vec<Value>,
}
