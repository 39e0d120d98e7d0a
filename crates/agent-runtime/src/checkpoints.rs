//! Checkpoints as LangGraph writes them. Each continues the head of its branch (its parent),
//! and its metadata says what made it (`source`), its step on the branch (a thread's first
//! input is step −1), and the writes of the nodes that ran. Clients build the branch tree
//! (Edit, Regenerate) from these.

use antler_protocol::messages::Message;
use antler_protocol::stream::Node;
use antler_protocol::threads::{ThreadStatus, ThreadValues};
use antler_store::{CheckpointRecord, NewCheckpoint, Store, StoreError};
use serde_json::{Map, Value, json};

/// Where a branch ends: the checkpoint the next one continues, and its step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// The checkpoint (none before a thread's first).
    pub checkpoint_id: Option<String>,
    /// Its LangGraph step.
    pub step: i64,
}

impl Default for Head {
    /// Before a thread's first checkpoint: its first input becomes step −1.
    fn default() -> Self {
        Head {
            checkpoint_id: None,
            step: -2,
        }
    }
}

impl Head {
    /// The head at a stored checkpoint.
    pub fn at(record: &CheckpointRecord) -> Self {
        Head {
            checkpoint_id: Some(record.checkpoint_id.clone()),
            step: step_of(record),
        }
    }
}

/// A checkpoint's LangGraph step (its position for checkpoints saved before metadata was).
pub fn step_of(record: &CheckpointRecord) -> i64 {
    record
        .metadata
        .get("step")
        .and_then(Value::as_i64)
        .unwrap_or(record.step)
}

/// What made a checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A run's input, before it is applied.
    Input,
    /// A step of the agent loop.
    Loop,
    /// `update_state`.
    Update,
    /// A copy of a checkpoint as a new branch.
    Fork,
}

impl Source {
    /// The metadata value.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Input => "input",
            Source::Loop => "loop",
            Source::Update => "update",
            Source::Fork => "fork",
        }
    }
}

/// One checkpoint to save on a branch.
#[derive(Debug)]
pub struct Checkpointing<'a> {
    /// The thread.
    pub thread_id: &'a str,
    /// The run that makes it, if any.
    pub run_id: Option<&'a str>,
    /// Metadata every checkpoint of the run carries (`run_id`, `assistant_id`, …).
    pub context: &'a Map<String, Value>,
}

impl Checkpointing<'_> {
    /// Saves `values` after `head` and moves `head` to the new checkpoint.
    pub async fn save(
        &self,
        store: &Store,
        head: &mut Head,
        values: &Value,
        status: ThreadStatus,
        source: Source,
        writes: Value,
    ) -> Result<String, StoreError> {
        let ids = self
            .save_chain(store, head, &[(values, source, &writes)], status)
            .await?;
        ids.into_iter()
            .next()
            .ok_or_else(|| StoreError::Corrupt("a checkpoint was saved without an id".into()))
    }

    /// Saves checkpoints made one after the other (`values`, source, writes) after `head`
    /// at once, and moves `head` to the last; the thread takes the last values and `status`.
    pub async fn save_chain(
        &self,
        store: &Store,
        head: &mut Head,
        links: &[(&Value, Source, &Value)],
        status: ThreadStatus,
    ) -> Result<Vec<String>, StoreError> {
        let metadata: Vec<Map<String, Value>> = links
            .iter()
            .zip(head.step + 1..)
            .map(|((_, source, writes), step)| {
                let mut metadata = self.context.clone();
                metadata.insert("source".into(), source.as_str().into());
                metadata.insert("step".into(), step.into());
                metadata.insert("parents".into(), json!({}));
                metadata.insert("writes".into(), Value::clone(writes));
                metadata
            })
            .collect();
        let chain: Vec<NewCheckpoint<'_>> = links
            .iter()
            .zip(&metadata)
            .map(|((values, _, _), metadata)| NewCheckpoint {
                thread_id: self.thread_id,
                values,
                status,
                run_id: self.run_id,
                parent_id: head.checkpoint_id.as_deref(),
                metadata,
            })
            .collect();
        let saved = store.state.save_chain(&chain).await?;
        if let Some(last) = saved.last() {
            *head = Head {
                checkpoint_id: Some(last.checkpoint_id.clone()),
                step: head.step + i64::try_from(saved.len()).unwrap_or(i64::MAX),
            };
        }
        Ok(saved.into_iter().map(|s| s.checkpoint_id).collect())
    }
}

/// The writes of a node that added `messages`.
pub fn node_writes(node: &str, messages: &[Message]) -> Value {
    json!({ node: { "messages": messages } })
}

/// The nodes that run next from a checkpoint, as LangGraph reports them: the input is
/// applied first; an unanswered message or a pending question is the agent's turn; tool
/// calls without results are the tools'.
pub fn next_nodes(metadata: &Map<String, Value>, values: &ThreadValues) -> Vec<String> {
    if metadata.get("source").and_then(Value::as_str) == Some(Source::Input.as_str()) {
        return vec!["__start__".into()];
    }
    if !values.interrupts.is_empty() {
        return vec![Node::Agent.as_str().into()];
    }
    match values.messages.last() {
        Some(Message::Human(_) | Message::Tool(_)) => vec![Node::Agent.as_str().into()],
        Some(Message::Ai(ai)) if !ai.tool_calls.is_empty() => vec![Node::Tools.as_str().into()],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use antler_protocol::messages::{AiMessage, HumanMessage, ToolCall};

    use super::*;

    fn meta(source: &str) -> Map<String, Value> {
        json!({"source": source})
            .as_object()
            .cloned()
            .unwrap_or_default()
    }

    #[test]
    fn next_follows_the_last_message() {
        let mut values = ThreadValues::default();
        assert!(next_nodes(&meta("loop"), &values).is_empty());
        values
            .messages
            .push(Message::Human(HumanMessage::default()));
        assert_eq!(next_nodes(&meta("input"), &values), ["__start__"]);
        assert_eq!(next_nodes(&meta("loop"), &values), ["agent"]);
        values.messages.push(Message::Ai(AiMessage {
            tool_calls: vec![ToolCall {
                id: "c".into(),
                name: "ls".into(),
                args: json!({}),
                kind: "tool_call".into(),
            }],
            ..Default::default()
        }));
        assert_eq!(next_nodes(&meta("loop"), &values), ["tools"]);
        values.messages.push(Message::Ai(AiMessage::default()));
        assert!(next_nodes(&Map::new(), &values).is_empty());
        values.interrupts.push(json!({"value": "?", "id": "c"}));
        assert_eq!(next_nodes(&Map::new(), &values), ["agent"]);
    }
}
