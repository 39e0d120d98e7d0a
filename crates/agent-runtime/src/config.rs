//! `models` and `agent.*` configuration.

use serde::{Deserialize, Serialize};

/// One model endpoint: OpenAI-compatible (OpenAI, DeepSeek, Gemini, Ollama, vLLM, LM Studio,
/// …) or Anthropic's Messages API (`provider`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ModelConfig {
    /// The name runs select it by (`config.configurable.model_name`).
    pub name: String,
    /// API base, e.g. `https://api.openai.com/v1` (requests go to `<base>/chat/completions`,
    /// or `<base>/messages` for Anthropic).
    pub base_url: String,
    /// Model id sent to the API.
    pub model: String,
    /// Environment variable holding the API key (never put keys in the file).
    pub api_key_env: Option<String>,
    /// `max_tokens` per call.
    pub max_tokens: Option<u32>,
    /// Sampling temperature.
    pub temperature: Option<f32>,
    /// The model streams `reasoning_content` (shown collapsible in the UI).
    pub supports_reasoning: bool,
    /// The model takes images (`image_url` parts); others are told an image was attached.
    pub supports_vision: bool,
    /// Seconds to wait for the response to start.
    pub request_timeout_secs: u64,
    /// Seconds without a streamed chunk before the call fails.
    pub idle_timeout_secs: u64,
    /// Retries of 429, 5xx and connection failures.
    pub max_retries: u32,
    /// First retry delay, milliseconds (doubles each time, `Retry-After` wins).
    pub retry_base_ms: u64,
    /// Longest retry delay, milliseconds.
    pub retry_max_ms: u64,
    /// A scripted demo model (the UI says so).
    pub demo: bool,
    /// The wire format: OpenAI Chat Completions (default) or Anthropic Messages.
    pub provider: Provider,
    /// The model can think before answering (extended thinking, reasoning effort).
    pub supports_thinking: bool,
    /// Tokens the model reads at most (prompt and answer), when known.
    pub context_window: Option<u64>,
    /// Tokens the model writes at most per call, when known.
    pub max_output_tokens: Option<u32>,
    /// Prices in US dollars per million tokens, when known (no price, no cost figure).
    pub pricing: Option<Pricing>,
    /// Thinking takes an effort (low, medium, high) rather than just on or off: OpenAI's
    /// `reasoning_effort`, Anthropic's thinking budget.
    pub supports_reasoning_effort: bool,
    /// The OpenAI-format request field carrying the output limit: `max_tokens` (default,
    /// what compatible servers read) or `max_completion_tokens` (OpenAI's reasoning models;
    /// sent anyway when a call asks for reasoning effort).
    pub max_tokens_field: MaxTokensField,
}

/// The request field of an OpenAI-format output limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaxTokensField {
    /// `max_tokens`.
    #[default]
    MaxTokens,
    /// `max_completion_tokens`.
    MaxCompletionTokens,
}

/// A model API's wire format.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// OpenAI Chat Completions and the many compatible APIs.
    #[default]
    Openai,
    /// Anthropic's Messages API.
    Anthropic,
}

/// Prices in US dollars per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pricing {
    /// Prompt tokens not read from the cache.
    pub input: f64,
    /// Prompt tokens read from the cache (`input` when not given).
    #[serde(default)]
    pub cached_input: Option<f64>,
    /// Completion tokens, reasoning included.
    pub output: f64,
}

/// Lets [`AgentConfig::default_model_in`] choose among configurations and clients alike.
impl AsRef<ModelConfig> for ModelConfig {
    fn as_ref(&self) -> &ModelConfig {
        self
    }
}

impl Default for ModelConfig {
    fn default() -> Self {
        ModelConfig {
            name: "default".into(),
            base_url: "https://api.openai.com/v1".into(),
            model: "gpt-4o-mini".into(),
            api_key_env: Some("OPENAI_API_KEY".into()),
            max_tokens: None,
            temperature: None,
            supports_reasoning: false,
            supports_vision: false,
            request_timeout_secs: 60,
            idle_timeout_secs: 120,
            max_retries: 4,
            retry_base_ms: 500,
            retry_max_ms: 30_000,
            demo: false,
            provider: Provider::Openai,
            supports_thinking: false,
            context_window: None,
            max_output_tokens: None,
            pricing: None,
            supports_reasoning_effort: false,
            max_tokens_field: MaxTokensField::MaxTokens,
        }
    }
}

/// `agent.*`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AgentConfig {
    /// The model used when a run names none (empty: the first in `models`).
    pub default_model: Option<String>,
    /// Most model calls in one run.
    pub max_model_calls: u32,
    /// Wall-clock limit of one run, seconds.
    pub run_timeout_secs: u64,
    /// Bytes of events kept in memory per run for joiners (older ones come from the database).
    pub event_log_max_bytes: usize,
    /// Seconds between SSE heartbeat comments on an idle stream.
    pub heartbeat_secs: u64,
    /// Generate a title after the first exchange.
    pub generate_titles: bool,
    /// Characters of tool output the model sees per call (the middle of longer output is cut).
    pub max_tool_output_chars: usize,
    /// Seconds a `bash` command may run unless the call asks for less.
    pub bash_timeout_secs: u64,
    /// Plan mode for every run (a run turns it on with `context.plan_mode`): the agent keeps
    /// a checklist with `write_todos` for work of several steps.
    pub plan_mode: bool,
    /// Subagents the lead agent delegates to with the `task` tool.
    pub subagents: SubagentConfig,
    /// Long conversations summarized for the model.
    pub summarization: SummarizationConfig,
    /// Follow-up suggestions after an answer.
    pub suggestions: crate::suggestions::SuggestionsConfig,
}

/// `agent.summarization.*`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SummarizationConfig {
    /// Summarize at all.
    pub enabled: bool,
    /// Tokens of the model's input that trigger it (0: never).
    pub trigger_tokens: usize,
    /// Messages the model reads that trigger it (0: never).
    pub trigger_messages: usize,
    /// The latest messages kept as they are.
    pub keep_messages: usize,
    /// `auto`, `o200k_base`, `cl100k_base` or `estimate`.
    pub encoding: String,
    /// The model that writes summaries (a configured name; the run's when empty).
    pub model: Option<String>,
    /// Instructions for it (the built-in ones when empty).
    pub prompt: Option<String>,
}

impl Default for SummarizationConfig {
    fn default() -> Self {
        SummarizationConfig {
            enabled: true,
            trigger_tokens: 32_000,
            trigger_messages: 0,
            keep_messages: 10,
            encoding: "auto".into(),
            model: None,
            prompt: None,
        }
    }
}

/// `agent.subagents.*`: the `task` tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SubagentConfig {
    /// Offer the `task` tool.
    pub enabled: bool,
    /// Subagents running at once per run; further `task` calls wait for a slot.
    pub max_concurrent: usize,
    /// Subagents one run may start in all; later calls are refused.
    pub max_total: usize,
    /// Seconds one subagent may run.
    pub timeout_secs: u64,
    /// Model calls one subagent may make.
    pub max_model_calls: u32,
    /// Types besides `general-purpose` and `bash` (or replacing them, by name).
    pub types: Vec<SubagentType>,
}

impl Default for SubagentConfig {
    fn default() -> Self {
        SubagentConfig {
            enabled: true,
            max_concurrent: 3,
            max_total: 12,
            timeout_secs: 1800,
            max_model_calls: 50,
            types: Vec::new(),
        }
    }
}

/// A kind of subagent (also an assistant setting).
pub use antler_protocol::assistants::SubagentType;

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            default_model: None,
            max_model_calls: 100,
            run_timeout_secs: 1800,
            event_log_max_bytes: 4 * 1024 * 1024,
            heartbeat_secs: 15,
            generate_titles: true,
            max_tool_output_chars: 30_000,
            bash_timeout_secs: 300,
            plan_mode: false,
            subagents: SubagentConfig::default(),
            summarization: SummarizationConfig::default(),
            suggestions: crate::suggestions::SuggestionsConfig::default(),
        }
    }
}

impl AgentConfig {
    /// The model a run uses when it names none: `default_model` when set, else the first of
    /// `models` (`None` when there are none). The one place this rule is written: runs,
    /// memory extraction and `GET /api/models` all ask here, so they never disagree.
    pub fn default_model_in<'m, M: AsRef<ModelConfig>>(&self, models: &'m [M]) -> Option<&'m M> {
        match self.default_model.as_deref().filter(|n| !n.is_empty()) {
            Some(name) => models.iter().find(|m| m.as_ref().name == name),
            None => models.first(),
        }
    }

    /// Checks values that parse but make no sense; returns (key, message).
    pub fn validate(&self, models: &[ModelConfig]) -> Result<(), (String, String)> {
        let bad = |k: &str, m: &str| Err((k.to_string(), m.to_string()));
        if self.max_model_calls == 0 {
            return bad("agent.max_model_calls", "must be at least 1");
        }
        if self.run_timeout_secs == 0 {
            return bad("agent.run_timeout_secs", "must be at least 1");
        }
        if self.event_log_max_bytes < 4096 {
            return bad("agent.event_log_max_bytes", "must be at least 4096");
        }
        if self.heartbeat_secs == 0 {
            return bad("agent.heartbeat_secs", "must be at least 1");
        }
        let sub = &self.subagents;
        if sub.max_concurrent == 0 || sub.max_total == 0 || sub.timeout_secs == 0 {
            return bad(
                "agent.subagents",
                "max_concurrent, max_total and timeout_secs must be at least 1",
            );
        }
        if sub.max_concurrent > 64 || sub.max_total > 1000 {
            return bad(
                "agent.subagents",
                "max_concurrent is at most 64 and max_total at most 1000",
            );
        }
        if self.summarization.keep_messages == 0 {
            return bad("agent.summarization.keep_messages", "must be at least 1");
        }
        if sub.max_model_calls == 0 {
            return bad("agent.subagents.max_model_calls", "must be at least 1");
        }
        let sum = &self.summarization;
        if !["auto", "o200k_base", "cl100k_base", "estimate"].contains(&sum.encoding.as_str()) {
            return bad(
                "agent.summarization.encoding",
                "must be auto, o200k_base, cl100k_base or estimate",
            );
        }
        if let Some(name) = sum.model.as_deref().filter(|n| !n.is_empty())
            && !models.iter().any(|m| m.name == name)
        {
            return bad(
                "agent.summarization.model",
                &format!("no model named '{name}' in models"),
            );
        }
        if let Some(name) = self.suggestions.model.as_deref().filter(|n| !n.is_empty())
            && !models.iter().any(|m| m.name == name)
        {
            return bad(
                "agent.suggestions.model",
                &format!("no model named '{name}' in models"),
            );
        }
        if self.suggestions.timeout_secs == 0 {
            return bad("agent.suggestions.timeout_secs", "must be at least 1");
        }
        for (i, t) in sub.types.iter().enumerate() {
            if t.name.trim().is_empty() || t.name.len() > 64 || t.description.trim().is_empty() {
                return bad(
                    &format!("agent.subagents.types[{i}]"),
                    "name (at most 64 characters) and description must not be empty",
                );
            }
        }
        if let Some(name) = &self.default_model
            && !name.is_empty()
            && !models.iter().any(|m| &m.name == name)
        {
            return bad(
                "agent.default_model",
                &format!("no model named '{name}' in models"),
            );
        }
        for (i, m) in models.iter().enumerate() {
            if m.name.trim().is_empty() || m.model.trim().is_empty() {
                return bad(&format!("models[{i}]"), "name and model must not be empty");
            }
            if !(m.base_url.starts_with("http://") || m.base_url.starts_with("https://")) {
                return bad(&format!("models[{i}].base_url"), "must be an http(s) URL");
            }
        }
        Ok(())
    }
}

/// Applies `ANTLER_MODEL_BASE_URL` and `ANTLER_MODEL` to the first model (creating it when
/// none is configured).
pub fn apply_model_env(
    models: &mut Vec<ModelConfig>,
    base_url: Option<String>,
    model: Option<String>,
) {
    if base_url.is_none() && model.is_none() {
        return;
    }
    if models.is_empty() {
        models.push(ModelConfig::default());
    }
    let first = &mut models[0];
    if let Some(url) = base_url {
        first.base_url = url;
    }
    if let Some(model) = model {
        first.model = model;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(names: &[&str]) -> Vec<ModelConfig> {
        names
            .iter()
            .map(|n| ModelConfig {
                name: n.to_string(),
                ..ModelConfig::default()
            })
            .collect()
    }

    fn default_of(default_model: Option<&str>, names: &[&str]) -> Option<String> {
        let agent = AgentConfig {
            default_model: default_model.map(str::to_string),
            ..AgentConfig::default()
        };
        agent
            .default_model_in(&named(names))
            .map(|m| m.name.clone())
    }

    #[test]
    fn the_default_model_is_the_named_one_else_the_first_configured() {
        let names = ["fast", "smart"];
        assert_eq!(default_of(Some("smart"), &names).as_deref(), Some("smart"));
        assert_eq!(default_of(None, &names).as_deref(), Some("fast"));
        assert_eq!(default_of(Some(""), &names).as_deref(), Some("fast"));
        assert_eq!(default_of(None, &[]), None);
        // Validation refuses this configuration; asked anyway, nothing is chosen.
        assert_eq!(default_of(Some("missing"), &names), None);
    }
}
