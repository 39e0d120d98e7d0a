//! A run's event log: every SSE event gets a sequence number (its SSE id), is kept in memory
//! (bounded by bytes) for joiners, broadcast to live subscribers, and persisted in batches so
//! a client joining after the run — or after the memory bound dropped early events — still
//! replays everything from the database.

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use antler_protocol::stream::{StreamEvent, StreamMode};
use antler_store::{Store, StoredEvent};
use tokio::sync::{broadcast, mpsc};

/// One event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunEvent {
    /// Position in the log (the SSE id).
    pub seq: u64,
    /// SSE event name.
    pub event: String,
    /// JSON text.
    pub data: String,
    /// The mode that produced it (`None`: `metadata`, `error`, `end` go to everyone).
    pub mode: Option<StreamMode>,
}

impl RunEvent {
    /// Whether a subscriber asking for `modes` gets it.
    pub fn wanted(&self, modes: &HashSet<StreamMode>) -> bool {
        self.mode.is_none_or(|m| modes.contains(&m))
    }

    /// A stored event (its mode follows from its name).
    pub fn stored(e: StoredEvent) -> Self {
        RunEvent {
            mode: StreamMode::of_event(&e.event),
            seq: e.seq,
            event: e.event,
            data: e.data,
        }
    }

    /// Whether this is the last event of a run.
    pub fn is_end(&self) -> bool {
        self.event == StreamEvent::End.name()
    }

    fn size(&self) -> usize {
        self.event.len() + self.data.len() + 48
    }
}

struct LogState {
    events: VecDeque<Arc<RunEvent>>,
    bytes: usize,
    next_seq: u64,
    finished: bool,
    persist: Option<mpsc::UnboundedSender<Arc<RunEvent>>>,
    /// The last sequence number the writer is done with. Only events up to it leave memory,
    /// so a joiner reading the gap from the database never misses one still in flight.
    persisted: u64,
}

/// What a subscriber starts from.
pub struct Subscription {
    /// Events after the requested position still in memory.
    pub replay: Vec<Arc<RunEvent>>,
    /// When memory no longer holds the events right after the position: the first sequence
    /// number in memory (read the ones before it from the database).
    pub gap_until: Option<u64>,
    /// Live events from now on.
    pub live: broadcast::Receiver<Arc<RunEvent>>,
}

/// A subagent's log copies its events into its parent's as `task_event`s.
struct Forward {
    parent: Arc<EventLog>,
    /// The task id as a JSON string.
    task_id: String,
}

/// The log of one run.
pub struct EventLog {
    run_id: String,
    modes: HashSet<StreamMode>,
    max_bytes: usize,
    state: Mutex<LogState>,
    tx: broadcast::Sender<Arc<RunEvent>>,
    forward: std::sync::OnceLock<Forward>,
}

impl std::fmt::Debug for EventLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventLog")
            .field("run_id", &self.run_id)
            .finish_non_exhaustive()
    }
}

impl EventLog {
    /// A log for `run_id` recording `modes`; returns it and the task persisting it (finished
    /// once [`EventLog::finish`] was called and everything was written).
    pub fn new(
        run_id: &str,
        modes: HashSet<StreamMode>,
        max_bytes: usize,
        store: Store,
    ) -> (Arc<Self>, tokio::task::JoinHandle<()>) {
        let (persist, rx) = mpsc::unbounded_channel();
        // Slots are allocated up front for every run; a reader that lags re-reads from memory.
        let (tx, _) = broadcast::channel(512);
        let log = Arc::new(EventLog {
            run_id: run_id.to_string(),
            modes,
            max_bytes,
            state: Mutex::new(LogState {
                events: VecDeque::new(),
                bytes: 0,
                next_seq: 1,
                finished: false,
                persist: Some(persist),
                persisted: 0,
            }),
            tx,
            forward: std::sync::OnceLock::new(),
        });
        let writer = tokio::spawn(write_batches(
            run_id.to_string(),
            rx,
            store,
            Arc::downgrade(&log),
        ));
        (log, writer)
    }

    /// The modes this run records.
    pub fn modes(&self) -> &HashSet<StreamMode> {
        &self.modes
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LogState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether events of `mode` are recorded (callers skip building the ones that are not).
    pub fn wants(&self, mode: StreamMode) -> bool {
        self.modes.contains(&mode)
    }

    /// From now on, every streamed event (not `metadata`, `error` or `end`) is also sent to
    /// `parent` as a `custom` event `{"type": "task_event", "task_id", "event", "data"}`.
    pub fn forward_to(&self, parent: Arc<EventLog>, task_id: &str) {
        let task_id = serde_json::Value::from(task_id).to_string();
        let _ = self.forward.set(Forward { parent, task_id });
    }

    /// Records an event (skipped when its mode was not asked for). Never blocks on readers.
    pub fn emit(&self, event: &StreamEvent<'_>) -> Option<u64> {
        let mode = event.mode();
        if mode.is_some_and(|m| !self.modes.contains(&m)) {
            return None;
        }
        let recorded = self.record(event.name(), mode, event.data())?;
        if let (Some(forward), Some(_)) = (self.forward.get(), mode)
            && forward.parent.wants(StreamMode::Custom)
        {
            // Built as text: the child's data is JSON already, and chunks are many.
            forward.parent.record(
                "custom",
                Some(StreamMode::Custom),
                format!(
                    r#"{{"type":"task_event","task_id":{},"event":"{}","data":{}}}"#,
                    forward.task_id, recorded.event, recorded.data
                ),
            );
        }
        Some(recorded.seq)
    }

    /// Records an event given as JSON text (skipped when its mode was not asked for).
    fn record(&self, name: &str, mode: Option<StreamMode>, data: String) -> Option<Arc<RunEvent>> {
        if mode.is_some_and(|m| !self.modes.contains(&m)) {
            return None;
        }
        let mut state = self.lock();
        if state.finished {
            return None;
        }
        let event = Arc::new(RunEvent {
            seq: state.next_seq,
            event: name.to_string(),
            data,
            mode,
        });
        state.next_seq += 1;
        state.bytes += event.size();
        state.events.push_back(event.clone());
        self.evict(&mut state);
        if let Some(p) = &state.persist {
            let _ = p.send(event.clone());
        }
        // Sent under the lock so subscribers see events in order without gaps.
        let _ = self.tx.send(event.clone());
        if event.is_end() {
            state.finished = true;
            state.persist = None;
        }
        Some(event)
    }

    /// Drops the oldest events over the memory bound, as far as they are persisted.
    fn evict(&self, state: &mut LogState) {
        while state.bytes > self.max_bytes
            && state.events.len() > 1
            && state
                .events
                .front()
                .is_some_and(|e| e.seq <= state.persisted)
        {
            if let Some(old) = state.events.pop_front() {
                state.bytes -= old.size();
            }
        }
    }

    /// Notes that the writer is done with every event up to `seq`.
    fn persisted(&self, seq: u64) {
        let mut state = self.lock();
        state.persisted = state.persisted.max(seq);
        self.evict(&mut state);
    }

    /// Starts following the log after position `after`.
    pub fn subscribe(&self, after: u64) -> Subscription {
        let state = self.lock();
        let live = self.tx.subscribe();
        let first = state.events.front().map(|e| e.seq);
        let gap_until = first.filter(|f| *f > after + 1);
        let replay = state
            .events
            .iter()
            .filter(|e| e.seq > after)
            .cloned()
            .collect();
        Subscription {
            replay,
            gap_until,
            live,
        }
    }
}

/// Writes events in batches (one transaction per batch) until the log ends.
async fn write_batches(
    run_id: String,
    mut rx: mpsc::UnboundedReceiver<Arc<RunEvent>>,
    store: Store,
    log: std::sync::Weak<EventLog>,
) {
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        // Gather what arrives in the next moment into the same transaction.
        tokio::time::sleep(Duration::from_millis(20)).await;
        while let Ok(more) = rx.try_recv() {
            batch.push(more);
            if batch.len() >= 2_000 {
                break;
            }
        }
        let rows: Vec<StoredEvent> = batch
            .iter()
            .map(|e| StoredEvent {
                seq: e.seq,
                event: e.event.clone(),
                data: e.data.clone(),
            })
            .collect();
        let mut attempt = 0;
        while let Err(error) = store.runs.append_events(&run_id, &rows).await {
            attempt += 1;
            if attempt >= 5 {
                tracing::error!(run.id = %run_id, %error, lost = rows.len(), "run events could not be persisted");
                break;
            }
            tokio::time::sleep(Duration::from_millis(100 * attempt)).await;
        }
        // Written, or given up on after the retries: memory may let these go either way.
        if let (Some(log), Some(last)) = (log.upgrade(), rows.last()) {
            log.persisted(last.seq);
        }
    }
}
