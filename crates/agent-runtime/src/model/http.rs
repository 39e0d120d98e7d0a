//! The HTTP side every wire format shares: establishing a streaming call with retries, and
//! reading its SSE body through a format's decoder with an idle timeout.

use std::time::Duration;

use eventsource_stream::{Event, Eventsource};
use futures::StreamExt;
use reqwest::header::HeaderMap;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::wire::ErrorBody;
use super::{Completion, Delta, ModelError, ModelEvent, RetryNotice, retry};
use crate::config::ModelConfig;

/// A wire format's stream decoder.
pub(crate) trait StreamDecoder: Send + 'static {
    /// Takes one SSE event; answers what it added and whether the stream is complete.
    fn push(&mut self, event: &Event) -> Result<(Vec<Delta>, bool), ModelError>;
    /// The finished answer; an error when the stream ended before it was complete.
    fn finish(self) -> Result<Completion, ModelError>;
}

/// POSTs `body` to `url` with `headers`, retrying 429, 5xx (Anthropic's 529 included) and
/// connection failures with backoff (`Retry-After` wins); answers the successful response.
pub(crate) async fn send_with_retry<B: serde::Serialize + Sync + ?Sized>(
    http: &reqwest::Client,
    cfg: &ModelConfig,
    url: &str,
    headers: HeaderMap,
    body: &B,
    cancel: &CancellationToken,
    on_retry: &(dyn Fn(RetryNotice) + Send + Sync),
) -> Result<reqwest::Response, ModelError> {
    let start_timeout = Duration::from_secs(cfg.request_timeout_secs.max(1));
    let mut schedule = retry::schedule(cfg.retry_base_ms, cfg.retry_max_ms, cfg.max_retries);
    let mut attempt = 0u32;
    loop {
        let request = http.post(url).headers(headers.clone()).json(body);
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
                // OpenAI's `{"error": {"message"}}` and Anthropic's
                // `{"type": "error", "error": {"type", "message"}}` alike.
                let message = serde_json::from_str::<ErrorBody>(&text)
                    .ok()
                    .and_then(|b| b.error)
                    .and_then(|e| e.message)
                    .unwrap_or_else(|| text.chars().take(500).collect());
                if !retry::retryable(status) || attempt >= cfg.max_retries {
                    return Err(ModelError::Status {
                        status: status.as_u16(),
                        message,
                    });
                }
                (format!("{status}: {message}"), Some(headers))
            }
            Ok(Err(e)) => {
                if attempt >= cfg.max_retries {
                    return Err(ModelError::Connect(e.to_string()));
                }
                (format!("connection failed: {e}"), None)
            }
            Err(_) => {
                let why = format!("no response within {}s", start_timeout.as_secs());
                if attempt >= cfg.max_retries {
                    return Err(ModelError::Connect(why));
                }
                (why, None)
            }
        };
        attempt += 1;
        let Some(wait) = retry::next_delay(&mut schedule, headers.as_ref(), cfg.retry_max_ms)
        else {
            return Err(ModelError::Connect(reason));
        };
        tracing::warn!(attempt, delay_ms = wait.as_millis() as u64, %reason, "model call failed; retrying");
        on_retry(RetryNotice {
            attempt,
            max_retries: cfg.max_retries,
            delay: wait,
            reason,
        });
        tokio::select! {
            () = cancel.cancelled() => return Err(ModelError::Cancelled),
            () = tokio::time::sleep(wait) => {}
        }
    }
}

/// Decodes `response` on a spawned task; its events arrive on the returned channel.
pub(crate) fn spawn_pump<D: StreamDecoder>(
    response: reqwest::Response,
    decoder: D,
    idle: Duration,
    cancel: &CancellationToken,
) -> super::ModelStream {
    let (tx, rx) = mpsc::channel(256);
    let cancel = cancel.clone();
    tokio::spawn(async move {
        let result = pump(response, decoder, &tx, idle, &cancel).await;
        let _ = tx.send(result).await;
    });
    rx
}

/// Reads the SSE body into events until the decoder says the answer is complete or the body
/// ends; returns the final event.
async fn pump<D: StreamDecoder>(
    response: reqwest::Response,
    mut decoder: D,
    tx: &mpsc::Sender<Result<ModelEvent, ModelError>>,
    idle: Duration,
    cancel: &CancellationToken,
) -> Result<ModelEvent, ModelError> {
    let mut events = response.bytes_stream().eventsource();
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
        let (deltas, complete) = decoder.push(&event)?;
        for delta in deltas {
            if tx.send(Ok(ModelEvent::Delta(delta))).await.is_err() {
                return Err(ModelError::Cancelled);
            }
        }
        if complete {
            break;
        }
    }
    decoder.finish().map(ModelEvent::Done)
}
