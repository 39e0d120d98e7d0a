//! Stream mode `events`: LangChain `astream_events` (v2) events, derived from the events a
//! run emits anyway. The graph (`LangGraph`) starts after `metadata` and ends before `end`;
//! each step is a node (`agent`, `tools`) with its start and end; the model call inside
//! `agent` starts with its first chunk, streams every chunk and ends with the message; each
//! tool call starts when the model asked for it and ends with its result.

use std::collections::HashMap;

use antler_protocol::stream::{MessageMetadata, MessagePart, Node, StreamEvent};
use serde_json::{Map, Value, json};

/// The graph's name, as LangGraph servers call a compiled graph.
const GRAPH: &str = "LangGraph";

/// A node (step) in progress.
struct OpenNode {
    node: Node,
    run_id: String,
    step: u64,
}

/// A tool call in progress.
struct OpenTool {
    run_id: String,
    name: String,
    args: Value,
}

/// What the translation of one run remembers between events.
pub(super) struct EventsMode {
    run_id: String,
    thread_id: String,
    input: Value,
    values: Value,
    node: Option<OpenNode>,
    /// The model call in progress (its run id).
    model: Option<String>,
    /// The model's name at its provider, from the chunks' metadata.
    model_name: Option<String>,
    tools: HashMap<String, OpenTool>,
}

/// Events to record before and after the one translated, as JSON text.
#[derive(Default)]
pub(super) struct Translated {
    pub(super) before: Vec<String>,
    pub(super) after: Vec<String>,
}

impl EventsMode {
    pub(super) fn new(run_id: &str) -> Self {
        EventsMode {
            run_id: run_id.to_string(),
            thread_id: String::new(),
            input: Value::Null,
            values: Value::Null,
            node: None,
            model: None,
            model_name: None,
            tools: HashMap::new(),
        }
    }

    /// The run's input (`data.input` of the graph's start).
    pub(super) fn set_input(&mut self, input: Value) {
        self.input = input;
    }

    /// The events `event` stands for.
    pub(super) fn translate(&mut self, event: &StreamEvent<'_>) -> Translated {
        let mut out = Translated::default();
        match event {
            StreamEvent::Metadata(m) => {
                self.thread_id.clone_from(&m.thread_id);
                let data = json!({ "input": self.input });
                out.after.push(self.event(
                    "on_chain_start",
                    GRAPH,
                    &self.run_id,
                    &[],
                    &[],
                    self.base(),
                    data,
                ));
            }
            StreamEvent::Values(v) => self.values = v.to_value(),
            StreamEvent::Messages(MessagePart::Chunk(chunk), meta) => {
                self.open_node(Node::Agent, meta, &mut out.before);
                self.model_name.clone_from(&meta.ls_model_name);
                let node_id = self.node_id();
                let model_id = match &self.model {
                    Some(id) => id.clone(),
                    None => {
                        let id = new_id();
                        let data = json!({ "input": {} });
                        out.before.push(self.event(
                            "on_chat_model_start",
                            &self.model_label(),
                            &id,
                            &[&node_id],
                            &["seq:step:1"],
                            self.node_metadata(),
                            data,
                        ));
                        self.model = Some(id.clone());
                        id
                    }
                };
                let data = json!({ "chunk": chunk });
                out.before.push(self.event(
                    "on_chat_model_stream",
                    &self.model_label(),
                    &model_id,
                    &[&node_id],
                    &["seq:step:1"],
                    self.node_metadata(),
                    data,
                ));
            }
            StreamEvent::Messages(MessagePart::Message(message), meta) => {
                let message = serde_json::to_value(message).unwrap_or(Value::Null);
                self.open_node(Node::Tools, meta, &mut out.before);
                let call_id = text(&message, "tool_call_id");
                let tool = self.tools.remove(&call_id).unwrap_or_else(|| {
                    let tool = OpenTool {
                        run_id: new_id(),
                        name: text(&message, "name"),
                        args: Value::Object(Map::new()),
                    };
                    out.before.push(self.tool_start(&tool));
                    tool
                });
                let data = json!({ "output": message, "input": tool.args });
                out.before.push(self.event(
                    "on_tool_end",
                    &tool.name,
                    &tool.run_id,
                    &[&self.node_id()],
                    &[],
                    self.node_metadata(),
                    data,
                ));
            }
            StreamEvent::Updates(node, messages) => {
                let messages = serde_json::to_value(messages).unwrap_or(Value::Null);
                if *node == Node::Agent
                    && let Some(model_id) = self.model.take()
                {
                    let output = messages.get(0).cloned().unwrap_or(Value::Null);
                    let data = json!({ "output": output });
                    out.before.push(self.event(
                        "on_chat_model_end",
                        &self.model_label(),
                        &model_id,
                        &[&self.node_id()],
                        &["seq:step:1"],
                        self.node_metadata(),
                        data,
                    ));
                }
                if self.node.as_ref().is_some_and(|n| n.node == *node) {
                    self.close_node(json!({ "messages": messages }), &mut out.before);
                }
                if *node == Node::Agent {
                    self.start_tools(&messages, &mut out.before);
                }
            }
            StreamEvent::End => {
                self.close_node(Value::Null, &mut out.before);
                let data = json!({ "output": self.values });
                out.before.push(self.event(
                    "on_chain_end",
                    GRAPH,
                    &self.run_id,
                    &[],
                    &[],
                    self.base(),
                    data,
                ));
            }
            StreamEvent::Custom(_) | StreamEvent::Error(_) => {}
        }
        out
    }

    /// The model asked for tools: the `tools` step starts, and each call with it.
    fn start_tools(&mut self, messages: &Value, out: &mut Vec<String>) {
        let calls = messages
            .get(0)
            .and_then(|ai| ai.get("tool_calls"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if calls.is_empty() {
            return;
        }
        let step = self.node.as_ref().map_or(0, |n| n.step) + 1;
        self.open(Node::Tools, step, out);
        for call in calls {
            let tool = OpenTool {
                run_id: new_id(),
                name: text(&call, "name"),
                args: call.get("args").cloned().unwrap_or(Value::Null),
            };
            out.push(self.tool_start(&tool));
            self.tools.insert(text(&call, "id"), tool);
        }
    }

    fn tool_start(&self, tool: &OpenTool) -> String {
        let data = json!({ "input": tool.args });
        self.event(
            "on_tool_start",
            &tool.name,
            &tool.run_id,
            &[&self.node_id()],
            &[],
            self.node_metadata(),
            data,
        )
    }

    /// Makes `node` (at the step of `meta`) the open node, closing another one.
    fn open_node(&mut self, node: Node, meta: &MessageMetadata, out: &mut Vec<String>) {
        if self.node.as_ref().is_some_and(|n| n.node == node) {
            return;
        }
        self.open(node, meta.langgraph_step, out);
    }

    fn open(&mut self, node: Node, step: u64, out: &mut Vec<String>) {
        self.close_node(Value::Null, out);
        self.node = Some(OpenNode {
            node,
            run_id: new_id(),
            step,
        });
        let tag = format!("graph:step:{step}");
        let data = json!({ "input": {} });
        out.push(self.event(
            "on_chain_start",
            node.as_str(),
            &self.node_id(),
            &[],
            &[&tag],
            self.node_metadata(),
            data,
        ));
    }

    fn close_node(&mut self, output: Value, out: &mut Vec<String>) {
        if let Some(model_id) = self.model.take() {
            out.push(self.event(
                "on_chat_model_end",
                &self.model_label(),
                &model_id,
                &[&self.node_id()],
                &["seq:step:1"],
                self.node_metadata(),
                json!({ "output": null }),
            ));
        }
        let Some(node) = &self.node else {
            return;
        };
        let tag = format!("graph:step:{}", node.step);
        let data = json!({ "output": output });
        out.push(self.event(
            "on_chain_end",
            node.node.as_str(),
            &node.run_id,
            &[],
            &[&tag],
            self.node_metadata(),
            data,
        ));
        self.node = None;
        self.tools.clear();
    }

    fn node_id(&self) -> String {
        self.node
            .as_ref()
            .map_or_else(String::new, |n| n.run_id.clone())
    }

    fn model_label(&self) -> String {
        self.model_name
            .clone()
            .unwrap_or_else(|| "ChatModel".into())
    }

    /// Metadata every event carries.
    fn base(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("run_id".into(), Value::from(self.run_id.as_str()));
        m.insert("thread_id".into(), Value::from(self.thread_id.as_str()));
        m
    }

    /// Metadata of events inside the open node, as LangGraph's.
    fn node_metadata(&self) -> Map<String, Value> {
        let mut m = self.base();
        if let Some(node) = &self.node {
            let name = node.node.as_str();
            m.insert("langgraph_step".into(), json!(node.step));
            m.insert("langgraph_node".into(), json!(name));
            m.insert(
                "langgraph_triggers".into(),
                json!([format!("branch:to:{name}")]),
            );
            m.insert("langgraph_path".into(), json!(["__pregel_pull", name]));
            m.insert(
                "langgraph_checkpoint_ns".into(),
                json!(format!("{name}:{}", node.run_id)),
            );
        }
        if let Some(model) = &self.model_name {
            m.insert("ls_model_name".into(), json!(model));
        }
        m
    }

    /// One event's data: `parents` are the ids below the graph's (which comes first).
    #[expect(clippy::too_many_arguments, reason = "the fields of one event")]
    fn event(
        &self,
        kind: &str,
        name: &str,
        run_id: &str,
        parents: &[&str],
        tags: &[&str],
        metadata: Map<String, Value>,
        data: Value,
    ) -> String {
        let mut parent_ids: Vec<&str> = Vec::new();
        if run_id != self.run_id {
            parent_ids.push(&self.run_id);
            parent_ids.extend(parents.iter().filter(|p| !p.is_empty()));
        }
        json!({
            "event": kind,
            "name": name,
            "run_id": run_id,
            "parent_ids": parent_ids,
            "tags": tags,
            "metadata": metadata,
            "data": data,
        })
        .to_string()
    }
}

fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

fn text(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}
