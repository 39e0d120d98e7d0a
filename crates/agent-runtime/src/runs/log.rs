//! A run's event log: every SSE event gets a sequence number (its SSE id), is kept in memory
//! (bounded by bytes) where followers read it with a cursor of their own, and is persisted in
//! batches so a client joining after the run — or after the memory bound dropped early
//! events — still replays everything from the database.
//!
//! A subagent's log copies its streamed events into its parent's as `task_event`s; those are
//! stored only there (see [`super::stored`] for how the subagent's stream is read back).

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::Waker;
use std::time::Duration;

use antler_protocol::stream::{StreamEvent, StreamMode};
use antler_store::StoredEvent;

use super::sink::EventSink;
use bytes::Bytes;
use tokio::sync::{mpsc, watch};

/// One event.
#[derive(Debug, Clone)]
pub struct RunEvent {
    /// Position in the log (the SSE id).
    pub seq: u64,
    /// SSE event name.
    pub event: String,
    /// JSON text.
    pub data: String,
    /// The mode that produced it (`None`: `metadata`, `error`, `end` go to everyone).
    pub mode: Option<StreamMode>,
    /// The SSE frame, encoded by the first follower for all of them.
    frame: OnceLock<Bytes>,
}

impl PartialEq for RunEvent {
    fn eq(&self, other: &Self) -> bool {
        (self.seq, &self.event, &self.data, self.mode)
            == (other.seq, &other.event, &other.data, other.mode)
    }
}

impl Eq for RunEvent {}

impl RunEvent {
    /// An event at `seq`.
    pub fn new(seq: u64, event: String, data: String, mode: Option<StreamMode>) -> Self {
        RunEvent {
            seq,
            event,
            data,
            mode,
            frame: OnceLock::new(),
        }
    }

    /// Whether a subscriber asking for `modes` gets it.
    pub fn wanted(&self, modes: &HashSet<StreamMode>) -> bool {
        self.mode.is_none_or(|m| modes.contains(&m))
    }

    /// A stored event (its mode follows from its name).
    pub fn stored(e: StoredEvent) -> Self {
        let mode = StreamMode::of_event(&e.event);
        RunEvent::new(e.seq, e.event, e.data, mode)
    }

    /// Whether this is the last event of a run.
    pub fn is_end(&self) -> bool {
        self.event == StreamEvent::End.name()
    }

    /// The event as the bytes of an SSE message (`event:`, `id:`, then one `data:` line per
    /// line of data), encoded once and shared by every follower.
    pub fn sse_frame(&self) -> Bytes {
        self.frame
            .get_or_init(|| {
                let mut out = Vec::with_capacity(self.event.len() + self.data.len() + 40);
                out.extend_from_slice(b"event: ");
                out.extend_from_slice(self.event.as_bytes());
                out.extend_from_slice(b"\nid: ");
                out.extend_from_slice(self.seq.to_string().as_bytes());
                out.extend_from_slice(b"\ndata: ");
                // A line break in the data starts another `data:` line (JSON text has none).
                for b in self.data.bytes() {
                    out.push(b);
                    if b == b'\n' || b == b'\r' {
                        out.extend_from_slice(b"data: ");
                    }
                }
                out.extend_from_slice(b"\n\n");
                Bytes::from(out)
            })
            .clone()
    }

    /// What it counts for in the log's memory bound (its frame, once a follower asked for
    /// it, comes on top: a bound of the same events as before frames were shared).
    fn size(&self) -> usize {
        self.event.len() + self.data.len() + 48
    }
}

/// An event on its way to the database.
struct ToPersist {
    event: Arc<RunEvent>,
    /// The parent's sequence number when the parent's log stores it instead (a forwarded
    /// subagent event): the writer only waits until the parent has written it.
    in_parent: Option<u64>,
}

struct LogState {
    events: VecDeque<Arc<RunEvent>>,
    bytes: usize,
    next_seq: u64,
    finished: bool,
    persist: Option<mpsc::UnboundedSender<ToPersist>>,
    /// The last sequence number the writer is done with. Only events up to it leave memory,
    /// so a joiner reading the gap from the database never misses one still in flight.
    persisted: u64,
    /// Followers that read everything there was, by follower id: woken by the next event.
    waiting: HashMap<u64, Waker>,
}

/// A subagent's log copies its events into its parent's as `task_event`s.
struct Forward {
    parent: Arc<EventLog>,
    /// The task id as a JSON string.
    task_id: String,
}

/// What a follower finds after its position.
#[derive(Debug)]
pub(crate) enum Next {
    /// The next event it wants.
    Event(Arc<RunEvent>),
    /// Memory no longer holds the events right after its position: the first it holds.
    Gap(u64),
    /// The log ended with nothing more for it.
    Ended,
    /// Nothing yet: the waker given is woken by the next event.
    Waiting,
}

/// The log of one run.
pub struct EventLog {
    run_id: String,
    modes: HashSet<StreamMode>,
    max_bytes: usize,
    state: Mutex<LogState>,
    forward: OnceLock<Forward>,
    /// Ids for followers (to find their waker again).
    followers: AtomicU64,
    /// The last sequence number the writer is done with (subagents' writers wait on it).
    persisted: watch::Sender<u64>,
    /// Where its writer sends its batches (and its subagents' writers theirs).
    sink: EventSink,
    /// The translation into `events` events, when that mode is recorded.
    events: Option<Mutex<super::events_mode::EventsMode>>,
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
    pub(crate) fn new(
        run_id: &str,
        modes: HashSet<StreamMode>,
        max_bytes: usize,
        sink: EventSink,
    ) -> (Arc<Self>, tokio::task::JoinHandle<()>) {
        let (persist, rx) = mpsc::unbounded_channel();
        let log = Arc::new(EventLog {
            run_id: run_id.to_string(),
            max_bytes,
            state: Mutex::new(LogState {
                events: VecDeque::new(),
                bytes: 0,
                next_seq: 1,
                finished: false,
                persist: Some(persist),
                persisted: 0,
                waiting: HashMap::new(),
            }),
            forward: OnceLock::new(),
            followers: AtomicU64::new(0),
            persisted: watch::channel(0).0,
            sink: sink.clone(),
            events: modes
                .contains(&StreamMode::Events)
                .then(|| Mutex::new(super::events_mode::EventsMode::new(run_id))),
            modes,
        });
        let writer = tokio::spawn(write_batches(
            run_id.to_string(),
            rx,
            sink,
            Arc::downgrade(&log),
        ));
        (log, writer)
    }

    /// Where this log's events are written (a subagent's log writes there too).
    pub(crate) fn sink(&self) -> &EventSink {
        &self.sink
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

    /// Whether events of `mode` are recorded or needed (callers skip building the ones that
    /// are not): the `events` mode is made from `messages`, `updates` and `values`.
    pub fn wants(&self, mode: StreamMode) -> bool {
        self.modes.contains(&mode)
            || (self.events.is_some()
                && matches!(
                    mode,
                    StreamMode::Messages | StreamMode::Updates | StreamMode::Values
                ))
    }

    /// The run's input, for the `events` mode's start of the graph.
    pub(crate) fn set_input(&self, input: serde_json::Value) {
        if let Some(events) = &self.events {
            events
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .set_input(input);
        }
    }

    /// From now on, every streamed event (not `metadata`, `error` or `end`) is also sent to
    /// `parent` as a `custom` event `{"type": "task_event", "task_id", "event", "data"}`, and
    /// stored there only.
    pub fn forward_to(&self, parent: Arc<EventLog>, task_id: &str) {
        let task_id = serde_json::Value::from(task_id).to_string();
        let _ = self.forward.set(Forward { parent, task_id });
    }

    /// Records an event (skipped when its mode was not asked for). Never blocks on readers.
    pub fn emit(&self, event: &StreamEvent<'_>) -> Option<u64> {
        let Some(events) = &self.events else {
            return self.emit_one(event);
        };
        let translated = events
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .translate(event);
        let name = StreamMode::Events.event_name();
        for data in translated.before {
            self.record(name, Some(StreamMode::Events), data);
        }
        let seq = self.emit_one(event);
        for data in translated.after {
            self.record(name, Some(StreamMode::Events), data);
        }
        seq
    }

    fn emit_one(&self, event: &StreamEvent<'_>) -> Option<u64> {
        let mode = event.mode();
        if mode.is_some_and(|m| !self.modes.contains(&m)) {
            return None;
        }
        self.record(event.name(), mode, event.data()).map(|e| e.seq)
    }

    /// Records an event given as JSON text (skipped when its mode was not asked for).
    fn record(&self, name: &str, mode: Option<StreamMode>, data: String) -> Option<Arc<RunEvent>> {
        if mode.is_some_and(|m| !self.modes.contains(&m)) {
            return None;
        }
        let (event, woken) = {
            let mut state = self.lock();
            if state.finished {
                return None;
            }
            let event = Arc::new(RunEvent::new(state.next_seq, name.to_string(), data, mode));
            // Copied to the parent under this log's lock, so the parent holds a subagent's
            // events in their order here (the stored stream of the subagent relies on it).
            let in_parent = self.forward(&event);
            state.next_seq += 1;
            state.bytes += event.size();
            state.events.push_back(event.clone());
            self.evict(&mut state);
            if let Some(p) = &state.persist {
                let _ = p.send(ToPersist {
                    event: event.clone(),
                    in_parent,
                });
            }
            if event.is_end() {
                state.finished = true;
                state.persist = None;
            }
            let woken: Vec<Waker> = state.waiting.drain().map(|(_, w)| w).collect();
            (event, woken)
        };
        for w in woken {
            w.wake();
        }
        Some(event)
    }

    /// Copies a streamed event into the parent's log; the parent's sequence number for it.
    fn forward(&self, event: &RunEvent) -> Option<u64> {
        let forward = self.forward.get()?;
        event.mode?;
        if !forward.parent.wants(StreamMode::Custom) {
            return None;
        }
        // Built as text: the child's data is JSON already, and chunks are many.
        let copy = forward.parent.record(
            StreamMode::Custom.event_name(),
            Some(StreamMode::Custom),
            super::stored::task_event(&forward.task_id, &event.event, &event.data),
        )?;
        Some(copy.seq)
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
        self.persisted.send_replace(state.persisted);
    }

    /// A new follower's id (for [`EventLog::next_after`]).
    pub(crate) fn follower(&self) -> u64 {
        self.followers.fetch_add(1, Ordering::Relaxed)
    }

    /// The first event after `*last` that `modes` want (empty: all), moving `*last` past the
    /// ones they do not. When there is none yet, `waker` is woken by the next event.
    pub(crate) fn next_after(
        &self,
        last: &mut u64,
        modes: &HashSet<StreamMode>,
        follower: u64,
        waker: &Waker,
    ) -> Next {
        let mut state = self.lock();
        if let Some(first) = state.events.front().map(|e| e.seq) {
            let want = last.saturating_add(1);
            if want < first {
                return Next::Gap(first);
            }
            let skip = usize::try_from(want - first).unwrap_or(usize::MAX);
            for e in state.events.iter().skip(skip) {
                *last = e.seq;
                if modes.is_empty() || e.wanted(modes) {
                    let e = e.clone();
                    state.waiting.remove(&follower);
                    return Next::Event(e);
                }
            }
        }
        if state.finished {
            state.waiting.remove(&follower);
            return Next::Ended;
        }
        match state.waiting.get_mut(&follower) {
            Some(w) if w.will_wake(waker) => {}
            Some(w) => w.clone_from(waker),
            None => {
                state.waiting.insert(follower, waker.clone());
            }
        }
        Next::Waiting
    }

    /// The follower went away.
    pub(crate) fn unfollow(&self, follower: u64) {
        self.lock().waiting.remove(&follower);
    }
}

/// Writes events in batches (with other runs' batches, one transaction) until the log ends.
async fn write_batches(
    run_id: String,
    mut rx: mpsc::UnboundedReceiver<ToPersist>,
    sink: EventSink,
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
        // Forwarded events are the parent's to write: wait until it has, so that a stored
        // `end` of a subagent means the events before it are stored too.
        if let Some(in_parent) = batch.iter().filter_map(|p| p.in_parent).max() {
            let parent = log
                .upgrade()
                .and_then(|l| l.forward.get().map(|f| f.parent.persisted.subscribe()));
            if let Some(mut parent) = parent {
                let _ = parent.wait_for(|seq| *seq >= in_parent).await;
            }
        }
        let rows: Arc<Vec<StoredEvent>> = Arc::new(
            batch
                .iter()
                .filter(|p| p.in_parent.is_none())
                .map(|p| StoredEvent {
                    seq: p.event.seq,
                    event: p.event.event.clone(),
                    data: p.event.data.clone(),
                })
                .collect(),
        );
        let mut attempt = 0;
        while !rows.is_empty()
            && let Err(error) = sink.append(&run_id, rows.clone()).await
        {
            attempt += 1;
            if attempt >= 5 {
                tracing::error!(run.id = %run_id, %error, lost = rows.len(), "run events could not be persisted");
                break;
            }
            tokio::time::sleep(Duration::from_millis(100 * attempt)).await;
        }
        // Written, or given up on after the retries: memory may let these go either way.
        if let (Some(log), Some(last)) = (log.upgrade(), batch.last()) {
            log.persisted(last.event.seq);
        }
    }
}
