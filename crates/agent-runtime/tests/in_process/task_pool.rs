//! The `task` tool's pool in this process: its limits and queue, and a subagent's run (its
//! events in the parent's stream, its own history and tools, its usage counted for both).

use antler_protocol::runs::RunStatus;
use serde_json::{Value, json};

use crate::common::{Harness, call, calls, custom, model, model_requests, text, tool_names, when};

fn task(prompt: &str) -> antler_mock_llm::script::ToolCall {
    call(
        "task",
        json!({"description": prompt, "prompt": prompt, "subagent_type": "general-purpose"}),
    )
}

/// Where the first event of `kind` for `task_id` is among the `custom` events.
fn position(events: &[&Value], kind: &str, task_id: &str) -> Option<usize> {
    events
        .iter()
        .position(|e| e["type"] == kind && e["task_id"] == task_id)
}

#[tokio::test]
async fn the_pool_runs_max_concurrent_subagents_queues_the_next_and_refuses_past_max_total() {
    let url = model(vec![
        when(
            "delegate three",
            vec![
                calls(vec![
                    task("Research alpha"),
                    task("Research beta"),
                    task("Research gamma"),
                ]),
                text("summed up"),
            ],
        ),
        when("Research alpha", vec![text("alpha found")]),
        when("Research beta", vec![text("beta found")]),
    ])
    .await;
    let h = Harness::new(&url, |cfg| {
        cfg.subagents.max_concurrent = 1;
        cfg.subagents.max_total = 2;
    })
    .await;
    let run = h.start("t", "delegate three", json!({})).await;
    let (record, events) = h.finish(&run).await;
    assert_eq!(record.status, RunStatus::Success, "{:?}", record.error);

    let custom: Vec<&Value> = events
        .iter()
        .filter(|e| e.event == "custom" && e.data["type"] != "task_event")
        .map(|e| &e.data)
        .collect();
    let at = |kind: &str, id: &str| position(&custom, kind, id);
    let (first, second) = ("call_mock_0", "call_mock_1");
    assert!(at("task_queued", first).is_none(), "{custom:?}");
    assert!(
        at("task_queued", second).is_some(),
        "no slot for it: {custom:?}"
    );
    assert!(
        at("task_started", second) > at("task_completed", first),
        "it started once the first had finished: {custom:?}"
    );
    assert!(at("task_completed", second).is_some(), "{custom:?}");
    assert_eq!(
        custom
            .iter()
            .filter(|e| e["type"] == "task_started")
            .count(),
        2,
        "{custom:?}"
    );

    let results: Vec<String> = h
        .messages("t")
        .await
        .iter()
        .filter(|m| m["type"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(results[0], "alpha found");
    assert_eq!(results[1], "beta found");
    assert!(
        results[2].contains("limit of 2 subagents"),
        "the third is refused: {results:?}"
    );
}

#[tokio::test]
async fn a_subagent_streams_into_its_parent_and_keeps_its_own_history_tools_and_record() {
    let url = model(vec![
        when(
            "delegate one",
            vec![calls(vec![task("Research delta")]), text("all done")],
        ),
        when(
            "Research delta",
            vec![
                calls(vec![call(
                    "bash",
                    json!({"command": "echo child-was-here"}),
                )]),
                text("delta done"),
            ],
        ),
    ])
    .await;
    // Plan mode: the lead keeps a checklist; a subagent does not.
    let h = Harness::new(&url, |cfg| cfg.plan_mode = true).await;
    let run = h.start("t", "delegate one", json!({})).await;
    let (record, events) = h.finish(&run).await;
    assert_eq!(record.status, RunStatus::Success, "{:?}", record.error);

    // The child's events reach the parent's stream, named by the task's call.
    let forwarded = custom(&events, "task_event");
    assert!(
        forwarded.iter().all(|e| e["task_id"] == "call_mock_0"),
        "{forwarded:?}"
    );
    assert!(
        forwarded
            .iter()
            .any(|e| e["event"] == "messages" && e["data"].to_string().contains("child-was-here")),
        "the child's tool result streamed to the parent: {forwarded:?}"
    );
    let started = custom(&events, "task_started");
    let child_id = started[0]["run_id"].as_str().unwrap();

    // Its run is recorded apart, linked to the parent, and what it used counts for both.
    let child = h
        .store
        .runs
        .get("t", child_id)
        .await
        .unwrap()
        .expect("the subagent's run is stored");
    assert_eq!(child.status, RunStatus::Success);
    assert_eq!(child.metadata["parent_run_id"], run.run_id.as_str());
    assert_eq!(child.usage.model_calls, 2);
    assert_eq!(
        record.usage.model_calls, 4,
        "the lead's two and the child's two"
    );

    // Its history is its own: the thread holds the lead's messages only.
    let messages = h.messages("t").await;
    let kinds: Vec<&str> = messages
        .iter()
        .map(|m| m["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["human", "ai", "tool", "ai"]);
    assert_eq!(messages[2]["content"], "delta done");
    assert_eq!(messages[2]["artifact"]["task"]["status"], "completed");

    // It cannot delegate, ask the person or keep the lead's plan; the lead can.
    let requests = model_requests(&h.model_url).await;
    let is_child = |r: &&Value| {
        r["messages"][0]["content"]
            .to_string()
            .contains("<subagent")
    };
    let child_tools = tool_names(requests.iter().find(is_child).unwrap());
    let lead_tools = tool_names(requests.iter().find(|r| !is_child(r)).unwrap());
    for lead_only in ["task", "ask_clarification", "write_todos"] {
        assert!(lead_tools.iter().any(|t| t == lead_only), "{lead_tools:?}");
        assert!(
            !child_tools.iter().any(|t| t == lead_only),
            "{child_tools:?}"
        );
    }
    assert!(child_tools.iter().any(|t| t == "bash"), "{child_tools:?}");
}
