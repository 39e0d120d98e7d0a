//! Starting a cron's run, as its owner: on the cron's thread, or on a new thread of theirs
//! (marked temporary when it is to be deleted, so a lost cleanup is swept later).

use antler_protocol::runs::{MultitaskStrategy, OnCompletion, RunCreate};
use antler_protocol::threads::CreateThread;
use antler_store::threads::timestamp;
use antler_store::{CronRecord, CronTick};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::{CronError, CronsService};
use crate::Caller;
use crate::assistants::AssistantError;
use crate::runs::{RunError, RunOpError, Started};
use crate::threads::ThreadError;

/// Run metadata naming the cron that started the run.
pub(crate) const CRON_ID_KEY: &str = "cron_id";
/// Run metadata naming the tick (its due time) a run was started for.
pub(crate) const SCHEDULED_KEY: &str = "cron_scheduled_for";

impl CronsService {
    /// Starts `cron`'s run as `caller` on `thread_id` (created for a new-thread cron), for
    /// the tick due at `scheduled_for` (`None`: run now).
    pub(super) async fn start(
        &self,
        caller: &Caller,
        cron: &CronRecord,
        scheduled_for: Option<DateTime<Utc>>,
        thread_id: &str,
    ) -> Result<Started, CronError> {
        let mut req = super::run_request(&cron.payload, &cron.assistant_id)?;
        let mut metadata = req.metadata.take().unwrap_or_default();
        metadata.insert(CRON_ID_KEY.into(), Value::String(cron.cron_id.clone()));
        if let Some(t) = scheduled_for {
            metadata.insert(SCHEDULED_KEY.into(), Value::String(timestamp(t)));
        }
        req.metadata = Some(metadata);
        req.on_disconnect = None;
        req.if_not_exists = None;
        req.on_completion = None;
        let stateless = cron.thread_id.is_none();
        let delete_after = stateless && cron.on_run_completed != Some(OnCompletion::Keep);
        if stateless {
            let mut thread_meta = Map::new();
            thread_meta.insert(CRON_ID_KEY.into(), Value::String(cron.cron_id.clone()));
            // An existing thread of the owner's is answered as it is (a tick taken over
            // after its claimant created the thread).
            self.threads
                .create(
                    caller,
                    CreateThread {
                        thread_id: Some(thread_id.to_string()),
                        metadata: Some(thread_meta),
                        if_exists: None,
                    },
                )
                .await?;
            if delete_after {
                self.store.threads.set_temporary(thread_id, true).await?;
            }
        } else if req.multitask_strategy.is_none() {
            req.multitask_strategy = Some(MultitaskStrategy::Enqueue);
        }
        let started = match self.start_checked(caller, thread_id, req).await {
            Ok(started) => started,
            Err(e) => {
                if stateless {
                    self.drop_thread(caller, thread_id).await;
                }
                return Err(e);
            }
        };
        if stateless {
            self.after_run(caller, cron, thread_id, &started, delete_after);
        }
        Ok(started)
    }

    async fn start_checked(
        &self,
        caller: &Caller,
        thread_id: &str,
        req: RunCreate,
    ) -> Result<Started, CronError> {
        self.runs.admit(caller).await?;
        Ok(self.runs.start(caller, thread_id, req).await?)
    }

    /// Once a new-thread run has ended: remembers its status for the cron, then deletes the
    /// thread when asked to.
    fn after_run(
        &self,
        caller: &Caller,
        cron: &CronRecord,
        thread_id: &str,
        started: &Started,
        delete: bool,
    ) {
        let (store, threads, caller) = (self.store.clone(), self.threads.clone(), caller.clone());
        let (cron_id, thread_id, run) = (
            cron.cron_id.clone(),
            thread_id.to_string(),
            started.run.clone(),
        );
        tokio::spawn(async move {
            run.finished().await;
            if !delete {
                return;
            }
            if let Ok(Some(record)) = store.runs.get(&thread_id, &run.run_id).await
                && let Err(error) = store
                    .crons
                    .record_status(&cron_id, &run.run_id, record.status)
                    .await
            {
                tracing::warn!(cron.id = %cron_id, %error, "a cron run's status could not be recorded");
            }
            match threads.delete(&caller, &thread_id).await {
                Ok(()) | Err(ThreadError::NotFound(_)) => {}
                Err(error) => {
                    tracing::warn!(thread.id = %thread_id, %error, "a cron run's thread could not be deleted; the sweep will retry");
                }
            }
        });
    }

    async fn drop_thread(&self, caller: &Caller, thread_id: &str) {
        match self.threads.delete(caller, thread_id).await {
            Ok(()) | Err(ThreadError::NotFound(_)) => {}
            Err(error) => {
                tracing::warn!(thread.id = %thread_id, %error, "a refused cron run's thread could not be deleted");
            }
        }
    }

    /// Runs one claimed tick: finds a run a dead claimant already started (`taken_over`),
    /// else starts one; a cron that can never run (owner or assistant gone, invalid
    /// request) is disabled with the reason in its metadata.
    pub(super) async fn run_tick(&self, tick: &CronTick, taken_over: bool) {
        let cron = &tick.cron;
        let caller = match self.owner(&cron.owner).await {
            Ok(Some(caller)) => caller,
            Ok(None) => {
                self.give_up(
                    tick,
                    "owner_gone: the cron's owner no longer has an active account",
                )
                .await;
                return;
            }
            Err(error) => {
                self.failed(tick, &error.to_string()).await;
                return;
            }
        };
        if taken_over && let Some(run_id) = self.started_before(tick).await {
            self.started(tick, &run_id).await;
            return;
        }
        match self
            .start(&caller, cron, Some(tick.scheduled_for), &tick.thread_id)
            .await
        {
            Ok(started) => self.started(tick, &started.record.run_id).await,
            Err(error) => match permanent(&error) {
                Some(reason) => self.give_up(tick, &format!("{reason}: {error}")).await,
                None => self.failed(tick, &error.to_string()).await,
            },
        }
    }

    /// The owner as a caller; `None` when their account is gone or disabled.
    async fn owner(&self, owner: &str) -> Result<Option<Caller>, CronError> {
        if owner == antler_sandbox::paths::LOCAL_OWNER {
            return Ok(Some(Caller::local()));
        }
        Ok(self
            .store
            .accounts
            .user(owner)
            .await?
            .filter(|u| !u.disabled)
            .map(|u| Caller::account(&u)))
    }

    /// The run a previous claimant of the tick started, if it got that far.
    async fn started_before(&self, tick: &CronTick) -> Option<String> {
        let runs = self
            .store
            .runs
            .list(&tick.thread_id, None, 100, 0)
            .await
            .ok()?;
        let due = Value::String(timestamp(tick.scheduled_for));
        let id = Value::String(tick.cron.cron_id.clone());
        runs.into_iter()
            .find(|r| {
                r.metadata.get(CRON_ID_KEY) == Some(&id)
                    && r.metadata.get(SCHEDULED_KEY) == Some(&due)
            })
            .map(|r| r.run_id)
    }

    async fn started(&self, tick: &CronTick, run_id: &str) {
        match self
            .store
            .crons
            .tick_started(tick, run_id, Utc::now())
            .await
        {
            Ok(true) => {
                tracing::info!(cron.id = %tick.cron.cron_id, run.id = %run_id, scheduled_for = %timestamp(tick.scheduled_for), "cron run started");
            }
            Ok(false) => {
                tracing::warn!(cron.id = %tick.cron.cron_id, run.id = %run_id, "a cron tick was taken over while its run started");
            }
            Err(error) => {
                tracing::warn!(cron.id = %tick.cron.cron_id, %error, "a cron run could not be recorded");
            }
        }
    }

    async fn failed(&self, tick: &CronTick, error: &str) {
        tracing::warn!(cron.id = %tick.cron.cron_id, %error, "a cron run could not start");
        if let Err(e) = self.store.crons.tick_failed(tick, error).await {
            tracing::warn!(cron.id = %tick.cron.cron_id, error = %e, "a failed cron tick could not be recorded");
        }
    }

    async fn give_up(&self, tick: &CronTick, reason: &str) {
        self.failed(tick, reason).await;
        tracing::warn!(cron.id = %tick.cron.cron_id, %reason, "cron disabled");
        if let Err(error) = self.store.crons.disable(&tick.cron.cron_id, reason).await {
            tracing::warn!(cron.id = %tick.cron.cron_id, %error, "a cron could not be disabled");
        }
    }
}

/// Why a cron can never run, when that is what `error` says.
fn permanent(error: &CronError) -> Option<&'static str> {
    match error {
        CronError::Assistant(AssistantError::NotFound(_))
        | CronError::Run(RunOpError::Assistant(AssistantError::NotFound(_))) => {
            Some("assistant_not_found")
        }
        CronError::Thread(ThreadError::NotFound(_))
        | CronError::Run(RunOpError::Thread(ThreadError::NotFound(_)))
        | CronError::Run(RunOpError::Run(RunError::NotFound(_))) => Some("thread_not_found"),
        CronError::Thread(ThreadError::Exists(_)) => Some("thread_taken"),
        CronError::Invalid(_) | CronError::Run(RunOpError::Run(RunError::Invalid(_))) => {
            Some("invalid_request")
        }
        _ => None,
    }
}
