use std::time::Duration;

use async_trait::async_trait;
use sqlx::PgPool;
use sqlx::postgres::PgListener;
use tokio::sync::broadcast;

use crate::StoreError;
use crate::bus::{Bus, Notice, Topic};

/// `LISTEN/NOTIFY` on the shared database.
pub(crate) struct PgBus {
    pool: PgPool,
    tx: broadcast::Sender<Notice>,
    /// The listener's task, stopped with the bus (it holds a pooled connection).
    task: tokio::task::JoinHandle<()>,
}

impl Drop for PgBus {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl PgBus {
    /// Starts listening on every topic's channel.
    pub(crate) async fn start(pool: PgPool) -> Result<Self, StoreError> {
        let (tx, _) = broadcast::channel(4096);
        let mut listener = PgListener::connect_with(&pool).await?;
        listener
            .listen_all(Topic::ALL.iter().map(|t| t.channel()))
            .await?;
        let forward = tx.clone();
        let task = tokio::spawn(async move {
            loop {
                match listener.try_recv().await {
                    Ok(Some(n)) => {
                        if let Some(topic) = Topic::from_channel(n.channel()) {
                            let _ = forward.send(Notice {
                                topic,
                                payload: n.payload().to_string(),
                            });
                        }
                    }
                    // The connection dropped and is back: notices sent meanwhile are gone.
                    Ok(None) => resync(&forward),
                    Err(error) => {
                        tracing::warn!(%error, "database notification listener failed; reconnecting");
                        tokio::time::sleep(Duration::from_millis(500)).await;
                        // Any statement reconnects (and re-LISTENs) now rather than on the
                        // next notice, so the resync follows the reconnection.
                        if sqlx::query("SELECT 1").execute(&mut listener).await.is_ok() {
                            resync(&forward);
                        }
                    }
                }
            }
        });
        Ok(PgBus { pool, tx, task })
    }
}

/// Tells every reader that notices may have been missed.
fn resync(forward: &broadcast::Sender<Notice>) {
    tracing::info!("database notification listener reconnected");
    for topic in Topic::ALL {
        let _ = forward.send(Notice {
            topic,
            payload: String::new(),
        });
    }
}

#[async_trait]
impl Bus for PgBus {
    async fn publish(&self, topic: Topic, payload: &str) -> Result<(), StoreError> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(topic.channel())
            .bind(payload)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    fn subscribe(&self) -> broadcast::Receiver<Notice> {
        self.tx.subscribe()
    }

    fn shared(&self) -> bool {
        true
    }
}
