//! A thread's states as LangGraph clients narrow them: `select` on a state, and a history
//! filtered by checkpoint metadata, started at a checkpoint; and patching a checkpoint's
//! metadata (`PATCH …/state`).

use antler_protocol::runs::{CheckpointSelector, HistoryRequest};
use antler_protocol::threads::PatchState;
use serde_json::{Map, Value};

use crate::Caller;
use crate::runs::{MAX_PAGE, RunError, RunOpError, RunsService};
use crate::thread_select::{STATE_FIELDS, Select};

/// A checked `select` for states (`None`: every field).
fn state_select(names: Option<&[String]>) -> Result<Option<Select>, RunOpError> {
    match names {
        Some(names) if !names.is_empty() => Select::parse(names, STATE_FIELDS, true)
            .map(Some)
            .map_err(|m| RunError::Invalid(m).into()),
        _ => Ok(None),
    }
}

/// `state` as JSON with only the selected fields.
fn project(state: &impl serde::Serialize, select: Option<&Select>) -> Value {
    let whole = serde_json::to_value(state).unwrap_or(Value::Null);
    match select {
        Some(select) => select.apply(whole),
        None => whole,
    }
}

/// Whether `metadata` has every pair of `filter`.
fn matches(metadata: &Map<String, Value>, filter: &Map<String, Value>) -> bool {
    filter.iter().all(|(k, v)| metadata.get(k) == Some(v))
}

impl RunsService {
    /// The thread's newest state, or its state at `checkpoint_id`, with only the
    /// `select`ed fields.
    pub async fn state_selected(
        &self,
        caller: &Caller,
        thread_id: &str,
        checkpoint_id: Option<&str>,
        select: Option<&[String]>,
    ) -> Result<Value, RunOpError> {
        let select = state_select(select)?;
        let state = match checkpoint_id {
            Some(id) => self.state_at(caller, thread_id, id).await?,
            None => self.state(caller, thread_id).await?,
        };
        Ok(project(&state, select.as_ref()))
    }

    /// `POST …/history`: states newest first from `checkpoint` (inclusive) or before
    /// `before`, those whose metadata has the `metadata` pairs (looked for among at most
    /// [`MAX_PAGE`] checkpoints), at most `limit`, with only the `select`ed fields.
    pub async fn history_selected(
        &self,
        caller: &Caller,
        thread_id: &str,
        req: HistoryRequest,
    ) -> Result<Vec<Value>, RunOpError> {
        let select = state_select(req.select.as_deref())?;
        let limit = req.limit.unwrap_or(10).clamp(1, MAX_PAGE);
        let filter = req.metadata.unwrap_or_default();
        let mut states = Vec::new();
        let mut before = req
            .before
            .as_ref()
            .and_then(CheckpointSelector::checkpoint_id)
            .map(str::to_string);
        if let Some(start) = req.checkpoint.as_ref() {
            let Some(id) = start.checkpoint_id() else {
                return Err(
                    RunError::Invalid("checkpoint must name a checkpoint_id".into()).into(),
                );
            };
            // Inclusive: the checkpoint itself, then what came before it.
            states.push(self.state_at(caller, thread_id, id).await?);
            before = Some(id.to_string());
        }
        let page = if filter.is_empty() { limit } else { MAX_PAGE };
        states.extend(
            self.history(caller, thread_id, page, before.as_deref())
                .await?,
        );
        Ok(states
            .iter()
            .filter(|s| matches(&s.metadata, &filter))
            .take(limit as usize)
            .map(|s| project(s, select.as_ref()))
            .collect())
    }

    /// Merges `patch.metadata` into a checkpoint's metadata (the thread's newest by
    /// default), as LangGraph's `patch_state`. 409 while a run works on the thread.
    pub async fn patch_state(
        &self,
        caller: &Caller,
        thread_id: &str,
        patch: PatchState,
    ) -> Result<(), RunOpError> {
        let thread = self.thread(caller, thread_id).await?;
        self.ensure_no_run(&thread).await?;
        let named = patch
            .checkpoint_id
            .as_deref()
            .or_else(|| patch.checkpoint.as_ref()?.checkpoint_id());
        let patched = self
            .store
            .state
            .patch_metadata(thread_id, named, patch.metadata)
            .await?;
        match (patched, named) {
            (Some(id), _) => {
                tracing::info!(thread.id = thread_id, checkpoint.id = %id, "checkpoint metadata patched");
                Ok(())
            }
            (None, Some(id)) => {
                let shown: String = id.chars().take(80).collect();
                Err(
                    RunError::NotFound(format!("no checkpoint '{shown}' in thread '{thread_id}'"))
                        .into(),
                )
            }
            (None, None) => Err(RunError::NotFound(format!(
                "thread '{thread_id}' has no checkpoint yet: nothing to patch"
            ))
            .into()),
        }
    }
}
