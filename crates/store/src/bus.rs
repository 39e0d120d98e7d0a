//! Notifications between server processes: events appended to a run, a run to cancel,
//! skills changed. PostgreSQL carries them with `LISTEN/NOTIFY` between replicas; with
//! SQLite (one process) they stay in the process.

use async_trait::async_trait;
use tokio::sync::broadcast;

use crate::StoreError;

/// What a notice is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Topic {
    /// New events of a run were stored; payload `<run_id>:<last seq>`.
    RunEvents,
    /// A run should stop; payload `<run_id>`.
    RunCancel,
    /// Skills were toggled, installed, deleted or reloaded; payload: the sending instance.
    Skills,
    /// A session or token was revoked, or an account changed; payload: the sending instance.
    Credentials,
    /// The MCP servers' configuration changed; payload: the sending instance.
    Mcp,
}

impl Topic {
    /// Every topic.
    pub const ALL: [Topic; 5] = [
        Topic::RunEvents,
        Topic::RunCancel,
        Topic::Skills,
        Topic::Credentials,
        Topic::Mcp,
    ];

    /// The `LISTEN` channel name.
    pub fn channel(self) -> &'static str {
        match self {
            Topic::RunEvents => "antler_run_events",
            Topic::RunCancel => "antler_run_cancel",
            Topic::Skills => "antler_skills",
            Topic::Credentials => "antler_credentials",
            Topic::Mcp => "antler_mcp",
        }
    }

    /// The topic of a channel name.
    pub fn from_channel(name: &str) -> Option<Self> {
        Topic::ALL.into_iter().find(|t| t.channel() == name)
    }
}

/// One notice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// What it is about.
    pub topic: Topic,
    /// Details (see [`Topic`]). Empty after the connection carrying notices was lost and
    /// re-established: some may have been missed, so readers re-read what they follow.
    pub payload: String,
}

/// Publishes and receives notices.
#[async_trait]
pub trait Bus: Send + Sync + 'static {
    /// Sends a notice to every process (this one included).
    async fn publish(&self, topic: Topic, payload: &str) -> Result<(), StoreError>;
    /// Receives notices from now on.
    fn subscribe(&self) -> broadcast::Receiver<Notice>;
    /// True when other processes share this database (notices cross processes).
    fn shared(&self) -> bool;
}

/// The in-process bus (SQLite: a single server process).
pub struct LocalBus {
    tx: broadcast::Sender<Notice>,
}

impl Default for LocalBus {
    fn default() -> Self {
        LocalBus {
            tx: broadcast::channel(1024).0,
        }
    }
}

#[async_trait]
impl Bus for LocalBus {
    async fn publish(&self, topic: Topic, payload: &str) -> Result<(), StoreError> {
        let _ = self.tx.send(Notice {
            topic,
            payload: payload.to_string(),
        });
        Ok(())
    }

    fn subscribe(&self) -> broadcast::Receiver<Notice> {
        self.tx.subscribe()
    }

    fn shared(&self) -> bool {
        false
    }
}
