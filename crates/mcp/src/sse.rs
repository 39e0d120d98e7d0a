//! The older HTTP+SSE transport (MCP 2024-11-05), which `rmcp` no longer ships: a `GET`
//! opens an event stream whose first `endpoint` event names where to `POST` messages; the
//! server's messages arrive as `message` events on that stream.

use std::sync::Arc;
use std::time::Duration;

use eventsource_stream::Eventsource as _;
use futures::StreamExt as _;
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::mpsc;

use crate::types::McpError;

/// Why sending failed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SseError(String);

/// A connected SSE session.
pub struct SseTransport {
    client: reqwest::Client,
    headers: reqwest::header::HeaderMap,
    post_url: Arc<str>,
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleClient>>,
    reader: tokio::task::JoinHandle<()>,
}

impl SseTransport {
    /// Opens the event stream at `url` and waits (up to `timeout`) for its `endpoint`.
    pub async fn connect(
        url: &str,
        headers: reqwest::header::HeaderMap,
        timeout: Duration,
    ) -> Result<Self, McpError> {
        let unavailable = |why: String| McpError::Unavailable(why);
        let base = url::Url::parse(url).map_err(|e| unavailable(format!("url: {e}")))?;
        let client = reqwest::Client::builder()
            .connect_timeout(timeout)
            .build()
            .map_err(|e| unavailable(e.to_string()))?;
        let response = client
            .get(base.clone())
            .headers(headers.clone())
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .send()
            .await
            .and_then(reqwest::Response::error_for_status)
            .map_err(|e| unavailable(format!("GET {base}: {e}")))?;
        let mut events = response.bytes_stream().eventsource();
        let endpoint = tokio::time::timeout(timeout, async {
            while let Some(event) = events.next().await {
                match event {
                    Ok(e) if e.event == "endpoint" => return Some(e.data),
                    Ok(_) => continue,
                    Err(_) => return None,
                }
            }
            None
        })
        .await
        .ok()
        .flatten()
        .ok_or_else(|| unavailable("the server sent no endpoint event".into()))?;
        let post_url = base
            .join(endpoint.trim())
            .map_err(|e| unavailable(format!("endpoint {endpoint:?}: {e}")))?;
        // The configured headers (credentials) go to the configured server only.
        if post_url.origin() != base.origin() {
            return Err(unavailable(format!(
                "the server named an endpoint on another origin ({})",
                post_url.origin().ascii_serialization()
            )));
        }
        let (tx, incoming) = mpsc::channel(64);
        let reader = tokio::spawn(async move {
            while let Some(event) = events.next().await {
                let Ok(event) = event else { break };
                if event.event != "message" && !event.event.is_empty() {
                    continue;
                }
                match serde_json::from_str::<RxJsonRpcMessage<RoleClient>>(&event.data) {
                    Ok(message) => {
                        if tx.send(message).await.is_err() {
                            break;
                        }
                    }
                    Err(e) => {
                        tracing::debug!(error = %e, "an SSE message that is not JSON-RPC was skipped")
                    }
                }
            }
            // Dropping the sender ends `receive`: the session is over.
        });
        Ok(SseTransport {
            client,
            headers,
            post_url: post_url.as_str().into(),
            incoming,
            reader,
        })
    }
}

impl Transport<RoleClient> for SseTransport {
    type Error = SseError;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), SseError>> + Send + 'static {
        let (client, headers, url) = (
            self.client.clone(),
            self.headers.clone(),
            self.post_url.clone(),
        );
        async move {
            client
                .post(&*url)
                .headers(headers)
                .json(&item)
                .send()
                .await
                .and_then(reqwest::Response::error_for_status)
                .map(|_| ())
                .map_err(|e| SseError(format!("POST {url}: {e}")))
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), SseError> {
        self.reader.abort();
        Ok(())
    }
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}
