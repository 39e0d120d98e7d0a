//! The events of a run's stream (`POST …/runs/stream`, `GET …/runs/{run_id}/stream`).
//!
//! Each event is an SSE `event:` name plus JSON `data:`. Which stream mode produces which
//! event name is written once, in [`StreamMode`]; the runtime emits [`StreamEvent`]s and never
//! spells a name itself.

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use utoipa::ToSchema;

use crate::messages::{AiMessageChunk, Message};
use crate::threads::ThreadValues;
use crate::wire_enum::wire_enum;

wire_enum! {
    /// What a client asks to receive.
    pub enum StreamMode {
        /// The full state after each step (the default).
        Values = "values",
        /// Token chunks and whole messages as `[message, metadata]` pairs.
        MessagesTuple = "messages-tuple",
        /// The same as `messages-tuple` here.
        Messages = "messages",
        /// What each step added.
        Updates = "updates",
        /// Custom events ([`CustomEvent`]).
        Custom = "custom",
        /// LangChain `astream_events` (v2) events: starts and ends of the graph, its nodes,
        /// model calls (with their token chunks) and tool calls.
        Events = "events",
    }
}

impl StreamMode {
    /// The mode as recorded: `messages` and `messages-tuple` are one.
    pub fn canonical(self) -> StreamMode {
        match self {
            StreamMode::MessagesTuple => StreamMode::Messages,
            other => other,
        }
    }

    /// The SSE event name this mode's events carry.
    pub fn event_name(self) -> &'static str {
        match self.canonical() {
            StreamMode::Values => "values",
            StreamMode::Updates => "updates",
            StreamMode::Custom => "custom",
            StreamMode::Events => "events",
            StreamMode::Messages | StreamMode::MessagesTuple => "messages",
        }
    }

    /// A mode by its wire name, or an error for people that lists the supported ones (a
    /// LangGraph mode Antler does not stream, such as `debug`, is named as such).
    pub fn parse_requested(name: &str) -> Result<StreamMode, String> {
        name.parse().map_err(|_| {
            let shown: String = name.chars().take(40).collect();
            format!(
                "stream_mode '{shown}' is not supported; supported modes: {}",
                Self::supported_list()
            )
        })
    }

    /// The supported wire names, comma-separated.
    pub fn supported_list() -> String {
        StreamMode::ALL
            .iter()
            .map(|m| m.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The mode whose events carry the SSE event name `event` (`None`: `metadata`, `error`
    /// and `end`, which go to every subscriber).
    pub fn of_event(event: &str) -> Option<StreamMode> {
        [
            StreamMode::Values,
            StreamMode::Messages,
            StreamMode::Updates,
            StreamMode::Custom,
            StreamMode::Events,
        ]
        .into_iter()
        .find(|m| m.event_name() == event)
    }
}

/// `stream_mode` of a run request: one mode or a list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum StreamModes {
    /// One mode.
    One(StreamMode),
    /// Several.
    Many(Vec<StreamMode>),
}

impl StreamModes {
    /// The modes asked for, canonical; `values` when the list is empty.
    pub fn modes(&self) -> Vec<StreamMode> {
        let modes: Vec<StreamMode> = match self {
            StreamModes::One(m) => vec![m.canonical()],
            StreamModes::Many(list) => list.iter().map(|m| m.canonical()).collect(),
        };
        if modes.is_empty() {
            vec![StreamMode::Values]
        } else {
            modes
        }
    }
}

/// The first event of every run stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RunMetadata {
    /// The run.
    pub run_id: String,
    /// Its thread.
    pub thread_id: String,
    /// Always 1.
    pub attempt: u32,
    /// The ids of the remembered facts the run was given (Settings → Memory lists them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory: Vec<String>,
}

/// The second element of a `messages` event: where the message comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct MessageMetadata {
    /// The run.
    pub run_id: String,
    /// Its thread.
    pub thread_id: String,
    /// `agent` (model output) or `tools` (tool results).
    pub langgraph_node: Node,
    /// The step.
    pub langgraph_step: u64,
    /// Always empty (one graph namespace).
    pub langgraph_checkpoint_ns: String,
    /// The model's name at its provider, when a model answered.
    pub ls_model_name: Option<String>,
}

wire_enum! {
    /// The two steps of the agent loop, as LangGraph nodes.
    pub enum Node {
        /// A model call.
        Agent = "agent",
        /// Tool calls.
        Tools = "tools",
    }
}

crate::wire_enum::wire_enum! {
    /// Where a subagent's task stands; the last four are how it ended.
    pub enum TaskStatus {
        /// Waiting for a free subagent slot.
        Queued = "queued",
        /// Its subagent works.
        Running = "running",
        /// It answered.
        Completed = "completed",
        /// It failed.
        Failed = "failed",
        /// It was stopped with the run.
        Cancelled = "cancelled",
        /// It ran past `agent.subagents.timeout_secs`.
        TimedOut = "timed_out",
    }
}

/// What a `task` call's tool message keeps in `artifact.task`: how the task ended, for
/// clients reading the history later.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TaskArtifact {
    /// How it ended.
    pub status: TaskStatus,
    /// The subagent's run.
    pub run_id: String,
    /// What it was for.
    pub description: String,
    /// Its subagent type.
    pub subagent_type: String,
    /// How long it ran.
    pub duration_ms: u64,
    /// What it used.
    pub usage: crate::runs::RunUsage,
    /// Web sources first numbered while it ran (the run numbers sources once, for the lead
    /// agent and every subagent), so the answer's citations of them resolve from history.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<crate::web::WebSource>,
}

/// How a subagent's task ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TaskEnd {
    /// The `task` call.
    pub task_id: String,
    /// The subagent's run.
    pub run_id: String,
    /// Its final answer (completed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// Why it did not complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What it used.
    pub usage: crate::runs::RunUsage,
    /// How long it ran.
    pub duration_ms: u64,
}

/// A payload of a `custom` event, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CustomEvent {
    /// A model call failed and is retried.
    LlmRetry {
        /// This retry (1 first).
        attempt: u32,
        /// Retries allowed.
        max_retries: u32,
        /// Wait before it.
        delay_ms: u64,
        /// What failed.
        reason: String,
    },
    /// The same tool calls were made `repeats` times; the model was warned.
    LoopWarning {
        /// How often.
        repeats: u32,
    },
    /// The same tool calls were made `repeats` times; the run stops.
    LoopDetected {
        /// How often.
        repeats: u32,
    },
    /// The thread got its title.
    Title {
        /// The title.
        title: String,
    },
    /// A `task` call waits for a free subagent slot.
    TaskQueued {
        /// The `task` call (`tool_calls[].id`).
        task_id: String,
        /// What it is for.
        description: String,
        /// Its subagent type.
        subagent_type: String,
    },
    /// A subagent started on a `task` call.
    TaskStarted {
        /// The `task` call (`tool_calls[].id`).
        task_id: String,
        /// The subagent's own run.
        run_id: String,
        /// What it is for.
        description: String,
        /// Its subagent type.
        subagent_type: String,
    },
    /// An event of a subagent's run (`messages` chunks and tool results, `custom` progress),
    /// as its own stream has it.
    TaskEvent {
        /// The `task` call.
        task_id: String,
        /// The event's name.
        event: String,
        /// The event's data.
        #[schema(value_type = Object)]
        data: Value,
    },
    /// The subagent finished; `result` is what the lead agent reads.
    TaskCompleted(TaskEnd),
    /// The subagent failed; `error` says why.
    TaskFailed(TaskEnd),
    /// The subagent was cancelled with the run.
    TaskCancelled(TaskEnd),
    /// The subagent ran past its time limit.
    TaskTimedOut(TaskEnd),
    /// The connections a command made through the egress proxy (sandbox.network: allowlist).
    Network {
        /// The call (`tool_calls[].id`).
        tool_call_id: String,
        /// Each connection, in the order they ended.
        connections: Vec<crate::egress::NetworkConnection>,
    },
    /// Web pages a `web_search` or `web_fetch` call added to the run's sources (a source
    /// already listed comes again when the agent reads it).
    Sources {
        /// The call (`tool_calls[].id`).
        tool_call_id: String,
        /// The sources, numbered for the whole run.
        sources: Vec<crate::web::WebSource>,
    },
    /// Follow-up messages the person might send next, after the answer `message_id` of run
    /// `run_id` (on the run's stream when ready before its end, else on the thread's stream).
    Suggestions {
        /// The run that answered.
        run_id: String,
        /// The answer they follow (`messages[].id`).
        message_id: String,
        /// At most three short messages.
        suggestions: Vec<String>,
    },
    /// A running tool call (an MCP tool's) reported progress.
    ToolProgress {
        /// The call (`tool_calls[].id`).
        tool_call_id: String,
        /// How far.
        progress: f64,
        /// Out of (when known).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        total: Option<f64>,
        /// What it is doing.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
}

wire_enum! {
    /// The kind of failure an `error` event reports.
    pub enum RunErrorKind {
        /// The agent failed (model error, limit, storage).
        AgentError = "AgentError",
        /// The run hit its time limit.
        TimeoutError = "TimeoutError",
        /// The run was cancelled.
        CancelledError = "CancelledError",
        /// The server running it restarted.
        ServerRestart = "ServerRestart",
        /// The replica running it stopped responding.
        ReplicaLost = "ReplicaLost",
    }
}

/// The data of an `error` event (`error` and `name` both carry the kind, as LangGraph
/// clients read either).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RunFailure {
    /// The kind.
    pub error: RunErrorKind,
    /// The kind again.
    pub name: RunErrorKind,
    /// For people.
    pub message: String,
}

impl RunFailure {
    /// A failure of `kind`.
    pub fn new(kind: RunErrorKind, message: impl Into<String>) -> Self {
        RunFailure {
            error: kind,
            name: kind,
            message: message.into(),
        }
    }
}

/// The first element of a `messages` event.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MessagePart<'a> {
    /// A streamed piece of the model's answer.
    Chunk(&'a AiMessageChunk),
    /// A whole message (tool results).
    Message(&'a Message),
}

/// One event of a run's stream, borrowing what it reports (it is serialised at once).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StreamEvent<'a> {
    /// First: which run this is.
    Metadata(&'a RunMetadata),
    /// The whole state.
    Values(&'a ThreadValues),
    /// A chunk or message with its metadata.
    Messages(MessagePart<'a>, &'a MessageMetadata),
    /// What a node added: `{node: {"messages": [...]}}`.
    Updates(Node, &'a [Message]),
    /// A custom event.
    Custom(&'a CustomEvent),
    /// The run failed or was stopped.
    Error(&'a RunFailure),
    /// Last.
    End,
}

impl StreamEvent<'_> {
    /// The mode that produces it (`None`: sent to every subscriber).
    pub fn mode(&self) -> Option<StreamMode> {
        match self {
            StreamEvent::Values(_) => Some(StreamMode::Values),
            StreamEvent::Messages(..) => Some(StreamMode::Messages),
            StreamEvent::Updates(..) => Some(StreamMode::Updates),
            StreamEvent::Custom(_) => Some(StreamMode::Custom),
            StreamEvent::Metadata(_) | StreamEvent::Error(_) | StreamEvent::End => None,
        }
    }

    /// The SSE event name.
    pub fn name(&self) -> &'static str {
        match self {
            StreamEvent::Metadata(_) => "metadata",
            StreamEvent::Error(_) => "error",
            StreamEvent::End => "end",
            other => other.mode().map_or("end", StreamMode::event_name),
        }
    }

    /// The SSE data: JSON text.
    pub fn data(&self) -> String {
        let text = match self {
            StreamEvent::Metadata(m) => serde_json::to_string(m),
            StreamEvent::Values(v) => serde_json::to_string(v),
            StreamEvent::Messages(part, meta) => serde_json::to_string(&(part, meta)),
            StreamEvent::Updates(node, messages) => {
                serde_json::to_string(&UpdatesData(*node, messages))
            }
            StreamEvent::Custom(c) => serde_json::to_string(c),
            StreamEvent::Error(e) => serde_json::to_string(e),
            StreamEvent::End => Ok("null".into()),
        };
        // Plain data with string keys: serialising cannot fail.
        text.unwrap_or_else(|_| "null".into())
    }
}

/// `{node: {"messages": [...]}}`.
struct UpdatesData<'a>(Node, &'a [Message]);

impl Serialize for UpdatesData<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Messages<'a> {
            messages: &'a [Message],
        }
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry(self.0.as_str(), &Messages { messages: self.1 })?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_maps_to_one_event_name_and_back() {
        for mode in StreamMode::ALL {
            assert_eq!(
                StreamMode::of_event(mode.event_name()),
                Some(mode.canonical())
            );
        }
        for name in ["metadata", "error", "end"] {
            assert_eq!(StreamMode::of_event(name), None);
        }
    }

    #[test]
    fn events_serialise_in_the_langgraph_shapes() {
        let title = CustomEvent::Title {
            title: "Hello".into(),
        };
        let event = StreamEvent::Custom(&title);
        assert_eq!(
            (event.name(), event.mode()),
            ("custom", Some(StreamMode::Custom))
        );
        assert_eq!(event.data(), r#"{"type":"title","title":"Hello"}"#);
        let failure = RunFailure::new(RunErrorKind::TimeoutError, "late");
        assert_eq!(
            StreamEvent::Error(&failure).data(),
            r#"{"error":"TimeoutError","name":"TimeoutError","message":"late"}"#
        );
        assert_eq!(
            StreamEvent::Updates(Node::Tools, &[]).data(),
            r#"{"tools":{"messages":[]}}"#
        );
        assert_eq!(StreamEvent::End.data(), "null");
    }

    #[test]
    fn stream_modes_accept_one_or_a_list_and_refuse_unknown_names() {
        let one: StreamModes = serde_json::from_str(r#""messages-tuple""#).unwrap();
        assert_eq!(one.modes(), [StreamMode::Messages]);
        let many: StreamModes = serde_json::from_str(r#"["values","custom"]"#).unwrap();
        assert_eq!(many.modes(), [StreamMode::Values, StreamMode::Custom]);
        let none: StreamModes = serde_json::from_str("[]").unwrap();
        assert_eq!(none.modes(), [StreamMode::Values]);
        assert!(serde_json::from_str::<StreamModes>(r#""debug""#).is_err());
        let message = StreamMode::parse_requested("debug").unwrap_err();
        assert!(message.contains("values, messages-tuple"), "{message}");
    }
}
