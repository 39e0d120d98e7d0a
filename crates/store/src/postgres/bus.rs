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
        tokio::spawn(async move {
            loop {
                match listener.recv().await {
                    Ok(n) => {
                        if let Some(topic) = Topic::from_channel(n.channel()) {
                            let _ = forward.send(Notice {
                                topic,
                                payload: n.payload().to_string(),
                            });
                        }
                    }
                    Err(error) => {
                        // The listener reconnects on the next recv; notices sent meanwhile are
                        // lost, which readers cover by also polling.
                        tracing::warn!(%error, "database notification listener failed; reconnecting");
                        tokio::time::sleep(Duration::from_millis(500)).await;
                    }
                }
            }
        });
        Ok(PgBus { pool, tx })
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
