//! Starting runs as clients ask for them: on a thread (files sent inside the messages are
//! stored as its uploads first), or stateless, on a temporary thread that is deleted when
//! its run has ended. The temporary mark is stored with the thread, so a crash or a lost
//! cleanup leaves nothing behind: a sweep at start and every minute (`threads.
//! sweep_temporary_after_secs`) deletes temporary
//! threads whose runs are over.

use std::sync::Arc;
use std::time::Duration;

use antler_agent_runtime::runs::ActiveRun;
use antler_protocol::runs::{IfNotExists, OnCompletion, RunCreate};
use antler_protocol::threads::CreateThread;

use crate::runs::{RunOpError, Started};
use crate::threads::{ThreadError, ThreadsService};
use crate::{App, Caller};

/// A stateless run: its temporary thread, the run, and what deletes the thread.
#[derive(Debug)]
pub struct StatelessRun {
    /// The thread the run works in.
    pub thread_id: String,
    /// The run.
    pub started: Started,
    /// Deletes the thread once the run has ended; `None` when the client asked to keep it.
    pub cleanup: Option<Cleanup>,
}

/// Deletes a stateless run's thread once its run has ended.
#[derive(Debug)]
pub struct Cleanup {
    threads: ThreadsService,
    caller: Caller,
    thread_id: String,
    run: Arc<ActiveRun>,
}

impl Cleanup {
    /// Waits for the run in the background, then deletes the thread (the client may already
    /// be gone). Should this process die first, the sweep deletes it.
    pub fn after_run(self) {
        tokio::spawn(async move {
            self.run.finished().await;
            match self.threads.delete(&self.caller, &self.thread_id).await {
                Ok(()) | Err(ThreadError::NotFound(_)) => {}
                Err(error) => {
                    tracing::warn!(thread.id = %self.thread_id, %error, "a stateless run's thread could not be deleted; the sweep will retry");
                }
            }
        });
    }
}

impl App {
    /// Starts a run on the caller's thread (created first when `if_not_exists` says so),
    /// storing files sent inside its messages as the thread's uploads.
    pub async fn start_run(
        &self,
        caller: &Caller,
        thread_id: &str,
        mut req: RunCreate,
    ) -> Result<Started, RunOpError> {
        crate::threads::check_id(thread_id)?;
        self.runs.admit(caller).await?;
        self.files
            .store_message_files(
                &self.threads,
                &self.config.uploads,
                caller,
                thread_id,
                &mut req,
            )
            .await?;
        self.files
            .name_markdown_versions(&self.threads, caller, thread_id, &mut req)
            .await?;
        self.runs.start(caller, thread_id, req).await
    }

    /// Starts `req` on a new temporary thread of the caller's. A refused run leaves no
    /// thread behind.
    pub async fn start_stateless(
        &self,
        caller: &Caller,
        mut req: RunCreate,
    ) -> Result<StatelessRun, RunOpError> {
        let thread_id = uuid::Uuid::new_v4().to_string();
        let keep = req.on_completion == Some(OnCompletion::Keep);
        self.threads
            .create(
                caller,
                CreateThread {
                    thread_id: Some(thread_id.clone()),
                    ..CreateThread::default()
                },
            )
            .await?;
        if !keep {
            // Marked before the run starts: from here on the thread is found after a crash.
            if let Err(error) = self.store.threads.set_temporary(&thread_id, true).await {
                self.drop_thread(caller, &thread_id).await;
                return Err(error.into());
            }
        }
        req.if_not_exists = Some(IfNotExists::Create);
        let started = match self.start_run(caller, &thread_id, req).await {
            Ok(started) => started,
            Err(e) => {
                self.drop_thread(caller, &thread_id).await;
                return Err(e);
            }
        };
        let cleanup = (!keep).then(|| Cleanup {
            threads: self.threads.clone(),
            caller: caller.clone(),
            thread_id: thread_id.clone(),
            run: started.run.clone(),
        });
        Ok(StatelessRun {
            thread_id,
            started,
            cleanup,
        })
    }

    async fn drop_thread(&self, caller: &Caller, thread_id: &str) {
        match self.threads.delete(caller, thread_id).await {
            Ok(()) | Err(ThreadError::NotFound(_)) => {}
            Err(error) => {
                tracing::warn!(thread.id = %thread_id, %error, "a refused stateless run's thread could not be deleted; the sweep will retry");
            }
        }
    }
}

/// Deletes temporary threads whose runs are over (left by a crash, or whose cleanup
/// failed); answers how many.
/// Only threads older than `age` are taken: younger ones may be between their creation and
/// their run's.
pub(crate) async fn sweep_temporary(threads: &ThreadsService, age: Duration) -> usize {
    let cutoff = chrono::Utc::now() - chrono::Duration::from_std(age).unwrap_or_default();
    let found = match threads.store().threads.finished_temporary(cutoff).await {
        Ok(found) => found,
        Err(error) => {
            tracing::warn!(%error, "temporary threads could not be listed");
            return 0;
        }
    };
    let mut deleted = 0;
    for (owner, thread_id) in found {
        match threads
            .delete(&Caller::owner_only(&owner), &thread_id)
            .await
        {
            Ok(()) => deleted += 1,
            Err(ThreadError::NotFound(_)) => {}
            Err(error) => {
                tracing::warn!(thread.id = %thread_id, %error, "a temporary thread could not be deleted");
            }
        }
    }
    if deleted > 0 {
        tracing::info!(deleted, "temporary threads of ended stateless runs deleted");
    }
    deleted
}

/// Sweeps temporary threads older than `age` now and every `age`.
pub(crate) fn sweep_every(threads: ThreadsService, age: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(age);
        loop {
            tick.tick().await;
            sweep_temporary(&threads, age).await;
        }
    })
}
