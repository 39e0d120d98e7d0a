//! A run's stored events, read back from the database. A subagent's streamed events are
//! stored once, in its parent's log as `task_event`s; its own log holds only the rest (its
//! `end`). Its stream is the two merged: its own events at their sequence numbers, the
//! `task_event`s unwrapped, in their order, at the numbers in between.

use std::collections::VecDeque;

use antler_protocol::stream::StreamMode;
use antler_store::{RunRecord, Store, StoreError};

use super::log::RunEvent;

/// The data of the `task_event` copy of a subagent's event (`task_id` as a JSON string).
pub(crate) fn task_event(task_id: &str, event: &str, data: &str) -> String {
    format!(r#"{}{event}","data":{data}}}"#, task_event_prefix(task_id))
}

/// How the data of a task's `task_event`s begins.
fn task_event_prefix(task_id: &str) -> String {
    format!(r#"{{"type":"task_event","task_id":{task_id},"event":""#)
}

/// The event name and data inside a `task_event`'s data (after its prefix).
fn unwrap_task_event(rest: &str) -> Option<(&str, &str)> {
    let (event, rest) = rest.split_once(r#"","data":"#)?;
    Some((event, rest.strip_suffix('}')?))
}

/// Where a run's stored events are, and how far a reader got.
pub(crate) struct StoredLog {
    run_id: String,
    task: Option<TaskEvents>,
}

/// A subagent's events in its parent's log.
struct TaskEvents {
    parent_run_id: String,
    /// How the data of its `task_event`s begins.
    prefix: String,
    /// The parent's events read so far.
    parent_after: u64,
    /// `task_event`s read, not yet placed: (event, data).
    pending: VecDeque<(String, String)>,
    /// The subagent's next sequence number to place.
    next_seq: u64,
}

impl StoredLog {
    /// The stored log of the run `record`: a subagent's is merged with its parent's
    /// `task_event`s when the parent's log says it started this run.
    pub(crate) async fn of(store: &Store, record: &RunRecord) -> Self {
        let task = Self::task_of(store, record).await;
        StoredLog {
            run_id: record.run_id.clone(),
            task,
        }
    }

    /// The stored log of `run_id` in `thread_id` (a plain log when the run cannot be read).
    pub(crate) async fn find(store: &Store, thread_id: &str, run_id: &str) -> Self {
        match store.runs.get(thread_id, run_id).await {
            Ok(Some(record)) => Self::of(store, &record).await,
            _ => StoredLog {
                run_id: run_id.to_string(),
                task: None,
            },
        }
    }

    async fn task_of(store: &Store, record: &RunRecord) -> Option<TaskEvents> {
        let parent = record.metadata.get("parent_run_id")?.as_str()?;
        let task_id = record.metadata.get("task_id")?.as_str()?;
        let task_id = serde_json::Value::from(task_id).to_string();
        // Only the parent's own word makes this run its subagent (metadata can be anyone's).
        let started = format!(
            r#"{{"type":"task_started","task_id":{task_id},"run_id":{},"#,
            serde_json::Value::from(record.run_id.as_str())
        );
        let found = store
            .runs
            .events_with_prefix(parent, 0, StreamMode::Custom.event_name(), &started)
            .await
            .ok()?;
        found.first()?;
        Some(TaskEvents {
            parent_run_id: parent.to_string(),
            prefix: task_event_prefix(&task_id),
            parent_after: 0,
            pending: VecDeque::new(),
            next_seq: 1,
        })
    }

    /// The parent run whose stored events make up this one's (a subagent's).
    pub(crate) fn parent(&self) -> Option<&str> {
        self.task.as_ref().map(|t| t.parent_run_id.as_str())
    }

    /// The stored events after `after`, in order. For a subagent, only as far as they follow
    /// each other: an event stored in its own log waits for the parent's before it.
    pub(crate) async fn after(
        &mut self,
        store: &Store,
        after: u64,
    ) -> Result<Vec<RunEvent>, StoreError> {
        let Some(task) = &mut self.task else {
            return Ok(store
                .runs
                .events_after(&self.run_id, after)
                .await?
                .into_iter()
                .map(RunEvent::stored)
                .collect());
        };
        if after + 1 < task.next_seq {
            // Asked for events already placed: start over.
            task.parent_after = 0;
            task.pending.clear();
            task.next_seq = 1;
        }
        let own = store
            .runs
            .events_after(&self.run_id, task.next_seq - 1)
            .await?;
        let custom = StreamMode::Custom.event_name();
        for e in store
            .runs
            .events_with_prefix(&task.parent_run_id, task.parent_after, custom, &task.prefix)
            .await?
        {
            task.parent_after = e.seq;
            match e
                .data
                .strip_prefix(task.prefix.as_str())
                .and_then(unwrap_task_event)
            {
                Some((event, data)) => task.pending.push_back((event.into(), data.into())),
                None => {
                    tracing::warn!(run.id = %task.parent_run_id, seq = e.seq, "a task_event that does not parse is left out");
                }
            }
        }
        let mut out = Vec::new();
        let mut own = own.into_iter().peekable();
        loop {
            if let Some(o) = own.next_if(|o| o.seq <= task.next_seq) {
                if o.seq == task.next_seq {
                    out.push(RunEvent::stored(o));
                    task.next_seq += 1;
                }
                continue;
            }
            let Some((event, data)) = task.pending.pop_front() else {
                break;
            };
            let mode = StreamMode::of_event(&event);
            out.push(RunEvent::new(task.next_seq, event, data, mode));
            task.next_seq += 1;
        }
        out.retain(|e| e.seq > after);
        Ok(out)
    }
}
