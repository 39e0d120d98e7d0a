//! `GET /api/threads/{thread_id}/stream`: follows a thread's runs (LangGraph's thread
//! `joinStream`). It streams the events of the thread's pending and running runs one after
//! another, oldest first, as each run's own join stream sends them (its `metadata` first;
//! each run's `end` is left out), picks up runs queued or started meanwhile, and ends with
//! one `end` when the thread has no active run left. A thread with no active run answers
//! just `end`, at once: the stream follows runs, it does not wait for the next one (call it
//! again after starting one). Event ids are `<run_id>:<seq>`, so `Last-Event-ID` resumes
//! after an event of any run it followed. Before its `end` it waits for the follow-up
//! suggestions still being written for the thread's last answer, and sends them as a
//! `custom` event without an id (see `antler_agent_runtime::suggestions`).

use std::collections::{HashSet, VecDeque};
use std::time::Duration;

use antler_app::Caller;
use antler_app::runs::Events;
use antler_protocol::error::ErrorEnvelope;
use antler_protocol::stream::{CustomEvent, StreamEvent, StreamMode};
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;
use bytes::Bytes;
use futures::StreamExt;
use serde::Deserialize;
use utoipa::IntoParams;

use super::runs::parse_modes;
use crate::error::{ApiResult, AppError};
use crate::extract::ApiListQuery;
use crate::params::ThreadId;
use crate::state::{AppState, Identity};

/// The keep-alive comment.
const HEARTBEAT: &[u8] = b": \n\n";

/// Options of a thread's stream.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ThreadStreamQuery {
    /// Modes to receive (empty: every mode each run streams); repeated for several.
    #[serde(default)]
    #[param(value_type = Option<Vec<StreamMode>>, style = Form, explode)]
    pub stream_mode: Vec<String>,
}

/// Follows the thread's runs: the events of its pending and running runs, oldest first,
/// then `end` once none is left (at once when none is active). Ids are `<run_id>:<seq>`;
/// send `Last-Event-ID` to resume after one.
#[utoipa::path(
    get,
    path = "/api/threads/{thread_id}/stream",
    tag = "runs",
    params(
        ("thread_id" = String, Path, description = "Thread id"),
        ("Last-Event-ID" = Option<String>, Header, description = "Resume after this event (`<run_id>:<seq>`)"),
        ThreadStreamQuery,
    ),
    responses(
        (status = 200, description = "The event stream", content_type = "text/event-stream"),
        (status = 400, description = "Invalid Last-Event-ID", body = ErrorEnvelope),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id or stream mode", body = ErrorEnvelope),
    )
)]
pub async fn join_thread_stream(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    ApiListQuery(query): ApiListQuery<ThreadStreamQuery>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let modes = parse_modes(&query.stream_mode)?;
    let resume = match headers
        .get("last-event-id")
        .map(|v| v.to_str().unwrap_or("x").trim())
    {
        None | Some("") => None,
        Some(v) => Some(parse_last_event_id(v)?),
    };
    let mut pending: VecDeque<(String, u64)> = VecDeque::new();
    if let Some((run_id, seq)) = &resume {
        // The run it stopped in: the rest of it first (404 when not this thread's).
        app.runs
            .follow(&caller, &thread_id, run_id, *seq, HashSet::new())
            .await?;
        pending.push_back((run_id.clone(), *seq));
    }
    let active = app.runs.active_run_ids(&caller, &thread_id).await?;
    let follower = Follower {
        app: app.clone(),
        caller,
        thread_id: thread_id.clone(),
        modes,
        seen: pending.iter().map(|(r, _)| r.clone()).collect(),
        pending,
        current: None,
        done: false,
        suggestions: None,
        suggested: false,
        heartbeat: Duration::from_secs(app.config.agent.heartbeat_secs),
    };
    let follower = active.into_iter().fold(follower, |mut f, id| {
        if f.seen.insert(id.clone()) {
            f.pending.push_back((id, 0));
        }
        f
    });
    let body = futures::stream::unfold(follower, |mut f| async move {
        let frame = f.next().await?;
        Some((Ok::<Bytes, std::convert::Infallible>(frame), f))
    })
    .boxed();
    let mut response = Response::new(Body::from_stream(body));
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    // Where to rejoin after a dropped connection, relative to the API root as the SDKs read it.
    if let Ok(rejoin) = HeaderValue::from_str(&format!("/threads/{thread_id}/stream")) {
        h.insert(header::LOCATION, rejoin);
    }
    Ok(response)
}

/// `<run_id>:<seq>` of a thread stream's event.
/// What `Last-Event-ID` of a thread stream looks like (the OpenAPI document says so too):
/// a run id, hyphenated, and an event number; spaces around it are ignored, and an empty
/// one is no position at all (as the run stream's).
pub(crate) const EVENT_ID_PATTERN: &str = "^ *([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}:[0-9]{1,19})? *$";

fn parse_last_event_id(v: &str) -> Result<(String, u64), AppError> {
    let parsed = v.trim_matches(' ').rsplit_once(':').and_then(|(run, seq)| {
        if run.len() != 36
            || !(1..=19).contains(&seq.len())
            || !seq.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let seq = seq.parse::<u64>().ok()?;
        uuid::Uuid::parse_str(run).ok()?;
        Some((run.to_string(), seq))
    });
    parsed.ok_or_else(|| {
        let shown: String = v.chars().take(80).collect();
        AppError::bad_request(format!(
            "Last-Event-ID {shown:?} is not an event id of a thread stream (<run_id>:<seq>)"
        ))
    })
}

/// The wait for a thread's pending follow-up suggestions.
type SuggestionsWait = futures::future::BoxFuture<'static, Option<CustomEvent>>;

/// The state of one thread stream.
struct Follower {
    app: AppState,
    caller: Caller,
    thread_id: String,
    modes: HashSet<StreamMode>,
    /// Runs followed or queued to follow.
    seen: HashSet<String>,
    /// Runs to follow next, with the event to resume after.
    pending: VecDeque<(String, u64)>,
    current: Option<(String, Events)>,
    done: bool,
    /// The wait for the thread's pending follow-up suggestions.
    suggestions: Option<SuggestionsWait>,
    /// Whether that wait was looked for already.
    suggested: bool,
    heartbeat: Duration,
}

impl Follower {
    /// The next SSE frame: an event, a heartbeat after a quiet spell, or the final `end`.
    async fn next(&mut self) -> Option<Bytes> {
        loop {
            if self.done {
                return None;
            }
            let Some((run_id, events)) = &mut self.current else {
                if self.pending.is_empty() {
                    self.refill().await;
                }
                match self.pending.pop_front() {
                    Some((run_id, after)) => {
                        let events = self.app.runs.events(
                            &self.thread_id,
                            &run_id,
                            after,
                            self.modes.clone(),
                        );
                        self.current = Some((run_id, events));
                        // Its answer may bring suggestions of its own.
                        self.suggested = false;
                        continue;
                    }
                    None if !self.suggested => {
                        self.suggested = true;
                        let wanted =
                            self.modes.is_empty() || self.modes.contains(&StreamMode::Custom);
                        let pending = self
                            .app
                            .runs
                            .manager()
                            .suggestions()
                            .of_thread(&self.thread_id);
                        self.suggestions = pending
                            .filter(|_| wanted)
                            .map(|job| Box::pin(job.wait()) as SuggestionsWait);
                        continue;
                    }
                    None if self.suggestions.is_some() => {
                        let Some(wait) = &mut self.suggestions else {
                            continue;
                        };
                        match tokio::time::timeout(self.heartbeat, wait).await {
                            Err(_) => return Some(Bytes::from_static(HEARTBEAT)),
                            Ok(found) => {
                                self.suggestions = None;
                                if let Some(event) = found {
                                    let event = StreamEvent::Custom(&event);
                                    return Some(frame_without_id(event.name(), &event.data()));
                                }
                                continue;
                            }
                        }
                    }
                    None => {
                        self.done = true;
                        return Some(Bytes::from_static(b"event: end\ndata: null\n\n"));
                    }
                }
            };
            match tokio::time::timeout(self.heartbeat, events.next()).await {
                Err(_) => return Some(Bytes::from_static(HEARTBEAT)),
                Ok(Some(event)) if !event.is_end() => {
                    return Some(frame(run_id, event.seq, &event.event, &event.data));
                }
                // The run ended: on to the next.
                Ok(_) => self.current = None,
            }
        }
    }

    /// Queues the thread's active runs not followed yet (a run that failed to be listed
    /// ends the stream: it cannot know what is left to follow).
    async fn refill(&mut self) {
        match self
            .app
            .runs
            .active_run_ids(&self.caller, &self.thread_id)
            .await
        {
            Ok(ids) => {
                for id in ids {
                    if self.seen.insert(id.clone()) {
                        self.pending.push_back((id, 0));
                    }
                }
            }
            Err(error) => {
                tracing::warn!(thread.id = %self.thread_id, %error, "thread stream could not list the thread's runs");
            }
        }
    }
}

/// An SSE message that is no run's event (follow-up suggestions).
fn frame_without_id(event: &str, data: &str) -> Bytes {
    Bytes::from(format!("event: {event}\ndata: {data}\n\n"))
}

/// An SSE message with the thread stream's id (`<run_id>:<seq>`).
fn frame(run_id: &str, seq: u64, event: &str, data: &str) -> Bytes {
    let mut out = String::with_capacity(event.len() + data.len() + run_id.len() + 40);
    out.push_str("event: ");
    out.push_str(event);
    out.push_str("\nid: ");
    out.push_str(run_id);
    out.push(':');
    out.push_str(&seq.to_string());
    // A line break in the data starts another `data:` line (JSON text has none).
    for line in data.split('\n') {
        out.push_str("\ndata: ");
        out.push_str(line.strip_suffix('\r').unwrap_or(line));
    }
    out.push_str("\n\n");
    Bytes::from(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_ids_name_the_run_and_its_sequence_number() {
        let run = "0190e4d2-7b1c-7cc3-8d2e-1a2b3c4d5e6f";
        assert_eq!(
            frame(run, 7, "values", "{\"a\":1}"),
            Bytes::from(format!("event: values\nid: {run}:7\ndata: {{\"a\":1}}\n\n"))
        );
        assert_eq!(
            parse_last_event_id(&format!("{run}:7")).unwrap(),
            (run.to_string(), 7)
        );
        assert_eq!(
            parse_last_event_id(&format!(" {run}:8  ")).unwrap(),
            (run.to_string(), 8)
        );
        let simple = run.replace('-', "");
        for bad in [
            "7",
            "x:7",
            &format!("{run}:x"),
            run,
            &format!("{run}:10000000000000000000"),
            &format!("{simple}:7"),
            &format!("{run}:+7"),
        ] {
            assert!(parse_last_event_id(bad).is_err(), "{bad}");
        }
    }
}
