//! What the agent loop works on during one run.

use std::collections::HashMap;

use antler_protocol::runs::RunUsage;
use antler_protocol::threads::ThreadValues;

use crate::checkpoints::Head;
use crate::config::ModelConfig;
use crate::model::wire::Usage;
use crate::usage::UsageLedger;

impl AgentState {
    /// Everything the run used: its own calls and those made on its behalf.
    pub fn total_usage(&self) -> RunUsage {
        let mut total = self.usage;
        total.add(&self.extra);
        total
    }

    /// Counts a model call made for the run outside its loop (a summary, the title).
    pub fn count_extra_call(&mut self, model: &ModelConfig, usage: Option<&Usage>) {
        let call = self.ledger.add(model, usage);
        self.extra.add(&call);
    }
}

/// The run's view of its thread plus its own counters.
#[derive(Debug, Default)]
pub struct AgentState {
    /// Messages, title, artifacts.
    pub values: ThreadValues,
    /// The newest checkpoint of the run's branch, which the next one continues.
    pub head: Head,
    /// The values as last saved (the run's end saves only what changed after).
    pub saved: Option<serde_json::Value>,
    /// Counters of the agent loop's own model calls (what the call limit counts).
    pub usage: RunUsage,
    /// Model use on the run's behalf outside its loop: subagents, summaries. Reported with
    /// `usage`, not counted against the run's call limit.
    pub extra: RunUsage,
    /// The run's own answered calls (loop, summaries, title; not its subagents', which
    /// store their own) per model and day, stored when the run ends.
    pub ledger: UsageLedger,
    /// Model calls and tool rounds so far.
    pub step: u64,
    /// How often each exact set of tool calls was made in this run.
    pub call_signatures: HashMap<String, u32>,
    /// The signature of the latest model answer's tool calls.
    pub last_signature: Option<String>,
    /// The web pages the run searched up and read (kept in its metadata).
    pub sources: Vec<antler_protocol::web::WebSource>,
    /// Tokens of each message (by id and length), counted once per run.
    pub token_counts: HashMap<String, usize>,
    /// Its model calls, tool calls and subagents so far (the runs console's timeline).
    pub steps: Vec<antler_protocol::console::RunStep>,
    /// When the run started, until its first token arrives (time to first token); `None`
    /// for a subagent's run.
    pub awaiting_first_token: Option<std::time::Instant>,
}
