//! What the database holds and how busy its pool is, for `/metrics`.

use async_trait::async_trait;

use crate::StoreError;

/// Lengths of the work queues kept in the database.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueueLengths {
    /// Conversations waiting for memory extraction (claimed ones included).
    pub memory_extraction: u64,
    /// Enabled crons whose next run is due now.
    pub crons_due: u64,
}

/// Connections of the pool (both of SQLite's pools together).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Open connections.
    pub size: u32,
    /// Of those, idle ones.
    pub idle: u32,
    /// Most connections it opens.
    pub max: u32,
}

/// Figures for `/metrics`.
#[async_trait]
pub trait StatsRepo: Send + Sync {
    /// The queues' lengths now.
    async fn queue_lengths(&self) -> Result<QueueLengths, StoreError>;
    /// The pool's connections now.
    fn pool(&self) -> PoolStats;
}
