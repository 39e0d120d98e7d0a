//! The model client: one [`ModelClient`] over two wire formats, OpenAI-compatible Chat
//! Completions ([`openai`]) and Anthropic Messages ([`anthropic`]), chosen by the model's
//! `provider`; both stream into the same [`ModelEvent`]s.
//!
//! Establishing the call retries 429, 5xx and connection failures with exponential backoff
//! (honouring `Retry-After`) and reports each retry. Once the stream is open, a spawned task
//! decodes it (a maintained SSE decoder, `eventsource-stream`) and feeds typed events into a
//! channel; a chunk gap longer than the idle timeout, or a stream that closes before
//! `finish_reason`, is an error (never silently a shorter answer).

pub mod anthropic;
pub mod decode;
mod http;
pub mod openai;
pub mod options;
pub mod retry;
pub mod wire;

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::config::{ModelConfig, Provider};
pub use decode::{AssembledCall, Delta, Turn};
pub use options::{CallOptions, Effort, Thinking};
use wire::Usage;

/// Why a model call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// No usable model configuration.
    #[error("no model is configured: {0}")]
    NotConfigured(String),
    /// The API answered with an error status (after retries, when retryable).
    #[error("the model API answered {status}: {message}")]
    Status {
        /// HTTP status.
        status: u16,
        /// The API's message.
        message: String,
    },
    /// The connection failed (after retries).
    #[error("cannot reach the model API: {0}")]
    Connect(String),
    /// No chunk arrived for too long.
    #[error("the model stream stalled: no data for {0} seconds")]
    Idle(u64),
    /// The stream closed before the answer was complete.
    #[error("{0}")]
    Incomplete(String),
    /// A chunk was not valid JSON of the expected shape.
    #[error("the model stream sent an unreadable chunk: {0}")]
    Decode(String),
    /// The run was cancelled.
    #[error("cancelled")]
    Cancelled,
}

impl ModelError {
    /// A short name for the kind of failure (a trace's `error.type`, a metric label).
    pub fn kind(&self) -> &'static str {
        match self {
            ModelError::NotConfigured(_) => "not_configured",
            ModelError::Status { .. } => "http_status",
            ModelError::Connect(_) => "connect",
            ModelError::Idle(_) => "idle_timeout",
            ModelError::Incomplete(_) => "incomplete",
            ModelError::Decode(_) => "decode",
            ModelError::Cancelled => "cancelled",
        }
    }
}

/// A retry about to happen (for the `llm_retry` event).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryNotice {
    /// The retry number (1-based).
    pub attempt: u32,
    /// Retries allowed.
    pub max_retries: u32,
    /// Wait before it.
    pub delay: Duration,
    /// What failed (`429 Too Many Requests`, a connection error).
    pub reason: String,
}

/// What the stream delivers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelEvent {
    /// A fragment of choice 0.
    Delta(Delta),
    /// The complete answer (last event).
    Done(Completion),
}

/// A finished call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Completion {
    /// The answer.
    pub turn: Turn,
    /// Token counts, when reported.
    pub usage: Option<Usage>,
    /// The model that answered.
    pub model: Option<String>,
}

/// Events of one streaming call.
pub type ModelStream = mpsc::Receiver<Result<ModelEvent, ModelError>>;

/// A client for one configured model.
#[derive(Debug, Clone)]
pub struct ModelClient {
    http: reqwest::Client,
    cfg: ModelConfig,
    /// Thinking asked of the agent's calls (a run's choice; off by default).
    thinking: Thinking,
}

impl AsRef<ModelConfig> for ModelClient {
    fn as_ref(&self) -> &ModelConfig {
        &self.cfg
    }
}

impl ModelClient {
    /// A client for `cfg`.
    pub fn new(cfg: ModelConfig) -> Result<Self, ModelError> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(15))
            .pool_idle_timeout(Duration::from_secs(60))
            .build()
            .map_err(|e| ModelError::NotConfigured(e.to_string()))?;
        Ok(ModelClient {
            http,
            cfg,
            thinking: Thinking::Off,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &ModelConfig {
        &self.cfg
    }

    /// The same client, its agent calls thinking as `thinking` asks (a run's choice;
    /// ignored by a model without `supports_thinking`).
    #[must_use]
    pub fn with_thinking(mut self, thinking: Thinking) -> Self {
        self.thinking = thinking;
        self
    }

    /// The thinking the agent's calls ask for (off unless the model can think).
    pub fn thinking(&self) -> Thinking {
        if self.cfg.supports_thinking {
            self.thinking
        } else {
            Thinking::Off
        }
    }

    /// Starts a streaming call. `messages` and `tools` are in the Chat Completions shape
    /// (assistant messages may carry Anthropic's `thinking_blocks`); each provider converts
    /// them to its own.
    pub async fn stream(
        &self,
        messages: Vec<Value>,
        tools: Vec<Arc<Value>>,
        options: CallOptions,
        cancel: &CancellationToken,
        on_retry: &(dyn Fn(RetryNotice) + Send + Sync),
    ) -> Result<ModelStream, ModelError> {
        let key = self
            .cfg
            .api_key_env
            .as_deref()
            .and_then(|var| std::env::var(var).ok())
            .filter(|k| !k.is_empty());
        let base = self.cfg.base_url.trim_end_matches('/');
        let idle = Duration::from_secs(self.cfg.idle_timeout_secs.max(1));
        match self.cfg.provider {
            Provider::Openai => {
                let body = openai::request(&self.cfg, messages, tools, options);
                let url = format!("{base}/chat/completions");
                let headers = openai::headers(key.as_deref());
                let response = http::send_with_retry(
                    &self.http, &self.cfg, &url, headers, &body, cancel, on_retry,
                )
                .await?;
                Ok(http::spawn_pump(
                    response,
                    openai::Decoder::default(),
                    idle,
                    cancel,
                ))
            }
            Provider::Anthropic => {
                let body = anthropic::request(&self.cfg, &messages, &tools, options);
                let url = format!("{base}/messages");
                let headers = anthropic::headers(key.as_deref());
                let response = http::send_with_retry(
                    &self.http, &self.cfg, &url, headers, &body, cancel, on_retry,
                )
                .await?;
                Ok(http::spawn_pump(
                    response,
                    anthropic::Decoder::default(),
                    idle,
                    cancel,
                ))
            }
        }
    }

    /// A whole answer (streamed internally, no thinking), for short calls such as titles.
    pub async fn complete(
        &self,
        messages: Vec<Value>,
        max_tokens: Option<u32>,
        cancel: &CancellationToken,
    ) -> Result<Completion, ModelError> {
        // The span is the caller's child from its creation (nothing nests under it).
        let observer = crate::telemetry::ModelCallObserver::start(&self.cfg, &messages);
        let answer = async {
            let mut rx = self
                .stream(
                    messages,
                    Vec::new(),
                    CallOptions::limit(max_tokens),
                    cancel,
                    &|_| {},
                )
                .await?;
            while let Some(event) = rx.recv().await {
                if let ModelEvent::Done(c) = event? {
                    return Ok(c);
                }
            }
            Err(ModelError::Incomplete(
                "the model stream ended without an answer".into(),
            ))
        }
        .await;
        match &answer {
            Ok(c) => drop(observer.done(c)),
            Err(e) => drop(observer.failed(e)),
        }
        answer
    }
}
