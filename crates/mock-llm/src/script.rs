//! The YAML script: scenarios chosen by the last user message, turns chosen by how many
//! assistant messages follow it (so the server needs no per-conversation state).

use serde::Deserialize;
use serde_json::Value;

/// A whole script.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// Defaults for every turn.
    #[serde(default)]
    pub options: Options,
    /// Tried in order; the first match wins.
    pub scenarios: Vec<Scenario>,
}

/// Streaming shape and identity.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Options {
    /// Characters per content or argument fragment.
    pub chunk_size: usize,
    /// Pause between chunks, milliseconds.
    pub chunk_delay_ms: u64,
    /// The model name reported.
    pub model: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            chunk_size: 8,
            chunk_delay_ms: 0,
            model: "antler-mock".into(),
        }
    }
}

/// One scripted conversation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Substring of the last user message (or a list of them, any of which matches, e.g.
    /// the same prompt in two languages); empty matches everything.
    #[serde(default, rename = "match")]
    pub matches: Matches,
    /// When set, the scenario only applies to requests whose system message contains it.
    #[serde(default)]
    pub system: Option<String>,
    /// The assistant's responses, one per model call after the user message.
    pub turns: Vec<Turn>,
}

/// A scenario's `match`: one substring, or a list of alternatives.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Matches {
    /// One substring.
    One(String),
    /// Any of these substrings.
    Any(Vec<String>),
}

impl Default for Matches {
    fn default() -> Self {
        Self::One(String::new())
    }
}

impl From<&str> for Matches {
    fn from(one: &str) -> Self {
        Self::One(one.to_string())
    }
}

impl Matches {
    /// Whether `text` contains the substring (or one of them).
    pub fn hit(&self, text: &str) -> bool {
        match self {
            Self::One(one) => text.contains(one.as_str()),
            Self::Any(any) => any.iter().any(|m| text.contains(m.as_str())),
        }
    }
}

/// One assistant response.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// Streamed as `reasoning_content` (OpenAI format), or as a signed `thinking` block
    /// when an Anthropic request enables thinking.
    pub reasoning: Option<String>,
    /// Anthropic format: a `redacted_thinking` block with this data, when thinking is on.
    pub redacted_thinking: Option<String>,
    /// Anthropic format: an `error` event with this message after the content (an
    /// `overloaded_error` mid-stream).
    pub stream_error: Option<String>,
    /// The reply text.
    pub content: Option<String>,
    /// Tool calls.
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    /// Defaults to `tool_calls` when there are tool calls, else `stop`.
    pub finish_reason: Option<String>,
    /// Token counts reported.
    pub usage: Option<Usage>,
    /// Fail instead of answering (the first `times` attempts of this exact request).
    pub error: Option<ErrorTurn>,
    /// Drop the connection after this many chunks (a stream cut in the middle).
    pub cut_after: Option<usize>,
    /// Overrides `options.chunk_size` for this turn.
    pub chunk_size: Option<usize>,
    /// Overrides `options.chunk_delay_ms` for this turn.
    pub chunk_delay_ms: Option<u64>,
}

/// A scripted tool call.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    /// Tool name.
    pub name: String,
    /// Arguments, serialised as JSON.
    #[serde(default)]
    pub arguments: Option<Value>,
    /// Arguments sent verbatim (for malformed JSON).
    #[serde(default)]
    pub arguments_raw: Option<String>,
}

impl ToolCall {
    /// The arguments string as sent on the wire.
    pub fn arguments_text(&self) -> String {
        match (&self.arguments_raw, &self.arguments) {
            (Some(raw), _) => raw.clone(),
            (None, Some(v)) => v.to_string(),
            (None, None) => "{}".into(),
        }
    }
}

/// Token counts.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    /// Input tokens.
    pub prompt_tokens: u64,
    /// Output tokens.
    pub completion_tokens: u64,
    /// Of the input tokens, read from the prompt cache (OpenAI mode:
    /// `prompt_tokens_details.cached_tokens`).
    #[serde(default)]
    pub cached_tokens: u64,
    /// Of the output tokens, spent reasoning (OpenAI mode:
    /// `completion_tokens_details.reasoning_tokens`).
    #[serde(default)]
    pub reasoning_tokens: u64,
}

/// A scripted failure.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorTurn {
    /// HTTP status.
    pub status: u16,
    /// Response body (JSON text or plain).
    #[serde(default)]
    pub body: Option<String>,
    /// `Retry-After` header, seconds.
    #[serde(default)]
    pub retry_after: Option<u64>,
    /// How many attempts fail before the turn answers normally (default: always).
    #[serde(default)]
    pub times: Option<u32>,
}

impl Script {
    /// Parses YAML.
    pub fn parse(text: &str) -> anyhow::Result<Self> {
        let script: Script = serde_yaml::from_str(text)?;
        anyhow::ensure!(!script.scenarios.is_empty(), "the script has no scenarios");
        Ok(script)
    }

    /// The scenario for a request: scenarios tied to a system message first (so a title
    /// request quoting the user is not answered by the user's scenario), then the rest.
    pub fn scenario(&self, system: &str, last_user: &str) -> Option<&Scenario> {
        self.scenarios
            .iter()
            .find(|s| {
                s.system
                    .as_deref()
                    .is_some_and(|sys| system.contains(sys) && s.matches.hit(last_user))
            })
            .or_else(|| {
                self.scenarios
                    .iter()
                    .find(|s| s.system.is_none() && s.matches.hit(last_user))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::Script;

    #[test]
    fn a_match_list_takes_any_of_its_substrings() {
        let script = Script::parse(
            "scenarios:\n  - match: [\"meeting notes\", \"会议纪要\"]\n    turns: [{content: a}]\n  - match: \"\"\n    turns: [{content: b}]\n",
        )
        .unwrap();
        let first = |text: &str| script.scenario("", text).unwrap().turns[0].content.clone();
        assert_eq!(first("turn meeting notes into tasks").as_deref(), Some("a"));
        assert_eq!(first("把会议纪要整理成待办").as_deref(), Some("a"));
        assert_eq!(first("something else").as_deref(), Some("b"));
    }
}
