//! Conversation messages in the LangChain JSON shape (what LangGraph SDK clients expect).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

/// One message of a thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Message {
    /// From the person.
    Human(HumanMessage),
    /// From the model.
    Ai(AiMessage),
    /// A tool's result.
    Tool(ToolMessage),
    /// Instructions (not stored in threads; used for model requests).
    System(SystemMessage),
}

impl Message {
    /// The message id.
    pub fn id(&self) -> &str {
        match self {
            Message::Human(m) => &m.id,
            Message::Ai(m) => &m.id,
            Message::Tool(m) => &m.id,
            Message::System(m) => &m.id,
        }
    }
}

/// A person's message. On the wire `content` is the text, or — when images came with it —
/// a list of LangChain content blocks: `{"type": "text", "text"}` and `{"type": "image",
/// "mimeType", "data"}` (base64) or `{"type": "image", "url"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(into = "HumanWire", from = "HumanWire")]
pub struct HumanMessage {
    /// Unique id.
    pub id: String,
    /// The text; on the wire a string, or a list of content blocks when images came with it.
    #[schema(value_type = Value)]
    pub content: String,
    /// Images sent with it (in `content` on the wire).
    #[serde(skip)]
    pub images: Vec<Image>,
    /// Provider-specific extras.
    #[serde(default)]
    #[schema(value_type = Object)]
    pub additional_kwargs: Map<String, Value>,
    /// Response metadata (empty for people).
    #[serde(default)]
    #[schema(value_type = Object)]
    pub response_metadata: Map<String, Value>,
}

/// A picture in a person's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Image {
    /// Inline bytes: a MIME type (`image/png`) and their base64 text.
    Data {
        /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
        mime_type: String,
        /// Base64 (standard alphabet).
        data: String,
    },
    /// An `http(s)://` address the model fetches itself.
    Url(String),
}

impl Image {
    /// The address a model is given: the URL, or a `data:` URL of the bytes.
    pub fn url(&self) -> String {
        match self {
            Image::Data { mime_type, data } => format!("data:{mime_type};base64,{data}"),
            Image::Url(url) => url.clone(),
        }
    }
}

/// [`HumanMessage`] as stored and sent.
#[derive(Serialize, Deserialize)]
struct HumanWire {
    id: String,
    content: Value,
    #[serde(default)]
    additional_kwargs: Map<String, Value>,
    #[serde(default)]
    response_metadata: Map<String, Value>,
}

impl From<HumanMessage> for HumanWire {
    fn from(m: HumanMessage) -> Self {
        let content = if m.images.is_empty() {
            Value::String(m.content)
        } else {
            let mut blocks = Vec::with_capacity(m.images.len() + 1);
            if !m.content.is_empty() {
                blocks.push(serde_json::json!({"type": "text", "text": m.content}));
            }
            blocks.extend(m.images.into_iter().map(|image| match image {
                Image::Data { mime_type, data } => {
                    serde_json::json!({"type": "image", "mimeType": mime_type, "data": data})
                }
                Image::Url(url) => serde_json::json!({"type": "image", "url": url}),
            }));
            Value::Array(blocks)
        };
        HumanWire {
            id: m.id,
            content,
            additional_kwargs: m.additional_kwargs,
            response_metadata: m.response_metadata,
        }
    }
}

impl From<HumanWire> for HumanMessage {
    fn from(w: HumanWire) -> Self {
        let (content, images) = match w.content {
            Value::String(text) => (text, Vec::new()),
            Value::Array(blocks) => {
                let mut text = Vec::new();
                let mut images = Vec::new();
                for block in &blocks {
                    match block.get("type").and_then(Value::as_str) {
                        Some("text") => {
                            if let Some(t) = block.get("text").and_then(Value::as_str) {
                                text.push(t.to_string());
                            }
                        }
                        Some("image") => {
                            let field = |k: &str| block.get(k).and_then(Value::as_str);
                            match (field("mimeType"), field("data"), field("url")) {
                                (Some(mime), Some(data), _) => images.push(Image::Data {
                                    mime_type: mime.to_string(),
                                    data: data.to_string(),
                                }),
                                (_, _, Some(url)) => images.push(Image::Url(url.to_string())),
                                _ => {}
                            }
                        }
                        _ => {}
                    }
                }
                (text.join("\n"), images)
            }
            Value::Null => (String::new(), Vec::new()),
            other => (other.to_string(), Vec::new()),
        };
        HumanMessage {
            id: w.id,
            content,
            images,
            additional_kwargs: w.additional_kwargs,
            response_metadata: w.response_metadata,
        }
    }
}

/// Instructions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SystemMessage {
    /// Unique id.
    pub id: String,
    /// The text.
    pub content: String,
}

/// A tool call the model made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ToolCall {
    /// Tool name.
    pub name: String,
    /// Parsed arguments.
    #[schema(value_type = Object)]
    pub args: Value,
    /// Call id, echoed by the tool message.
    pub id: String,
    /// Always `tool_call`.
    #[serde(rename = "type", default = "tool_call_type")]
    pub kind: String,
}

fn tool_call_type() -> String {
    "tool_call".into()
}

/// A tool call whose arguments were not valid JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct InvalidToolCall {
    /// Tool name.
    pub name: String,
    /// The raw arguments text.
    pub args: String,
    /// Call id.
    pub id: String,
    /// Why parsing failed.
    pub error: String,
    /// Always `invalid_tool_call`.
    #[serde(rename = "type", default = "invalid_tool_call_type")]
    pub kind: String,
}

fn invalid_tool_call_type() -> String {
    "invalid_tool_call".into()
}

/// Token counts of one model call (LangChain's `usage_metadata`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct UsageMetadata {
    /// Prompt tokens (cached ones included).
    pub input_tokens: u64,
    /// Completion tokens (reasoning included).
    pub output_tokens: u64,
    /// Both.
    pub total_tokens: u64,
    /// Of `input_tokens`: read from (`cache_read`) and written to (`cache_creation`) the
    /// provider's prompt cache; absent when neither happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_token_details: Option<InputTokenDetails>,
    /// Of `output_tokens`: spent reasoning; absent when none were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_token_details: Option<OutputTokenDetails>,
}

/// Where a call's prompt tokens came from (keys only when not zero).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct InputTokenDetails {
    /// Read from the prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<u64>,
    /// Written to the prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_creation: Option<u64>,
}

/// What a call's completion tokens were spent on (keys only when not zero).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct OutputTokenDetails {
    /// Reasoning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<u64>,
}

/// The model's message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AiMessage {
    /// Unique id.
    pub id: String,
    /// The reply text.
    pub content: String,
    /// Tool calls with parsed arguments.
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    /// Tool calls whose arguments could not be parsed.
    #[serde(default)]
    pub invalid_tool_calls: Vec<InvalidToolCall>,
    /// Extras; `reasoning_content` holds the model's reasoning.
    #[serde(default)]
    #[schema(value_type = Object)]
    pub additional_kwargs: Map<String, Value>,
    /// `finish_reason`, `model_name`.
    #[serde(default)]
    #[schema(value_type = Object)]
    pub response_metadata: Map<String, Value>,
    /// Token counts.
    #[serde(default)]
    pub usage_metadata: Option<UsageMetadata>,
}

/// A tool's result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ToolMessage {
    /// Unique id.
    pub id: String,
    /// What the model reads.
    pub content: String,
    /// The call answered.
    pub tool_call_id: String,
    /// The tool's name.
    #[serde(default)]
    pub name: Option<String>,
    /// `success` or `error`.
    #[serde(default)]
    pub status: ToolStatus,
    /// Structured data for the UI (not sent to the model), e.g. a bash exit code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub artifact: Option<Value>,
}

crate::wire_enum::wire_enum! {
    /// How a tool call ended.
    pub enum ToolStatus {
        /// It did what was asked.
        Success = "success",
        /// It failed; the content says why.
        Error = "error",
    }
}

#[expect(clippy::derivable_impls, reason = "wire_enum! owns the derives")]
impl Default for ToolStatus {
    fn default() -> Self {
        ToolStatus::Success
    }
}

/// A fragment of a tool call in a streamed chunk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ToolCallChunk {
    /// Tool name (first fragment only).
    pub name: Option<String>,
    /// A fragment of the arguments text.
    pub args: Option<String>,
    /// Call id (first fragment only).
    pub id: Option<String>,
    /// Which call of the message.
    pub index: u32,
    /// Always `tool_call_chunk`.
    #[serde(rename = "type", default = "tool_call_chunk_type")]
    pub kind: String,
}

fn tool_call_chunk_type() -> String {
    "tool_call_chunk".into()
}

/// A streamed piece of an AI message (`type: AIMessageChunk`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AiMessageChunk {
    /// Always `AIMessageChunk`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The message this chunk belongs to.
    pub id: String,
    /// A fragment of the text.
    pub content: String,
    /// Tool call fragments.
    #[serde(default)]
    pub tool_call_chunks: Vec<ToolCallChunk>,
    /// `reasoning_content` fragments.
    #[serde(default)]
    #[schema(value_type = Object)]
    pub additional_kwargs: Map<String, Value>,
    /// Set on the last chunk (`finish_reason`).
    #[serde(default)]
    #[schema(value_type = Object)]
    pub response_metadata: Map<String, Value>,
    /// Set on the last chunk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_metadata: Option<UsageMetadata>,
}
