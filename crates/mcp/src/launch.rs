//! Stdio servers started somewhere other than the host: inside a thread's sandbox, where a
//! server sees only that thread's files and has no network.

use std::pin::Pin;

use async_trait::async_trait;
use tokio::io::{AsyncRead, AsyncWrite};

/// A started server's pipes.
pub struct Launched {
    /// What the server writes (its standard output).
    pub stdout: Pin<Box<dyn AsyncRead + Send>>,
    /// What the server reads (its standard input).
    pub stdin: Pin<Box<dyn AsyncWrite + Send>>,
    /// Stops the server (and what it started) when dropped.
    pub stop: Box<dyn Send + Sync>,
}

impl std::fmt::Debug for Launched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Launched").finish_non_exhaustive()
    }
}

/// Starts `sandboxed` servers for one thread.
#[async_trait]
pub trait Launcher: Send + Sync {
    /// What a started server belongs to (the thread): one instance per scope.
    fn scope(&self) -> &str;
    /// Whose the scope is: what one person's sandbox made of a server's tools is offered
    /// to that person's runs only.
    fn owner(&self) -> &str;
    /// Keeps the scope's sandbox from being reaped while a call works in it.
    async fn hold(&self) {}
    /// Starts `argv` with `env`; the error says why it could not.
    async fn launch(&self, argv: &[String], env: &[(String, String)]) -> Result<Launched, String>;
}
