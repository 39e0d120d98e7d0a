//! Starting a run's follow-up suggestions (see [`crate::suggestions`] for the design).

use std::time::Duration;

use antler_protocol::runs::RunStatus;
use antler_protocol::stream::StreamMode;

use super::active::ActiveRun;
use super::manager::RunManager;
use crate::agent::{AgentState, Outcome};
use crate::model::ModelClient;
use crate::suggestions::{Call, Job, start};

impl RunManager {
    /// Starts the suggestions call after a run that ended with an answer, when they are on
    /// and the run's stream asked for `custom` events; never waits for it.
    pub(super) fn start_suggestions(
        &self,
        run: &ActiveRun,
        state: &AgentState,
        outcome: &Outcome,
        model: Option<&ModelClient>,
    ) -> Option<Job> {
        let cfg = &self.deps.cfg.suggestions;
        let answered = outcome.status == RunStatus::Success
            && state.values.interrupts.is_empty()
            && !run.cancel.is_cancelled();
        if !cfg.enabled || !answered || !run.log.modes().contains(&StreamMode::Custom) {
            return None;
        }
        let chosen = cfg
            .model
            .as_deref()
            .filter(|n| !n.is_empty())
            .and_then(|name| self.deps.models.iter().find(|m| m.config().name == name));
        let model = chosen.or(model)?.clone();
        let call = Call {
            store: self.deps.store.clone(),
            owner: run.owner.clone(),
            thread_id: run.thread_id.clone(),
            run_id: run.run_id.clone(),
            model,
            timeout: Duration::from_secs(cfg.timeout_secs),
        };
        start(&self.suggestions, call, &state.values.messages)
    }
}
