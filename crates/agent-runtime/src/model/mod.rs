//! The model client: OpenAI-compatible Chat Completions with streaming.
//!
//! Establishing the call retries 429, 5xx and connection failures with exponential backoff
//! (honouring `Retry-After`) and reports each retry. Once the stream is open, a spawned task
//! decodes it (a maintained SSE decoder, `eventsource-stream`) and feeds typed events into a
//! channel; a chunk gap longer than the idle timeout, or a stream that closes before
//! `finish_reason`, is an error (never silently a shorter answer).

pub mod decode;
pub mod retry;
pub mod wire;

use std::time::Duration;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::config::ModelConfig;
use decode::Accumulator;
pub use decode::{AssembledCall, Delta, Turn};
use wire::{ChatChunk, ChatRequest, ErrorBody, Usage};

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
        Ok(ModelClient { http, cfg })
    }

    /// The configuration.
    pub fn config(&self) -> &ModelConfig {
        &self.cfg
    }

    fn request(
        &self,
        messages: Vec<Value>,
        tools: Vec<Value>,
        max_tokens: Option<u32>,
    ) -> ChatRequest {
        ChatRequest {
            model: self.cfg.model.clone(),
            messages,
            tools,
            stream: true,
            stream_options: Some(json!({"include_usage": true})),
            max_tokens: max_tokens.or(self.cfg.max_tokens),
            temperature: self.cfg.temperature,
        }
    }

    /// Starts a streaming call.
    pub async fn stream(
        &self,
        messages: Vec<Value>,
        tools: Vec<Value>,
        max_tokens: Option<u32>,
        cancel: &CancellationToken,
        on_retry: &(dyn Fn(RetryNotice) + Send + Sync),
    ) -> Result<ModelStream, ModelError> {
        let body = self.request(messages, tools, max_tokens);
        let response = self.send_with_retry(&body, cancel, on_retry).await?;
        let (tx, rx) = mpsc::channel(256);
        let idle = Duration::from_secs(self.cfg.idle_timeout_secs.max(1));
        let cancel = cancel.clone();
        tokio::spawn(async move {
            let result = pump(response, &tx, idle, &cancel).await;
            let _ = tx.send(result).await;
        });
        Ok(rx)
    }

    /// A whole answer (streamed internally), for short calls such as titles.
    pub async fn complete(
        &self,
        messages: Vec<Value>,
        max_tokens: Option<u32>,
        cancel: &CancellationToken,
    ) -> Result<Completion, ModelError> {
        let mut rx = self
            .stream(messages, Vec::new(), max_tokens, cancel, &|_| {})
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

    async fn send_with_retry(
        &self,
        body: &ChatRequest,
        cancel: &CancellationToken,
        on_retry: &(dyn Fn(RetryNotice) + Send + Sync),
    ) -> Result<reqwest::Response, ModelError> {
        let url = format!(
            "{}/chat/completions",
            self.cfg.base_url.trim_end_matches('/')
        );
        let key = self
            .cfg
            .api_key_env
            .as_deref()
            .and_then(|var| std::env::var(var).ok())
            .filter(|k| !k.is_empty());
        let start_timeout = Duration::from_secs(self.cfg.request_timeout_secs.max(1));
        let mut schedule = retry::schedule(
            self.cfg.retry_base_ms,
            self.cfg.retry_max_ms,
            self.cfg.max_retries,
        );
        let mut attempt = 0u32;
        loop {
            let mut request = self.http.post(&url).json(body);
            if let Some(key) = &key {
                request = request.bearer_auth(key);
            }
            let sent = tokio::select! {
                () = cancel.cancelled() => return Err(ModelError::Cancelled),
                r = tokio::time::timeout(start_timeout, request.send()) => r,
            };
            let (reason, headers) = match sent {
                Ok(Ok(response)) if response.status().is_success() => return Ok(response),
                Ok(Ok(response)) => {
                    let status = response.status();
                    let headers = response.headers().clone();
                    let text = response.text().await.unwrap_or_default();
                    let message = serde_json::from_str::<ErrorBody>(&text)
                        .ok()
                        .and_then(|b| b.error)
                        .and_then(|e| e.message)
                        .unwrap_or_else(|| text.chars().take(500).collect());
                    if !retry::retryable(status) || attempt >= self.cfg.max_retries {
                        return Err(ModelError::Status {
                            status: status.as_u16(),
                            message,
                        });
                    }
                    (format!("{status}: {message}"), Some(headers))
                }
                Ok(Err(e)) => {
                    if attempt >= self.cfg.max_retries {
                        return Err(ModelError::Connect(e.to_string()));
                    }
                    (format!("connection failed: {e}"), None)
                }
                Err(_) => {
                    if attempt >= self.cfg.max_retries {
                        return Err(ModelError::Connect(format!(
                            "no response within {}s",
                            start_timeout.as_secs()
                        )));
                    }
                    (
                        format!("no response within {}s", start_timeout.as_secs()),
                        None,
                    )
                }
            };
            attempt += 1;
            let Some(wait) =
                retry::next_delay(&mut schedule, headers.as_ref(), self.cfg.retry_max_ms)
            else {
                return Err(ModelError::Connect(reason));
            };
            tracing::warn!(attempt, delay_ms = wait.as_millis() as u64, %reason, "model call failed; retrying");
            on_retry(RetryNotice {
                attempt,
                max_retries: self.cfg.max_retries,
                delay: wait,
                reason,
            });
            tokio::select! {
                () = cancel.cancelled() => return Err(ModelError::Cancelled),
                () = tokio::time::sleep(wait) => {}
            }
        }
    }
}

/// Reads the SSE body into events until `[DONE]` or the end; returns the final event.
async fn pump(
    response: reqwest::Response,
    tx: &mpsc::Sender<Result<ModelEvent, ModelError>>,
    idle: Duration,
    cancel: &CancellationToken,
) -> Result<ModelEvent, ModelError> {
    let mut events = response.bytes_stream().eventsource();
    let mut acc = Accumulator::default();
    loop {
        let next = tokio::select! {
            () = cancel.cancelled() => return Err(ModelError::Cancelled),
            n = tokio::time::timeout(idle, events.next()) => n,
        };
        let event = match next {
            Err(_) => return Err(ModelError::Idle(idle.as_secs())),
            Ok(None) => break,
            Ok(Some(Err(e))) => {
                return Err(ModelError::Incomplete(format!(
                    "the model stream broke off: {e}"
                )));
            }
            Ok(Some(Ok(event))) => event,
        };
        let data = event.data.trim();
        if data == "[DONE]" {
            break;
        }
        if data.is_empty() {
            continue;
        }
        let chunk: ChatChunk =
            serde_json::from_str(data).map_err(|e| ModelError::Decode(e.to_string()))?;
        for delta in acc.push(chunk) {
            if tx.send(Ok(ModelEvent::Delta(delta))).await.is_err() {
                return Err(ModelError::Cancelled);
            }
        }
    }
    let usage = acc.usage;
    let model = acc.model.clone();
    let turns = acc
        .finish()
        .map_err(|e| ModelError::Incomplete(e.to_string()))?;
    let turn = turns.into_iter().next().unwrap_or_default();
    Ok(ModelEvent::Done(Completion { turn, usage, model }))
}
