//! Following a run's events from a position, as a stream polled by the connection serving it
//! (no task or channel of its own): memory first, through a cursor over the run's log that
//! new events wake; the database for what memory no longer holds, for runs that ended here
//! or run on another replica; until `end`. A follower that falls behind reads on from memory
//! or the database at its own pace, never slowing the run.

use std::collections::{HashSet, VecDeque};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use antler_protocol::stream::StreamMode;
use futures::stream::BoxStream;
use futures::{Stream, StreamExt};

use super::log::{EventLog, Next, RunEvent};
use super::manager::RunManager;
use super::stored::StoredLog;

/// What the database side of a follower yields.
enum Step {
    Event(Arc<RunEvent>),
    /// The run's log is in memory here now: read on from there.
    InMemory,
}

enum State {
    /// Looking for the run's log in memory, else reading the database.
    Find,
    /// Reading the run's log in memory.
    Live { log: Arc<EventLog>, follower: u64 },
    /// Reading the database.
    Stored(BoxStream<'static, Step>),
    /// After `end`, or when the run cannot be followed any further.
    Done,
}

/// The events of a run after a position that a follower wants, ending with `end`.
pub struct Events {
    runtime: Arc<RunManager>,
    thread_id: String,
    run_id: String,
    modes: HashSet<StreamMode>,
    /// The last event id handed out or passed over.
    last: u64,
    state: State,
}

/// Streams the events of `run_id` after `after` (an SSE id) that `modes` want, ending with
/// `end`. An empty `modes` means every mode the run records.
pub fn follow(
    runtime: Arc<RunManager>,
    thread_id: String,
    run_id: String,
    after: u64,
    modes: HashSet<StreamMode>,
) -> Events {
    Events {
        runtime,
        thread_id,
        run_id,
        modes,
        last: after,
        state: State::Find,
    }
}

impl Events {
    fn wanted(&self, e: &RunEvent) -> bool {
        self.modes.is_empty() || e.wanted(&self.modes)
    }

    /// Leaves the in-memory log (if reading it) for `next`.
    fn switch(&mut self, next: State) {
        if let State::Live { log, follower } = std::mem::replace(&mut self.state, next) {
            log.unfollow(follower);
        }
    }
}

impl Drop for Events {
    fn drop(&mut self) {
        self.switch(State::Done);
    }
}

impl Stream for Events {
    type Item = Arc<RunEvent>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            match &mut this.state {
                State::Done => return Poll::Ready(None),
                State::Find => {
                    this.state = match this.runtime.live_log(&this.run_id) {
                        Some(log) => State::Live {
                            follower: log.follower(),
                            log,
                        },
                        None => State::Stored(follow_stored(
                            this.runtime.clone(),
                            this.thread_id.clone(),
                            this.run_id.clone(),
                            this.last,
                        )),
                    };
                }
                State::Live { log, follower } => {
                    match log.next_after(&mut this.last, &this.modes, *follower, cx.waker()) {
                        Next::Event(e) => {
                            if e.is_end() {
                                this.switch(State::Done);
                            }
                            return Poll::Ready(Some(e));
                        }
                        Next::Gap(first_in_memory) => {
                            let gap = read_gap(
                                this.runtime.clone(),
                                this.thread_id.clone(),
                                this.run_id.clone(),
                                this.last,
                                first_in_memory,
                            );
                            this.switch(State::Stored(gap));
                        }
                        Next::Ended => {
                            this.switch(State::Done);
                            return Poll::Ready(None);
                        }
                        Next::Waiting => return Poll::Pending,
                    }
                }
                State::Stored(stored) => match std::task::ready!(stored.poll_next_unpin(cx)) {
                    Some(Step::Event(e)) => {
                        if e.seq <= this.last {
                            continue;
                        }
                        this.last = e.seq;
                        if e.is_end() {
                            this.state = State::Done;
                            return Poll::Ready(Some(e));
                        }
                        if this.wanted(&e) {
                            return Poll::Ready(Some(e));
                        }
                    }
                    Some(Step::InMemory) => this.state = State::Find,
                    None => this.state = State::Done,
                },
            }
        }
    }
}

/// The stored events after `last` and before `first_in_memory` (which memory no longer
/// holds), then back to memory. Read again while the database does not answer, so a
/// follower does not skip events silently; only events whose write failed for good are
/// skipped, with a warning.
fn read_gap(
    runtime: Arc<RunManager>,
    thread_id: String,
    run_id: String,
    last: u64,
    first_in_memory: u64,
) -> BoxStream<'static, Step> {
    futures::stream::once(async move {
        let store = &runtime.deps().store;
        let mut log = StoredLog::find(store, &thread_id, &run_id).await;
        let mut stored = Vec::new();
        for attempt in 1..=5 {
            stored = log.after(store, last).await.unwrap_or_default();
            stored.retain(|e| e.seq < first_in_memory);
            if stored.last().is_some_and(|e| e.seq + 1 == first_in_memory) {
                break;
            }
            if attempt == 5 {
                tracing::warn!(run.id = %run_id, from = last + 1, to = first_in_memory - 1, "stored run events are missing; the stream skips them");
            }
            tokio::time::sleep(Duration::from_millis(100 * attempt)).await;
        }
        futures::stream::iter(
            stored
                .into_iter()
                .map(|e| Step::Event(Arc::new(e)))
                .chain([Step::InMemory]),
        )
    })
    .flatten()
    .boxed()
}

/// Reading a run that is not in memory here (it ended, or runs on another replica) from the
/// database until `end`, woken by notices of new events (and polling, should one be lost).
struct StoredFollow {
    runtime: Arc<RunManager>,
    thread_id: String,
    run_id: String,
    last: u64,
    log: Option<StoredLog>,
    notices: tokio::sync::broadcast::Receiver<antler_store::Notice>,
    /// When the run was first seen finished with no new events since.
    quiet_since: Option<tokio::time::Instant>,
    ready: VecDeque<Arc<RunEvent>>,
    /// Events were just read: wait for more before reading again.
    just_read: bool,
    ended: bool,
}

fn follow_stored(
    runtime: Arc<RunManager>,
    thread_id: String,
    run_id: String,
    last: u64,
) -> BoxStream<'static, Step> {
    let notices = runtime.deps().store.bus.subscribe();
    let state = StoredFollow {
        runtime,
        thread_id,
        run_id,
        last,
        log: None,
        notices,
        quiet_since: None,
        ready: VecDeque::new(),
        just_read: false,
        ended: false,
    };
    futures::stream::unfold(state, |mut s| async move {
        let step = s.next().await?;
        Some((step, s))
    })
    .boxed()
}

impl StoredFollow {
    async fn next(&mut self) -> Option<Step> {
        loop {
            if let Some(e) = self.ready.pop_front() {
                return Some(Step::Event(e));
            }
            if self.ended {
                return None;
            }
            if !std::mem::take(&mut self.just_read) && self.read().await {
                continue;
            }
            if self.runtime.live_log(&self.run_id).is_some() {
                return Some(Step::InMemory);
            }
            let active = self
                .runtime
                .run_is_active(&self.thread_id, &self.run_id)
                .await;
            // A finished run whose `end` never came (its process died before writing it)
            // gets its terminal events written after a quiet spell, then they are read like
            // any others. The spell counts from when the run was seen finished: a takeover
            // marks the run first and writes `end` after.
            if active {
                self.quiet_since = None;
            } else if self
                .quiet_since
                .get_or_insert_with(tokio::time::Instant::now)
                .elapsed()
                > Duration::from_secs(5)
            {
                self.quiet_since = None;
                if !self
                    .runtime
                    .end_missing_log(&self.thread_id, &self.run_id)
                    .await
                {
                    return None;
                }
                continue;
            }
            let poll = Duration::from_millis(if active { 1000 } else { 200 });
            let parent = self.log.as_ref().and_then(StoredLog::parent);
            let runs: Vec<&str> = [Some(self.run_id.as_str()), parent]
                .into_iter()
                .flatten()
                .collect();
            super::notices::stored_events(&mut self.notices, Some(&runs), poll).await;
        }
    }

    /// Reads the stored events after the last one; whether there were any.
    async fn read(&mut self) -> bool {
        let store = &self.runtime.deps().store;
        let log = match &mut self.log {
            Some(log) => log,
            None => self
                .log
                .insert(StoredLog::find(store, &self.thread_id, &self.run_id).await),
        };
        let stored = log.after(store, self.last).await.unwrap_or_default();
        if stored.is_empty() {
            return false;
        }
        self.quiet_since = None;
        self.just_read = true;
        for e in stored {
            self.last = e.seq;
            let end = e.is_end();
            self.ready.push_back(Arc::new(e));
            if end {
                self.ended = true;
                break;
            }
        }
        true
    }
}
