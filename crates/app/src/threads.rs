//! Conversation threads: records, their directories, and deleting both.

use std::path::PathBuf;
use std::sync::Arc;

use antler_agent_runtime::runs::RunManager;
use antler_protocol::threads::{
    CreateThread, IfExists, SearchThreads, SortOrder, Thread, ThreadValues,
};
use antler_sandbox::paths::LOCAL_OWNER;
use antler_sandbox::{SandboxProvider, ThreadDirs};
use antler_store::threads::timestamp;
use antler_store::{Store, StoreError, ThreadQuery, ThreadRecord};
use serde_json::{Map, Value};

use crate::Caller;

/// Largest page of a thread search.
pub const MAX_SEARCH_LIMIT: u32 = 1000;

/// What can go wrong with a thread.
#[derive(Debug, thiserror::Error)]
pub enum ThreadError {
    /// The id breaks the thread-id rule.
    #[error("{0}")]
    InvalidId(String),
    /// The request is malformed (for example a page size out of range).
    #[error("{0}")]
    Invalid(String),
    /// No thread with that id for this caller.
    #[error("no thread '{0}'")]
    NotFound(String),
    /// The id exists and the caller asked for a new one.
    #[error("thread '{0}' already exists")]
    Exists(String),
    /// The stored values do not parse (they are left as they are).
    #[error("the stored values of thread '{0}' could not be read")]
    Unreadable(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The thread's directories could not be created or read.
    #[error("thread directories: {0}")]
    Io(#[from] std::io::Error),
}

impl From<tokio::task::JoinError> for ThreadError {
    fn from(e: tokio::task::JoinError) -> Self {
        ThreadError::Io(std::io::Error::other(e))
    }
}

/// The threads use-cases (cheap to clone: handles to shared parts).
#[derive(Clone)]
pub struct ThreadsService {
    store: Store,
    data_dir: PathBuf,
    runs: Arc<RunManager>,
    sandbox: Arc<dyn SandboxProvider>,
}

impl std::fmt::Debug for ThreadsService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadsService").finish_non_exhaustive()
    }
}

impl ThreadsService {
    pub(crate) fn new(
        store: Store,
        data_dir: PathBuf,
        runs: Arc<RunManager>,
        sandbox: Arc<dyn SandboxProvider>,
    ) -> Self {
        ThreadsService {
            store,
            data_dir,
            runs,
            sandbox,
        }
    }

    /// Creates a thread, or answers the existing one with that id (unless `if_exists` is
    /// `raise`). Its directories come with its first file: most threads never write one,
    /// and creating three folders per thread was a tenth of a short run's cost.
    pub async fn create(&self, caller: &Caller, req: CreateThread) -> Result<Thread, ThreadError> {
        let id = req
            .thread_id
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        check_id(&id)?;
        let created = self
            .store
            .threads
            .create(caller.owner(), &id, req.metadata.unwrap_or_default())
            .await?
            // Another person's id answers as any taken id does.
            .ok_or_else(|| ThreadError::Exists(id.clone()))?;
        if !created.created && req.if_exists == Some(IfExists::Raise) {
            return Err(ThreadError::Exists(id));
        }
        if created.created {
            tracing::info!(thread.id = %id, "thread created");
        }
        self.to_wire(created.thread).await
    }

    /// How the sandbox user gets the files the server writes.
    pub(crate) fn sandbox_access(&self) -> antler_sandbox::FileAccess {
        self.sandbox.file_access()
    }

    /// The wire shape of a stored thread, with the interrupts it waits on keyed by the
    /// pending task of its newest checkpoint (the task `GET …/state` reports).
    pub(crate) async fn to_wire(&self, t: ThreadRecord) -> Result<Thread, ThreadError> {
        let mut thread = wire(t)?;
        if !thread.values.interrupts.is_empty() {
            let head = self.store.state.head(&thread.thread_id).await?;
            let task = match head {
                Some(c) => crate::checkpoints::task_id(&c.checkpoint_id, "agent"),
                None => crate::checkpoints::task_id(&thread.thread_id, "agent"),
            };
            thread
                .interrupts
                .insert(task, Value::Array(thread.values.interrupts.clone()));
        }
        Ok(thread)
    }

    /// The repositories (for background duties of this crate).
    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    /// The caller's thread.
    pub async fn get(&self, caller: &Caller, id: &str) -> Result<Thread, ThreadError> {
        self.to_wire(self.record(caller, id).await?).await
    }

    /// The caller's thread as stored.
    pub async fn record(&self, caller: &Caller, id: &str) -> Result<ThreadRecord, ThreadError> {
        check_id(id)?;
        self.store
            .threads
            .get(caller.owner(), id)
            .await?
            .ok_or_else(|| ThreadError::NotFound(id.to_string()))
    }

    /// The caller's thread's values.
    pub async fn values(&self, caller: &Caller, id: &str) -> Result<ThreadValues, ThreadError> {
        let record = self.record(caller, id).await?;
        parse_values(id, &record.values)
    }

    /// Merges `patch` into the metadata (a `null` value removes the key).
    pub async fn patch(
        &self,
        caller: &Caller,
        id: &str,
        patch: Map<String, Value>,
    ) -> Result<Thread, ThreadError> {
        check_id(id)?;
        let thread = self
            .store
            .threads
            .merge_metadata(caller.owner(), id, patch)
            .await?
            .ok_or_else(|| ThreadError::NotFound(id.to_string()))?;
        self.to_wire(thread).await
    }

    /// Deletes a thread: its runs stop, its records, sandbox and files go.
    pub async fn delete(&self, caller: &Caller, id: &str) -> Result<(), ThreadError> {
        self.record(caller, id).await?;
        self.runs.cancel_thread(id).await;
        // Its runs, their events and its checkpoints go with it (one statement).
        if !self.store.threads.delete(caller.owner(), id).await? {
            return Err(ThreadError::NotFound(id.to_string()));
        }
        if let Err(error) = self.sandbox.destroy(id).await {
            tracing::warn!(thread.id = %id, %error, "thread sandbox could not be removed");
        }
        let dirs = self.dirs(id);
        let data_dir = self.data_dir.clone();
        let removed = tokio::task::spawn_blocking(move || {
            antler_sandbox::storage::remove_thread(&dirs, &data_dir)
        })
        .await?;
        if let Err(error) = removed {
            // The record is gone, so the thread is deleted for every client; log the leftover.
            tracing::error!(thread.id = %id, %error, "thread files could not be removed");
        }
        tracing::info!(thread.id = %id, "thread deleted");
        Ok(())
    }

    /// The caller's threads matching `req`, a page at a time.
    pub async fn search(
        &self,
        caller: &Caller,
        req: SearchThreads,
    ) -> Result<Vec<Thread>, ThreadError> {
        if !(1..=MAX_SEARCH_LIMIT).contains(&req.limit) {
            return Err(ThreadError::Invalid(format!(
                "limit must be 1-{MAX_SEARCH_LIMIT}, not {}",
                req.limit
            )));
        }
        let ids = req.ids.unwrap_or_default();
        if ids.len() > MAX_SEARCH_LIMIT as usize {
            return Err(ThreadError::Invalid(format!(
                "at most {MAX_SEARCH_LIMIT} ids, not {}",
                ids.len()
            )));
        }
        let query = ThreadQuery {
            metadata: req.metadata.unwrap_or_default(),
            status: req.status,
            values: req.values.unwrap_or_default(),
            ids,
            limit: req.limit,
            offset: req.offset,
            sort: req.sort_by.unwrap_or_default(),
            ascending: req.sort_order == Some(SortOrder::Asc),
        };
        let terms = crate::thread_search::terms(req.query.as_deref())?;
        if !terms.is_empty() {
            return self.search_text(caller, &terms, &query).await;
        }
        let threads = self.store.threads.search(caller.owner(), &query).await?;
        let mut out = Vec::with_capacity(threads.len());
        for thread in threads {
            out.push(self.to_wire(thread).await?);
        }
        Ok(out)
    }

    /// Host directories of a thread (not checked, not created). Thread ids are unique
    /// across owners and the sandboxes find a thread's files by its id alone, so the files
    /// live in one place for every owner; who may reach them is decided by the database
    /// (the caller must own the thread), never by the path.
    pub fn dirs(&self, id: &str) -> ThreadDirs {
        ThreadDirs::new(&self.data_dir, LOCAL_OWNER, id)
    }

    /// The directories of an existing thread of the caller (for reading: not created).
    pub async fn existing_dirs(
        &self,
        caller: &Caller,
        id: &str,
    ) -> Result<ThreadDirs, ThreadError> {
        self.record(caller, id).await?;
        Ok(self.dirs(id))
    }

    /// The directories of an existing thread of the caller, created when missing.
    pub async fn files(&self, caller: &Caller, id: &str) -> Result<ThreadDirs, ThreadError> {
        self.record(caller, id).await?;
        self.create_dirs(id).await
    }

    async fn create_dirs(&self, id: &str) -> Result<ThreadDirs, ThreadError> {
        let dirs = self.dirs(id);
        let create = dirs.clone();
        let access = self.sandbox.file_access();
        tokio::task::spawn_blocking(move || {
            create.create()?;
            // The agent reads and writes all three, as the sandbox user.
            antler_sandbox::storage::give_dirs(create.user_data(), access)
        })
        .await??;
        Ok(dirs)
    }
}

/// Checks a thread id against the protocol's rule.
pub fn check_id(id: &str) -> Result<(), ThreadError> {
    antler_protocol::paths::check_thread_id(id).map_err(ThreadError::InvalidId)
}

/// Stored values, parsed; an error (never an empty history) when they do not parse.
pub(crate) fn parse_values(id: &str, values: &Value) -> Result<ThreadValues, ThreadError> {
    ThreadValues::from_value(values).map_err(|e| {
        tracing::error!(thread.id = %id, error = %e, "stored thread values do not parse");
        ThreadError::Unreadable(id.to_string())
    })
}

/// The wire shape of a stored thread.
fn wire(t: ThreadRecord) -> Result<Thread, ThreadError> {
    Ok(Thread {
        values: parse_values(&t.thread_id, &t.values)?,
        thread_id: t.thread_id,
        created_at: timestamp(t.created_at),
        updated_at: timestamp(t.updated_at),
        metadata: t.metadata,
        status: t.status,
        interrupts: Map::new(),
        search: None,
    })
}
