//! Connections through `rmcp`: a child process speaking MCP on stdio (a clean environment,
//! its own process group, stopped with its children), or streamable HTTP.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures::StreamExt as _;
use rmcp::handler::client::progress::ProgressDispatcher;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientCapabilities,
    ClientConfig, ClientRequest, ContentBlock, Implementation, ProgressNotificationParam,
    ProtocolVersion, ResourceContents, ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::transport::common::client_side_sse::ExponentialBackoff;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, Peer, RoleClient, ServiceError, ServiceExt as _};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::env::expand;
use crate::hub::{ChangeSink, Connection, Connector, ProgressSink};
use crate::launch::Launcher;
use crate::types::{CallResult, Content, McpError, Progress, ToolInfo};
use crate::{ServerConfig, Transport};

/// Opens real connections; stdio servers run in `work_dir/<server>`.
#[derive(Debug, Clone)]
pub struct RmcpConnector {
    work_dir: PathBuf,
}

impl RmcpConnector {
    /// Stdio servers get a working directory under `work_dir`.
    pub fn new(work_dir: PathBuf) -> Self {
        RmcpConnector { work_dir }
    }
}

/// Receives the server's notifications.
#[derive(Clone)]
struct Handler {
    progress: ProgressDispatcher,
    on_change: ChangeSink,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        // No roots, sampling or elicitation: servers then offer only what needs none.
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("antler", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _ctx: NotificationContext<RoleClient>,
    ) {
        self.progress.handle_notification(params).await;
    }

    async fn on_tool_list_changed(&self, _ctx: NotificationContext<RoleClient>) {
        (self.on_change)();
    }
}

struct RmcpConnection {
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, Handler>>>,
    peer: Peer<RoleClient>,
    progress: ProgressDispatcher,
    /// The stdio server's process group, killed with everything it started (once).
    group: ProcessGroup,
    /// A sandboxed server's stopper, dropped to stop it.
    stop: std::sync::Mutex<Option<Box<dyn Send + Sync>>>,
}

fn lookup(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

fn unavailable(what: &str, e: impl std::fmt::Display) -> McpError {
    McpError::Unavailable(format!("{what}: {e}"))
}

#[async_trait]
impl Connector for RmcpConnector {
    async fn connect(
        &self,
        name: &str,
        config: &ServerConfig,
        on_change: ChangeSink,
        launcher: Option<&dyn Launcher>,
    ) -> Result<Arc<dyn Connection>, McpError> {
        let handler = Handler {
            progress: ProgressDispatcher::new(),
            on_change,
        };
        let progress = handler.progress.clone();
        let mut stop = None;
        let (service, group) = match config.transport {
            Transport::Stdio if config.sandboxed => {
                let launcher = launcher.ok_or_else(|| {
                    McpError::Unavailable(
                        "it runs in a thread's sandbox, and there is none here".into(),
                    )
                })?;
                let mut argv = vec![config.command.clone().unwrap_or_default()];
                argv.extend(config.args.iter().cloned());
                let launched = launcher
                    .launch(&argv, &expanded_env(config)?)
                    .await
                    .map_err(|e| unavailable("cannot start it in the sandbox", e))?;
                // Dropped (stopping the server) if initialisation fails.
                let stopper = launched.stop;
                let service = handler
                    .serve((launched.stdout, launched.stdin))
                    .await
                    .map_err(|e| unavailable("initialize failed", e))?;
                stop = Some(stopper);
                (service, ProcessGroup::new(None))
            }
            Transport::Stdio => {
                let (transport, group) = self.spawn(name, config)?;
                // A start that fails or times out (this future dropped) kills what the server
                // started too, not only the direct child.
                let group = ProcessGroup::new(group);
                let service = handler
                    .serve(transport)
                    .await
                    .map_err(|e| unavailable("initialize failed", e))?;
                (service, group)
            }
            Transport::StreamableHttp => {
                let transport = StreamableHttpClientTransport::from_config(http_config(config)?);
                let service = handler
                    .serve(transport)
                    .await
                    .map_err(|e| unavailable("initialize failed", e))?;
                (service, ProcessGroup::new(None))
            }
            Transport::Sse => {
                let headers = headers(config)?.into_iter().collect();
                let transport = crate::sse::SseTransport::connect(
                    config.url.as_deref().unwrap_or_default(),
                    headers,
                    Duration::from_secs(config.init_timeout_secs),
                )
                .await?;
                let service = handler
                    .serve(transport)
                    .await
                    .map_err(|e| unavailable("initialize failed", e))?;
                (service, ProcessGroup::new(None))
            }
        };
        let peer = service.peer().clone();
        Ok(Arc::new(RmcpConnection {
            service: tokio::sync::Mutex::new(Some(service)),
            peer,
            progress,
            group,
            stop: std::sync::Mutex::new(stop),
        }))
    }
}

impl RmcpConnector {
    /// Starts a stdio server: only its configured variables (plus `PATH` and `HOME`), its
    /// own working directory and process group, its stderr in our log.
    fn spawn(
        &self,
        name: &str,
        config: &ServerConfig,
    ) -> Result<(TokioChildProcess, Option<i32>), McpError> {
        let program = config.command.as_deref().unwrap_or_default();
        let dir = self.work_dir.join(name);
        std::fs::create_dir_all(&dir).map_err(|e| unavailable("working directory", e))?;
        let mut cmd = tokio::process::Command::new(program);
        cmd.args(&config.args)
            .env_clear()
            .current_dir(&dir)
            .process_group(0)
            .kill_on_drop(true);
        for keep in ["PATH", "HOME"] {
            if let Ok(v) = std::env::var(keep) {
                cmd.env(keep, v);
            }
        }
        cmd.envs(expanded_env(config)?);
        let (transport, stderr) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| unavailable(&format!("cannot start '{program}'"), e))?;
        let group = transport.id().and_then(|id| i32::try_from(id).ok());
        if let Some(stderr) = stderr {
            let server = name.to_string();
            tokio::spawn(async move {
                use tokio::io::AsyncBufReadExt as _;
                let mut lines = tokio::io::BufReader::new(stderr).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    tracing::debug!(mcp.server = %server, "{line}");
                }
            });
        }
        Ok((transport, group))
    }
}

/// The configured variables with theirs expanded.
fn expanded_env(config: &ServerConfig) -> Result<Vec<(String, String)>, McpError> {
    config
        .env
        .iter()
        .map(|(key, value)| {
            expand(value, lookup)
                .map(|v| (key.clone(), v))
                .map_err(|why| McpError::Unavailable(format!("env {key}: {why}")))
        })
        .collect()
}

/// Streamable HTTP with the configured headers (expanded), and a bounded number of
/// reconnects so a server that went away fails calls instead of hanging them.
fn http_config(config: &ServerConfig) -> Result<StreamableHttpClientTransportConfig, McpError> {
    let url = config.url.as_deref().unwrap_or_default();
    let headers: HashMap<_, _> = headers(config)?.into_iter().collect();
    let mut config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(headers);
    let mut backoff = ExponentialBackoff::default();
    backoff.max_times = Some(3);
    backoff.max_delay = Some(Duration::from_secs(5));
    config.retry_config = Arc::new(backoff);
    Ok(config)
}

/// The configured headers with their variables expanded.
fn headers(config: &ServerConfig) -> Result<Vec<(http::HeaderName, http::HeaderValue)>, McpError> {
    config
        .headers
        .iter()
        .map(|(key, value)| {
            let value = expand(value, lookup)
                .map_err(|why| McpError::Unavailable(format!("header {key}: {why}")))?;
            let name = http::HeaderName::try_from(key.as_str())
                .map_err(|e| unavailable(&format!("header name {key}"), e))?;
            let value = http::HeaderValue::try_from(value)
                .map_err(|e| unavailable(&format!("header {key}"), e))?;
            Ok((name, value))
        })
        .collect()
}

#[async_trait]
impl Connection for RmcpConnection {
    async fn list_tools(&self) -> Result<Vec<ToolInfo>, McpError> {
        let tools = self
            .peer
            .list_all_tools()
            .await
            .map_err(|e| failed("tools/list", e))?;
        Ok(tools
            .into_iter()
            .map(|t| ToolInfo {
                description: t
                    .description
                    .as_deref()
                    .or(t.title.as_deref())
                    .unwrap_or_default()
                    .to_string(),
                input_schema: Value::Object((*t.input_schema).clone()),
                name: t.name.into_owned(),
            })
            .collect())
    }

    async fn call(
        &self,
        tool: &str,
        args: Map<String, Value>,
        progress: ProgressSink,
        cancel: CancellationToken,
    ) -> Result<CallResult, McpError> {
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(args);
        let handle = self
            .peer
            .send_cancellable_request(
                ClientRequest::CallToolRequest(CallToolRequest::new(params)),
                PeerRequestOptions::no_options(),
            )
            .await
            .map_err(|e| failed("tools/call", e))?;
        let token = handle.progress_token.clone();
        let id = handle.id.clone();
        let mut updates = self.progress.subscribe(token.clone()).await;
        let response = handle.await_response();
        tokio::pin!(response);
        let outcome = loop {
            tokio::select! {
                r = &mut response => break r.map_err(|e| failed("tools/call", e)),
                Some(p) = updates.next() => progress(Progress {
                    progress: p.progress,
                    total: p.total,
                    message: p.message,
                }),
                () = cancel.cancelled() => {
                    // The server stops working on it; the answer, if any, is dropped.
                    let _ = self
                        .peer
                        .notify_cancelled(CancelledNotificationParam::new(
                            Some(id.clone()),
                            Some("the run was stopped".into()),
                        ))
                        .await;
                    break Err(McpError::Cancelled);
                }
            }
        };
        self.progress.unsubscribe(&token).await;
        match outcome? {
            ServerResult::CallToolResult(r) => Ok(CallResult {
                is_error: r.is_error.unwrap_or(false),
                content: r.content.into_iter().map(content).collect(),
            }),
            _ => Err(McpError::Failed(
                "the server answered tools/call with something else".into(),
            )),
        }
    }

    fn is_closed(&self) -> bool {
        self.peer.is_transport_closed()
    }

    async fn close(&self) {
        if let Some(service) = self.service.lock().await.take() {
            let _ = service.cancel().await;
        }
        // Whatever the server started (npx, shells) goes with it.
        self.group.kill();
        drop(
            self.stop
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take(),
        );
    }
}

/// A stdio server's process group: killed once, by `kill` or when dropped (never twice,
/// so a group id reused later is never touched).
struct ProcessGroup(std::sync::atomic::AtomicI32);

impl ProcessGroup {
    fn new(group: Option<i32>) -> Self {
        ProcessGroup(std::sync::atomic::AtomicI32::new(group.unwrap_or(0)))
    }

    fn kill(&self) {
        let group = self.0.swap(0, std::sync::atomic::Ordering::SeqCst);
        // 0 is "none"; `Pid::from_raw` refuses it (and never names init's group here:
        // process_group(0) makes the child its own group leader).
        if let Some(pid) =
            rustix::process::Pid::from_raw(group).filter(|p| p.as_raw_nonzero().get() > 1)
        {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.kill();
    }
}

fn failed(what: &str, e: ServiceError) -> McpError {
    match e {
        ServiceError::McpError(data) => McpError::Failed(format!("{what}: {}", data.message)),
        ServiceError::TransportClosed => {
            McpError::Failed("the connection to the server closed".into())
        }
        ServiceError::Cancelled { .. } => McpError::Cancelled,
        other => McpError::Failed(format!("{what}: {other}")),
    }
}

fn content(block: ContentBlock) -> Content {
    match block {
        ContentBlock::Text(t) => Content::Text(t.text),
        ContentBlock::Image(i) => Content::Image {
            mime_type: i.mime_type,
            data: i.data,
        },
        ContentBlock::Resource(r) => match r.resource {
            ResourceContents::TextResourceContents {
                uri,
                mime_type,
                text,
                ..
            } => Content::Resource {
                uri,
                text: Some(text),
                mime_type,
            },
            ResourceContents::BlobResourceContents { uri, mime_type, .. } => Content::Resource {
                uri,
                text: None,
                mime_type,
            },
            _ => Content::Other("a resource".into()),
        },
        ContentBlock::ResourceLink(l) => Content::Other(format!(
            "resource link {} ({})",
            l.uri,
            l.description.as_deref().unwrap_or(&l.name)
        )),
        ContentBlock::Audio(a) => Content::Other(format!("audio {}", a.mime_type)),
        _ => Content::Other("content of an unknown kind".into()),
    }
}
