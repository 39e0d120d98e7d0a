//! A thread's states: the newest, one checkpoint, the history (a tree of branches), and
//! `update_state`, which adds a checkpoint of changed values.

use antler_agent_runtime::checkpoints::{Checkpointing, Head, Source, next_nodes};
use antler_agent_runtime::langchain::parse_input;
use antler_agent_runtime::runs::RunError;
use antler_protocol::runs::{Checkpoint, RunStatus, StateUpdated, ThreadState, ThreadStateUpdate};
use antler_protocol::threads::{ThreadStatus, ThreadValues};
use antler_store::threads::timestamp;
use antler_store::{CheckpointRecord, ThreadRecord};
use serde_json::{Map, Value, json};

use crate::Caller;
use crate::runs::{MAX_PAGE, RunOpError, RunsService};
use crate::threads::parse_values;

impl RunsService {
    /// The thread's current state (its newest checkpoint).
    pub async fn state(&self, caller: &Caller, thread_id: &str) -> Result<ThreadState, RunOpError> {
        let thread = self.thread(caller, thread_id).await?;
        Ok(match self.store.state.latest(thread_id).await? {
            Some(c) => checkpoint_state(c)?,
            None => ThreadState {
                values: parse_values(thread_id, &thread.values)?,
                next: Vec::new(),
                tasks: Vec::new(),
                metadata: Map::new(),
                created_at: None,
                checkpoint: None,
                parent_checkpoint: None,
            },
        })
    }

    /// The state at one checkpoint of the thread.
    pub async fn state_at(
        &self,
        caller: &Caller,
        thread_id: &str,
        checkpoint_id: &str,
    ) -> Result<ThreadState, RunOpError> {
        self.thread(caller, thread_id).await?;
        checkpoint_state(self.checkpoint(thread_id, checkpoint_id).await?)
    }

    /// Earlier states of every branch, newest first, optionally before a checkpoint.
    pub async fn history(
        &self,
        caller: &Caller,
        thread_id: &str,
        limit: u32,
        before: Option<&str>,
    ) -> Result<Vec<ThreadState>, RunOpError> {
        self.thread(caller, thread_id).await?;
        let states = self
            .store
            .state
            .history(
                thread_id,
                limit.clamp(1, MAX_PAGE),
                before,
                usize::try_from(self.limits.history_max_bytes).unwrap_or(usize::MAX),
            )
            .await?;
        states.into_iter().map(checkpoint_state).collect()
    }

    /// Adds a checkpoint with `update.values` merged into a checkpoint's values (the
    /// thread's newest by default), on that checkpoint's branch; `null` values fork it.
    /// Refused while a run works on the thread: the run would save over it.
    pub async fn update_state(
        &self,
        caller: &Caller,
        thread_id: &str,
        update: ThreadStateUpdate,
    ) -> Result<StateUpdated, RunOpError> {
        let thread = self.thread(caller, thread_id).await?;
        self.check_quota(caller).await?;
        self.ensure_no_run(&thread).await?;
        let (mut values, mut head) = match update.from_checkpoint() {
            Some(id) => {
                let record = self.checkpoint(thread_id, id).await?;
                (parse_values(thread_id, &record.state)?, Head::at(&record))
            }
            None => {
                let head = self.store.state.head(thread_id).await?;
                (
                    parse_values(thread_id, &thread.values)?,
                    head.as_ref().map(Head::at).unwrap_or_default(),
                )
            }
        };
        let changes = update.values.as_ref().filter(|v| !v.is_null());
        let source = match changes {
            Some(changes) => {
                merge(&mut values, changes).map_err(RunError::Invalid)?;
                Source::Update
            }
            None => Source::Fork,
        };
        let node = update.as_node.as_deref().unwrap_or("agent");
        let writes = match changes {
            Some(changes) => json!({ node: changes }),
            None => Value::Null,
        };
        let mut context = Map::new();
        context.insert("thread_id".into(), thread_id.into());
        let saving = Checkpointing {
            thread_id,
            run_id: None,
            context: &context,
        };
        let status = if values.interrupts.is_empty() {
            ThreadStatus::Idle
        } else {
            ThreadStatus::Interrupted
        };
        let id = saving
            .save(
                &self.store,
                &mut head,
                &values.to_value(),
                status,
                source,
                writes,
            )
            .await?;
        tracing::info!(thread.id = thread_id, checkpoint.id = %id, source = source.as_str(), "thread state updated");
        Ok(StateUpdated {
            checkpoint: checkpoint_ref(thread_id, &id),
        })
    }

    /// 409 while a run is queued or working on the thread: it would save over a change
    /// from its own branch head.
    pub(crate) async fn ensure_no_run(&self, thread: &ThreadRecord) -> Result<(), RunOpError> {
        let thread_id = &thread.thread_id;
        let mut active = false;
        for status in [RunStatus::Pending, RunStatus::Running] {
            active |= !self
                .store
                .runs
                .list(thread_id, Some(status), 1, 0)
                .await?
                .is_empty();
        }
        if active || thread.status == ThreadStatus::Busy {
            return Err(RunError::Conflict(format!(
                "thread '{thread_id}' has a run in progress; change its state when the run has ended"
            ))
            .into());
        }
        Ok(())
    }

    pub(crate) async fn checkpoint(
        &self,
        thread_id: &str,
        checkpoint_id: &str,
    ) -> Result<CheckpointRecord, RunOpError> {
        self.store
            .state
            .get(thread_id, checkpoint_id)
            .await?
            .ok_or_else(|| {
                let shown: String = checkpoint_id.chars().take(80).collect();
                RunError::NotFound(format!("no checkpoint '{shown}' in thread '{thread_id}'"))
                    .into()
            })
    }
}

/// Merges `update_state` values: messages are added, one with a known id replaces it (as
/// LangGraph's `add_messages`); the title is replaced or removed.
fn merge(values: &mut ThreadValues, changes: &Value) -> Result<(), String> {
    let Some(changes) = changes.as_object() else {
        return Err("values must be an object (messages, title) or null".into());
    };
    for (key, value) in changes {
        match key.as_str() {
            "messages" => {
                let wrapped = json!({ "messages": value });
                for message in parse_input(Some(&wrapped))? {
                    match values.messages.iter_mut().find(|m| m.id() == message.id()) {
                        Some(existing) => *existing = message,
                        None => values.messages.push(message),
                    }
                }
            }
            "todos" => {
                values.todos = serde_json::from_value(value.clone())
                    .map_err(|e| format!("values.todos: {e}"))?;
            }
            "title" => match value {
                Value::String(t) if !t.trim().is_empty() => values.title = Some(t.clone()),
                Value::Null => values.title = None,
                _ => return Err("values.title must be a non-empty string or null".into()),
            },
            other => {
                let shown: String = other.chars().take(80).collect();
                return Err(format!(
                    "values.{shown} cannot be updated (only messages, title and todos can)"
                ));
            }
        }
    }
    Ok(())
}

fn checkpoint_ref(thread_id: &str, id: &str) -> Checkpoint {
    Checkpoint {
        thread_id: thread_id.to_string(),
        checkpoint_ns: String::new(),
        checkpoint_id: id.to_string(),
    }
}

fn checkpoint_state(c: CheckpointRecord) -> Result<ThreadState, RunOpError> {
    let values = parse_values(&c.thread_id, &c.state)?;
    let mut metadata = c.metadata;
    // Checkpoints saved before metadata was recorded.
    if metadata.is_empty() {
        metadata.insert("source".into(), json!("loop"));
        metadata.insert("step".into(), json!(c.step));
        metadata.insert("parents".into(), json!({}));
        metadata.insert("run_id".into(), json!(c.run_id));
    }
    let next = next_nodes(&metadata, &values);
    let tasks = next
        .iter()
        .map(|name| task(&c.checkpoint_id, name, &values))
        .collect();
    Ok(ThreadState {
        next,
        tasks,
        metadata,
        created_at: Some(timestamp(c.created_at)),
        checkpoint: Some(checkpoint_ref(&c.thread_id, &c.checkpoint_id)),
        parent_checkpoint: c.parent_id.map(|p| checkpoint_ref(&c.thread_id, &p)),
        values,
    })
}

/// The id of the pending task `name` of a checkpoint: stable per checkpoint and node, like
/// LangGraph's task ids (the thread's `interrupts` are keyed by it).
pub(crate) fn task_id(checkpoint_id: &str, name: &str) -> String {
    uuid::Uuid::new_v5(
        &uuid::Uuid::NAMESPACE_OID,
        format!("{checkpoint_id}:{name}").as_bytes(),
    )
    .to_string()
}

/// A pending task as LangGraph reports it; the agent's holds the interrupts waiting for an
/// answer.
fn task(checkpoint_id: &str, name: &str, values: &ThreadValues) -> Value {
    let interrupts = if name == "agent" {
        values.interrupts.clone()
    } else {
        Vec::new()
    };
    json!({
        "id": task_id(checkpoint_id, name),
        "name": name,
        "path": ["__pregel_pull", name],
        "error": null,
        "interrupts": interrupts,
        "checkpoint": null,
        "state": null,
        "result": null,
    })
}

#[cfg(test)]
mod tests {
    use antler_protocol::messages::Message;

    use super::*;

    #[test]
    fn updates_add_or_replace_messages_and_set_the_title() {
        let mut values = ThreadValues::default();
        merge(
            &mut values,
            &json!({"messages": [{"type": "human", "id": "m1", "content": "a"}], "title": "T"}),
        )
        .unwrap();
        merge(
            &mut values,
            &json!({"messages": [{"type": "human", "id": "m1", "content": "b"}, {"type": "human", "id": "m2", "content": "c"}]}),
        )
        .unwrap();
        assert_eq!(values.messages.len(), 2);
        assert!(matches!(&values.messages[0], Message::Human(h) if h.content == "b"));
        assert_eq!(values.title.as_deref(), Some("T"));
        assert!(merge(&mut values, &json!({"artifacts": []})).is_err());
        assert!(merge(&mut values, &json!({"title": 3})).is_err());
        assert!(merge(&mut values, &json!([1])).is_err());
        merge(&mut values, &json!({"title": null})).unwrap();
        assert_eq!(values.title, None);
    }
}
