//! Follow-up suggestions: after a run that ended with an answer, one short model call writes
//! up to three messages the person might send next.
//!
//! The call must never hold up the run's ending (its status, the thread going idle, `end`,
//! the next run), so it runs in a task of its own, started as soon as the run's outcome is
//! known and before its ending is stored, and the run never waits for it:
//!
//! - **Ready before `end`** (the ending's own writes took longer than the call): the run
//!   sends them on its own stream as a `custom` event `{"type": "suggestions", …}` just
//!   before `end`.
//! - **Later** (the usual case): the task keeps them in the thread's metadata
//!   (`metadata.suggestions = {run_id, message_id, suggestions}`) and then hands them to
//!   whoever follows the thread's stream (`GET /api/threads/{id}/stream` waits for the
//!   pending call of its thread before its final `end`, see [`Pending`]). The web UI opens
//!   that stream after a run's `end` when no suggestions came with the run, and reads the
//!   metadata when it opens a conversation; both carry the answer's `message_id`, so only
//!   the latest answer shows them. The metadata is written before waiters are told, so a
//!   thread stream that arrives after the call finished finds them stored instead.
//!
//! Only runs whose stream asked for `custom` events get them (the web UI does; crons and
//! API clients reading `values` pay for no extra call), only after a successful run whose
//! last message is a text answer (no error, cancel, interrupt or clarification question),
//! and only when `agent.suggestions.enabled` and the person's own switch
//! ([`antler_store::preferences`]) allow it. A failed or slow call (bounded by
//! `agent.suggestions.timeout_secs`) only logs. With several replicas, a thread stream on
//! another replica than the run's ends without waiting: the stored metadata remains.

pub mod prompt;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use antler_protocol::messages::Message;
use antler_protocol::stream::CustomEvent;
use antler_store::Store;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::sync::watch;

use crate::model::ModelClient;
use crate::usage::UsageLedger;

/// `agent.suggestions.*`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SuggestionsConfig {
    /// Suggest follow-ups at all (each person can also turn them off for themselves).
    pub enabled: bool,
    /// The model that writes them (a configured name; the run's own when empty).
    pub model: Option<String>,
    /// Seconds the call may take before it is given up.
    pub timeout_secs: u64,
}

impl Default for SuggestionsConfig {
    fn default() -> Self {
        SuggestionsConfig {
            enabled: true,
            model: None,
            timeout_secs: 20,
        }
    }
}

/// Tokens the answer may use.
const MAX_TOKENS: u32 = 300;
/// The thread metadata key they are kept under.
pub const METADATA_KEY: &str = "suggestions";

/// One call in progress (or done): which answer it follows and its outcome, `None` until it
/// ends (`Some(empty)`: none).
#[derive(Debug, Clone)]
pub struct Job {
    run_id: String,
    message_id: String,
    outcome: watch::Receiver<Option<Vec<String>>>,
}

impl Job {
    /// The event, when the call has already ended with suggestions.
    pub fn ready(&self) -> Option<CustomEvent> {
        let done = self.outcome.borrow().clone()?;
        self.event(done)
    }

    /// Waits for the call to end: the event, or `None` when it found none (or failed).
    pub async fn wait(mut self) -> Option<CustomEvent> {
        let done = self.outcome.wait_for(Option::is_some).await.ok()?.clone()?;
        self.event(done)
    }

    fn event(&self, suggestions: Vec<String>) -> Option<CustomEvent> {
        (!suggestions.is_empty()).then(|| CustomEvent::Suggestions {
            run_id: self.run_id.clone(),
            message_id: self.message_id.clone(),
            suggestions,
        })
    }
}

/// The calls in progress on this server, by thread (the newest run's only).
#[derive(Debug, Default, Clone)]
pub struct Pending(Arc<Mutex<HashMap<String, Job>>>);

impl Pending {
    /// The call in progress for a thread's latest answer, if any.
    pub fn of_thread(&self, thread_id: &str) -> Option<Job> {
        self.lock().get(thread_id).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Job>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// True while `run_id`'s call is its thread's newest.
    fn is_latest(&self, thread_id: &str, run_id: &str) -> bool {
        self.lock()
            .get(thread_id)
            .is_some_and(|j| j.run_id == run_id)
    }

    fn finish(&self, thread_id: &str, run_id: &str) {
        let mut map = self.lock();
        if map.get(thread_id).is_some_and(|j| j.run_id == run_id) {
            map.remove(thread_id);
        }
    }
}

/// What a call needs, owned by its task.
pub struct Call {
    /// Where the person's switch is read and the outcome kept.
    pub store: Store,
    /// Whose run it was.
    pub owner: String,
    /// Its thread.
    pub thread_id: String,
    /// The run.
    pub run_id: String,
    /// The model to ask.
    pub model: ModelClient,
    /// Its time limit.
    pub timeout: Duration,
}

/// Starts the call for the answer ending `messages`, unless it has none; answers the job
/// (also registered in `pending` for the thread's stream).
pub fn start(pending: &Pending, call: Call, messages: &[Message]) -> Option<Job> {
    let (message_id, question, answer) = prompt::last_exchange(messages)?;
    let request = prompt::request(question, answer);
    let (tx, rx) = watch::channel(None);
    let job = Job {
        run_id: call.run_id.clone(),
        message_id: message_id.to_string(),
        outcome: rx,
    };
    pending.lock().insert(call.thread_id.clone(), job.clone());
    let pending = pending.clone();
    let message_id = job.message_id.clone();
    tokio::spawn(async move {
        let suggestions = suggest(&call, request).await;
        // Kept before waiters hear of them: a stream that no longer finds the job reads them.
        if !suggestions.is_empty() && pending.is_latest(&call.thread_id, &call.run_id) {
            keep(&call, &message_id, &suggestions).await;
        }
        let _ = tx.send(Some(suggestions));
        pending.finish(&call.thread_id, &call.run_id);
    });
    Some(job)
}

/// The call itself, when the person wants suggestions; failures are logged and give none.
async fn suggest(call: &Call, request: Vec<Value>) -> Vec<String> {
    match call.store.preferences.get(&call.owner).await {
        Ok(p) if !p.suggestions => return Vec::new(),
        Ok(_) => {}
        Err(e) => {
            tracing::warn!(run.id = %call.run_id, error = %e, "preferences could not be read; no suggestions");
            return Vec::new();
        }
    }
    let cancel = tokio_util::sync::CancellationToken::new();
    let answer = call.model.complete(request, Some(MAX_TOKENS), &cancel);
    let done = match tokio::time::timeout(call.timeout, answer).await {
        Ok(Ok(done)) => done,
        Ok(Err(e)) => {
            tracing::info!(run.id = %call.run_id, error = %e, "suggestions call failed");
            return Vec::new();
        }
        Err(_) => {
            cancel.cancel();
            tracing::info!(run.id = %call.run_id, "suggestions call timed out");
            return Vec::new();
        }
    };
    let mut ledger = UsageLedger::default();
    ledger.add(call.model.config(), done.usage.as_ref());
    ledger
        .store(&call.store, &call.owner, &call.run_id, &call.thread_id)
        .await;
    let suggestions = prompt::parse(&done.turn.content);
    if suggestions.is_empty() {
        tracing::info!(run.id = %call.run_id, "the suggestions call answered none");
    }
    suggestions
}

/// Keeps them in the thread's metadata, for a conversation opened later.
async fn keep(call: &Call, message_id: &str, suggestions: &[String]) {
    let mut patch = Map::new();
    patch.insert(
        METADATA_KEY.into(),
        json!({"run_id": call.run_id, "message_id": message_id, "suggestions": suggestions}),
    );
    if let Err(e) = call
        .store
        .threads
        .merge_metadata(&call.owner, &call.thread_id, patch)
        .await
    {
        tracing::warn!(run.id = %call.run_id, error = %e, "suggestions could not be kept");
    }
}
