//! The agent loop in this process, through the run manager: tool calls and their results,
//! a tool that breaks, stopping a run, and tools that run before the others of an answer.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::common::{Harness, call, calls, events_until, model, model_requests, text, when};
use antler_agent_runtime::tools::{Phase, Tool, ToolContext, ToolError, ToolOutput, ToolRegistry};
use antler_mock_llm::script::Turn;
use antler_protocol::runs::{RunStatus, StopReason};
use async_trait::async_trait;
use serde_json::{Value, json};

fn types(messages: &[Value]) -> Vec<&str> {
    messages
        .iter()
        .map(|m| m["type"].as_str().unwrap_or_default())
        .collect()
}

#[tokio::test]
async fn a_tool_call_round_trip_gives_the_model_the_result_and_stores_the_history() {
    let url = model(vec![when(
        "count for me",
        vec![
            calls(vec![call(
                "bash",
                json!({"command": "echo counted-$((40 + 2))"}),
            )]),
            text("It is 42."),
        ],
    )])
    .await;
    let h = Harness::new(&url, |_| {}).await;
    let run = h.start("t", "count for me", json!({})).await;
    let (record, events) = h.finish(&run).await;
    assert_eq!(record.status, RunStatus::Success, "{:?}", record.error);
    assert_eq!(record.usage.model_calls, 2);

    let requests = model_requests(&url).await;
    assert_eq!(requests.len(), 2);
    let fed_back = requests[1]["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(fed_back["role"], "tool", "{fed_back}");
    assert!(
        fed_back["content"].as_str().unwrap().contains("counted-42"),
        "the command ran and its output went back: {fed_back}"
    );

    let messages = h.messages("t").await;
    assert_eq!(types(&messages), ["human", "ai", "tool", "ai"]);
    assert_eq!(messages[2]["status"], "success");
    assert_eq!(messages[3]["content"], "It is 42.");
    let updates: Vec<&Value> = events
        .iter()
        .filter(|e| e.event == "updates")
        .map(|e| &e.data)
        .collect();
    assert!(
        updates.iter().any(|u| u["tools"].is_object()),
        "the tool results went out as an update: {updates:?}"
    );
}

/// A tool with a bug in it.
struct Breaks;

#[async_trait]
impl Tool for Breaks {
    fn name(&self) -> &str {
        "breaks"
    }
    fn description(&self) -> &str {
        "Always breaks."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    async fn call(&self, _args: Value, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        panic!("a bug in a tool");
    }
}

#[tokio::test]
async fn a_tool_that_breaks_ends_the_run_with_an_error_and_every_call_answered() {
    let url = model(vec![when(
        "try it",
        vec![
            calls(vec![
                call("breaks", json!({})),
                call("bash", json!({"command": "echo still-ran"})),
            ]),
            text("never asked"),
        ],
    )])
    .await;
    let mut tools = ToolRegistry::builtin();
    tools.register(Arc::new(Breaks)).unwrap();
    let h = Harness::with_tools(&url, tools, |_| {}).await;
    let run = h.start("t", "try it", json!({})).await;
    let (record, events) = h.finish(&run).await;
    assert_eq!(record.status, RunStatus::Error);
    assert!(
        record.error.as_deref().unwrap().contains("'breaks'"),
        "{:?}",
        record.error
    );
    assert_eq!(record.usage.model_calls, 1, "the model is not asked again");
    assert!(events.iter().any(|e| e.event == "error"));

    let messages = h.messages("t").await;
    assert_eq!(types(&messages), ["human", "ai", "tool", "tool"]);
    assert_eq!(messages[2]["name"], "breaks");
    assert_eq!(messages[2]["status"], "error");
    assert!(
        messages[3]["content"]
            .as_str()
            .unwrap()
            .contains("still-ran")
    );
}

#[tokio::test]
async fn stopping_a_run_kills_its_running_command_and_keeps_the_history_valid() {
    let url = model(vec![when(
        "wait a while",
        vec![
            calls(vec![call(
                "bash",
                json!({"command": "sleep 30; echo finished-sleeping"}),
            )]),
            text("never asked"),
        ],
    )])
    .await;
    let h = Harness::new(&url, |_| {}).await;
    let run = h.start("t", "wait a while", json!({})).await;
    // The model's answer is in: its command is about to run, or running.
    events_until(&h.manager, &run, |e| {
        e.event == "updates" && e.data["agent"].is_object()
    })
    .await;
    h.manager.cancel("t", &run.run_id, true).await.unwrap();
    let (record, _) = h.finish(&run).await;
    assert_eq!(record.status, RunStatus::Interrupted);
    assert_eq!(record.stop_reason, Some(StopReason::Cancelled));
    let messages = h.messages("t").await;
    assert_eq!(types(&messages), ["human", "ai", "tool"]);
    let result = messages[2]["content"].as_str().unwrap();
    assert!(
        !result.contains("finished-sleeping"),
        "the command was stopped: {result}"
    );
    assert_eq!(model_requests(&url).await.len(), 1);
}

#[tokio::test]
async fn stopping_a_run_while_the_model_streams_keeps_what_streamed() {
    let long = "word ".repeat(200);
    let url = model(vec![when(
        "talk slowly",
        vec![Turn {
            chunk_delay_ms: Some(100),
            ..text(&long)
        }],
    )])
    .await;
    let h = Harness::new(&url, |_| {}).await;
    let run = h.start("t", "talk slowly", json!({})).await;
    events_until(&h.manager, &run, |e| {
        e.event == "messages" && e.data[0]["content"].as_str().is_some_and(|c| !c.is_empty())
    })
    .await;
    h.manager.cancel("t", &run.run_id, true).await.unwrap();
    let (record, _) = h.finish(&run).await;
    assert_eq!(record.status, RunStatus::Interrupted);
    let messages = h.messages("t").await;
    assert_eq!(types(&messages), ["human", "ai"]);
    let kept = messages[1]["content"].as_str().unwrap();
    assert!(
        kept.starts_with("word") && kept.len() < long.len(),
        "the part that streamed, not the whole answer: {} of {} characters",
        kept.len(),
        long.len()
    );
}

/// Records that it ran (a tool of the first phase, as `tool_search` is).
struct Opens(Arc<AtomicBool>);

#[async_trait]
impl Tool for Opens {
    fn name(&self) -> &str {
        "opens"
    }
    fn description(&self) -> &str {
        "Opens the door."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    fn phase(&self) -> Phase {
        Phase::First
    }
    async fn call(&self, _args: Value, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        self.0.store(true, Ordering::SeqCst);
        Ok(ToolOutput::text("opened"))
    }
}

/// Says whether `Opens` ran before it.
struct Looks(Arc<AtomicBool>);

#[async_trait]
impl Tool for Looks {
    fn name(&self) -> &str {
        "looks"
    }
    fn description(&self) -> &str {
        "Looks at the door."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    async fn call(&self, _args: Value, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let open = self.0.load(Ordering::SeqCst);
        Ok(ToolOutput::text(if open { "open" } else { "closed" }))
    }
}

#[tokio::test]
async fn first_phase_tools_run_before_the_other_calls_of_the_answer_results_in_call_order() {
    let url = model(vec![when(
        "the door",
        vec![
            calls(vec![call("looks", json!({})), call("opens", json!({}))]),
            text("done"),
        ],
    )])
    .await;
    let door = Arc::new(AtomicBool::new(false));
    let mut tools = ToolRegistry::builtin();
    tools.register(Arc::new(Looks(door.clone()))).unwrap();
    tools.register(Arc::new(Opens(door))).unwrap();
    let h = Harness::with_tools(&url, tools, |_| {}).await;
    let run = h.start("t", "the door", json!({})).await;
    let (record, _) = h.finish(&run).await;
    assert_eq!(record.status, RunStatus::Success, "{:?}", record.error);
    let messages = h.messages("t").await;
    let results: Vec<(&str, &str)> = messages
        .iter()
        .filter(|m| m["type"] == "tool")
        .map(|m| (m["name"].as_str().unwrap(), m["content"].as_str().unwrap()))
        .collect();
    assert_eq!(results, [("looks", "open"), ("opens", "opened")]);
}
