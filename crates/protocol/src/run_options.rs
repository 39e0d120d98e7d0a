//! What a run asks of the agent (model, thinking, plan mode, subagents), read from its
//! `context` over `config.configurable`, with DeerFlow's names for the same settings.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::runs::RunCreate;

/// What a run asks of the agent in `context` or `config.configurable` (context wins); the
/// other keys are the client's. A value of the wrong type is ignored, as LangGraph servers
/// pass these maps through.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct RunOptions {
    /// A configured model's name.
    #[serde(default, deserialize_with = "crate::de::lenient")]
    pub model_name: Option<String>,
    /// Plan mode: the agent keeps a checklist with `write_todos` (DeerFlow: `is_plan_mode`).
    #[serde(
        default,
        alias = "is_plan_mode",
        deserialize_with = "crate::de::lenient"
    )]
    pub plan_mode: Option<bool>,
    /// Thinking on or off (DeerFlow: `thinking_enabled`); `false` wins over an effort.
    #[serde(
        default,
        alias = "thinking_enabled",
        deserialize_with = "crate::de::lenient"
    )]
    pub thinking: Option<bool>,
    /// `low`, `medium` or `high` (implies thinking on); checked when the run is created, so
    /// another value is refused rather than ignored.
    #[serde(default)]
    pub reasoning_effort: Option<Value>,
    /// `false`: the `task` tool (subagents) is not offered to this run.
    #[serde(default, deserialize_with = "crate::de::lenient")]
    pub subagent_enabled: Option<bool>,
}

impl RunOptions {
    /// `self` over `other`, key by key.
    fn or(self, other: RunOptions) -> RunOptions {
        RunOptions {
            model_name: self.model_name.or(other.model_name),
            plan_mode: self.plan_mode.or(other.plan_mode),
            thinking: self.thinking.or(other.thinking),
            reasoning_effort: self
                .reasoning_effort
                .filter(|v| !v.is_null())
                .or(other.reasoning_effort),
            subagent_enabled: self.subagent_enabled.or(other.subagent_enabled),
        }
    }

    fn of(map: Option<&Map<String, Value>>) -> RunOptions {
        // Small maps: a copy is cheaper than a deserializer of borrowed maps.
        map.and_then(|m| RunOptions::deserialize(Value::Object(m.clone())).ok())
            .unwrap_or_default()
    }
}

impl RunCreate {
    /// What the run asks of the agent (`context` over `config.configurable`).
    pub fn options(&self) -> RunOptions {
        let configurable = self
            .config
            .as_ref()
            .and_then(|c| c.get("configurable")?.as_object());
        RunOptions::of(self.context.as_ref()).or(RunOptions::of(configurable))
    }
}
