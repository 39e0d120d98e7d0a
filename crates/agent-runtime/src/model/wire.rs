//! The OpenAI Chat Completions stream as Antler reads it (`openai.rs` writes requests). Unknown
//! fields are ignored, so providers' extensions do not break decoding.

use serde::Deserialize;

/// A streamed chunk.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ChatChunk {
    /// Choices in this chunk (empty in the final usage chunk).
    #[serde(default)]
    pub choices: Vec<ChunkChoice>,
    /// Token counts (final chunk when `include_usage`).
    #[serde(default)]
    pub usage: Option<Usage>,
    /// The model that answered.
    #[serde(default)]
    pub model: Option<String>,
}

/// One choice of a chunk.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ChunkChoice {
    /// Which choice (n > 1 interleaves them).
    #[serde(default)]
    pub index: u32,
    /// What this chunk adds.
    #[serde(default)]
    pub delta: Delta,
    /// Set on the choice's last chunk.
    #[serde(default)]
    pub finish_reason: Option<String>,
}

/// The added content.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Delta {
    /// Text.
    #[serde(default)]
    pub content: Option<String>,
    /// Reasoning (DeepSeek, vLLM, Ollama call it `reasoning_content` or `reasoning`).
    #[serde(default, alias = "reasoning")]
    pub reasoning_content: Option<String>,
    /// A refusal instead of content.
    #[serde(default)]
    pub refusal: Option<String>,
    /// Tool-call fragments, keyed by `index`.
    #[serde(default)]
    pub tool_calls: Option<Vec<ToolCallDelta>>,
}

/// A fragment of one tool call.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ToolCallDelta {
    /// Which call.
    #[serde(default)]
    pub index: u32,
    /// Call id (first fragment).
    #[serde(default)]
    pub id: Option<String>,
    /// Name and argument fragment.
    #[serde(default)]
    pub function: Option<FunctionDelta>,
}

/// Function part of a tool-call fragment.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct FunctionDelta {
    /// Function name (first fragment).
    #[serde(default)]
    pub name: Option<String>,
    /// A piece of the JSON arguments.
    #[serde(default)]
    pub arguments: Option<String>,
}

/// Token counts of one model call, the same for every provider (each decoder maps its own
/// report into it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(from = "UsageWire")]
pub struct Usage {
    /// Prompt tokens, cached ones included.
    pub prompt_tokens: u64,
    /// Completion tokens, reasoning included.
    pub completion_tokens: u64,
    /// Both.
    pub total_tokens: u64,
    /// Of `prompt_tokens`, those read from the provider's prompt cache.
    pub cached_tokens: u64,
    /// Of `prompt_tokens`, those written to the provider's prompt cache (Anthropic bills
    /// them apart).
    pub cache_write_tokens: u64,
    /// Of `completion_tokens`, those spent reasoning.
    pub reasoning_tokens: u64,
}

/// OpenAI's usage object: details nest the cached and reasoning counts.
#[derive(Debug, Default, Deserialize)]
struct UsageWire {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    #[serde(default)]
    total_tokens: u64,
    #[serde(default)]
    prompt_tokens_details: Option<TokenDetails>,
    #[serde(default)]
    completion_tokens_details: Option<TokenDetails>,
}

#[derive(Debug, Default, Deserialize)]
struct TokenDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
    #[serde(default)]
    reasoning_tokens: Option<u64>,
}

impl From<UsageWire> for Usage {
    fn from(w: UsageWire) -> Self {
        Usage {
            prompt_tokens: w.prompt_tokens,
            completion_tokens: w.completion_tokens,
            total_tokens: w.total_tokens,
            cached_tokens: w
                .prompt_tokens_details
                .and_then(|d| d.cached_tokens)
                .unwrap_or(0),
            cache_write_tokens: 0,
            reasoning_tokens: w
                .completion_tokens_details
                .and_then(|d| d.reasoning_tokens)
                .unwrap_or(0),
        }
    }
}

/// An error body (`{"error": {"message": …}}`).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ErrorBody {
    /// The error.
    #[serde(default)]
    pub error: Option<ErrorDetail>,
}

/// Error details.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ErrorDetail {
    /// Human message.
    #[serde(default)]
    pub message: Option<String>,
}
