//! Thread records and their directories.

use antler_protocol::threads::Thread;
use antler_sandbox::ThreadDirs;
use antler_sandbox::paths::LOCAL_OWNER;
use antler_store::ThreadRecord;
use antler_store::threads::timestamp;

use super::App;
use crate::error::AppError;

impl App {
    /// The owner of requests until authentication arrives.
    pub fn owner(&self) -> &'static str {
        LOCAL_OWNER
    }

    /// Host directories of a thread.
    pub fn thread_dirs(&self, thread_id: &str) -> ThreadDirs {
        ThreadDirs::new(&self.config.data_dir, self.owner(), thread_id)
    }

    /// The thread, or 404.
    pub async fn require_thread(&self, thread_id: &str) -> Result<ThreadRecord, AppError> {
        self.store
            .threads
            .get(self.owner(), thread_id)
            .await?
            .ok_or_else(|| AppError::not_found(format!("no thread '{thread_id}'")))
    }

    /// The thread's directories after checking it exists (for reading: not created).
    pub async fn existing_thread_dirs(&self, thread_id: &str) -> Result<ThreadDirs, AppError> {
        self.require_thread(thread_id).await?;
        Ok(self.thread_dirs(thread_id))
    }

    /// The thread's directories after checking it exists, created when missing.
    pub async fn thread_files(&self, thread_id: &str) -> Result<ThreadDirs, AppError> {
        self.require_thread(thread_id).await?;
        self.create_thread_dirs(thread_id).await
    }

    /// Creates the thread's directories (the thread is known to exist).
    pub(crate) async fn create_thread_dirs(&self, thread_id: &str) -> Result<ThreadDirs, AppError> {
        let dirs = self.thread_dirs(thread_id);
        let create = dirs.clone();
        tokio::task::spawn_blocking(move || create.create())
            .await?
            .map_err(AppError::internal)?;
        Ok(dirs)
    }
}

/// The wire shape of a stored thread (stored values that do not parse are a server error).
pub(crate) fn thread_json(t: ThreadRecord) -> Result<Thread, AppError> {
    Ok(Thread {
        values: stored_values(&t.values)?,
        thread_id: t.thread_id,
        created_at: timestamp(t.created_at),
        updated_at: timestamp(t.updated_at),
        metadata: t.metadata,
        status: t.status,
    })
}

/// Stored thread values, or a 500 whose cause is logged.
pub(crate) fn stored_values(
    values: &serde_json::Value,
) -> Result<antler_protocol::threads::ThreadValues, AppError> {
    antler_protocol::threads::ThreadValues::from_value(values)
        .map_err(|e| AppError::internal(anyhow::anyhow!("stored thread values do not parse: {e}")))
}
