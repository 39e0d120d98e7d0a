//! Copying a thread (records, history and files), counting and pruning threads.

use std::io;
use std::path::Path;

use antler_protocol::threads::{CountThreads, PruneStrategy, PruneThreads, Thread};
use antler_sandbox::FileAccess;
use antler_sandbox::paths::UserDataDir;
use antler_store::ThreadQuery;

use crate::Caller;
use crate::threads::{MAX_SEARCH_LIMIT, ThreadError, ThreadsService, check_id};

impl crate::App {
    /// Copies the caller's thread ([`ThreadsService::copy`]) unless their conversations are
    /// over their storage quota: a copy stores the history again, so it counts like a run.
    pub async fn copy_thread(
        &self,
        caller: &Caller,
        id: &str,
    ) -> Result<Thread, crate::RunOpError> {
        self.threads.record(caller, id).await?;
        self.runs.check_quota(caller).await?;
        Ok(self.threads.copy(caller, id).await?)
    }
}

impl ThreadsService {
    /// Copies the caller's thread to a new thread of theirs: metadata, values, the whole
    /// checkpoint history (new ids, the same tree) and its files. A run in progress on the
    /// source is not copied: the copy holds the state before it (what was last committed
    /// by a finished run), so it never continues half a step.
    pub async fn copy(&self, caller: &Caller, id: &str) -> Result<Thread, ThreadError> {
        self.record(caller, id).await?;
        let store = self.store();
        let active: Vec<String> = store
            .runs
            .active(id)
            .await?
            .into_iter()
            .map(|r| r.run_id)
            .collect();
        let target = uuid::Uuid::new_v4().to_string();
        let record = store
            .threads
            .copy(caller.owner(), id, &target, &active)
            .await?
            .ok_or_else(|| ThreadError::NotFound(id.to_string()))?;
        let from = self.dirs(id);
        let to = self.dirs(&target);
        let access = self.sandbox_access();
        let copied = tokio::task::spawn_blocking(move || {
            // A thread that never had a file has no folders; its copy has none either.
            if std::fs::symlink_metadata(from.user_data()).is_err() {
                return Ok(());
            }
            to.create()?;
            for dir in UserDataDir::ALL {
                copy_tree(&from.dir(dir), &to.dir(dir), access)?;
            }
            antler_sandbox::storage::give_dirs(to.user_data(), access)
        })
        .await?;
        if let Err(error) = copied {
            // Half a copy is no copy: the new thread goes again.
            tracing::error!(thread.id = %id, copy.id = %target, %error, "thread files could not be copied");
            if let Err(e) = self.delete(caller, &target).await {
                tracing::error!(thread.id = %target, error = %e, "partial thread copy could not be removed");
            }
            return Err(ThreadError::Io(error));
        }
        tracing::info!(thread.id = %id, copy.id = %target, skipped_runs = active.len(), "thread copied");
        self.to_wire(record).await
    }

    /// How many of the caller's threads match the filters.
    pub async fn count(&self, caller: &Caller, req: CountThreads) -> Result<u64, ThreadError> {
        let query = ThreadQuery {
            metadata: req.metadata.unwrap_or_default(),
            values: req.values.unwrap_or_default(),
            status: req.status,
            ..ThreadQuery::default()
        };
        Ok(self.store().threads.count(caller.owner(), &query).await?)
    }

    /// Prunes the caller's threads among `req.thread_ids` (others are skipped): `delete`
    /// deletes them as `DELETE` does, `keep_latest` keeps each thread with only its newest
    /// checkpoint (a thread with a run in progress is skipped: the run continues from its
    /// checkpoints). Answers how many were pruned.
    pub async fn prune(&self, caller: &Caller, req: PruneThreads) -> Result<u64, ThreadError> {
        if req.thread_ids.len() > MAX_SEARCH_LIMIT as usize {
            return Err(ThreadError::Invalid(format!(
                "at most {MAX_SEARCH_LIMIT} thread_ids at once, not {}",
                req.thread_ids.len()
            )));
        }
        for id in &req.thread_ids {
            check_id(id)?;
        }
        let mut pruned = 0;
        for id in &req.thread_ids {
            let result = match req.strategy.unwrap_or_default() {
                PruneStrategy::Delete => self.delete(caller, id).await.map(|()| true),
                PruneStrategy::KeepLatest => self.keep_latest(caller, id).await,
            };
            match result {
                Ok(true) => pruned += 1,
                Ok(false) | Err(ThreadError::NotFound(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(pruned)
    }

    async fn keep_latest(&self, caller: &Caller, id: &str) -> Result<bool, ThreadError> {
        self.record(caller, id).await?;
        let store = self.store();
        if !store.runs.active(id).await?.is_empty() {
            return Ok(false);
        }
        store.state.keep_latest(id).await?;
        Ok(true)
    }
}

/// Copies the files and directories under `from` into `to` (created). Links are not
/// followed and not copied: a link an agent made in its sandbox could point anywhere on the
/// host.
fn copy_tree(from: &Path, to: &Path, access: FileAccess) -> io::Result<()> {
    let entries = match std::fs::read_dir(from) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    std::fs::create_dir_all(to)?;
    access.dir_at(to)?;
    for entry in entries {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target, access)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
            access.file(std::fs::File::open(&target)?)?;
        }
    }
    Ok(())
}
