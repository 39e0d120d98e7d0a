//! Follow-up suggestions: after the answer on the run's stream or the thread's, never
//! holding up the run, and only when the server and the person want them.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};

use crate::common::{Env, Server, Sse, error_code, mock_llm, model_requests, read_sse, run_body};

const SCRIPT: &str = r#"
scenarios:
  - system: "You suggest follow-up"
    match: "sugg-slow"
    turns:
      - content: '{"suggestions": ["Slow one"]}'
        chunk_size: 2
        chunk_delay_ms: 400
  - system: "You suggest follow-up"
    turns:
      - content: "```json\n{\"suggestions\": [\"Tell me more\", \" \", \"Give an example\", \"tell me more\"]}\n```"
  - system: "You write titles"
    turns: [{content: "A title"}]
  - match: "sugg-ask"
    turns:
      - tool_calls:
          - {name: ask_clarification, arguments: {question: "CSV or JSON?", clarification_type: approach_choice, options: [CSV, JSON]}}
  - match: ""
    turns: [{content: "Here is the answer."}]
"#;

const MODES: [&str; 3] = ["values", "messages-tuple", "custom"];

fn on() -> [(&'static str, &'static str); 2] {
    [
        ("ANTLER_AGENT_SUGGESTIONS_ENABLED", "true"),
        // A thread stream waiting for suggestions says so with a heartbeat every second.
        ("ANTLER_AGENT_HEARTBEAT_SECS", "1"),
    ]
}

/// Streams a run on a new or existing thread to its end.
async fn run(server: &Server, thread: &str, text: &str, modes: &[&str]) -> Vec<Sse> {
    let mut body = run_body(text, modes);
    body["if_not_exists"] = json!("create");
    let response = server.stream_run(thread, body).await;
    assert_eq!(response.status().as_u16(), 200);
    read_sse(response, |_| false).await
}

/// Reads the thread's stream to its end.
async fn thread_stream(server: &Server, thread: &str) -> Vec<Sse> {
    let response = server.get(&format!("/api/threads/{thread}/stream")).await;
    assert_eq!(response.status().as_u16(), 200);
    read_sse(response, |_| false).await
}

fn suggestions_in(events: &[Sse]) -> Vec<&Value> {
    events
        .iter()
        .filter(|e| e.event == "custom" && e.data["type"] == "suggestions")
        .map(|e| &e.data)
        .collect()
}

/// The id of the last message of the last `values` event.
fn answer_id(events: &[Sse]) -> String {
    let values = events.iter().rev().find(|e| e.event == "values").unwrap();
    let last = values.data["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last["type"], "ai");
    last["id"].as_str().unwrap().to_string()
}

fn run_id(events: &[Sse]) -> String {
    events[0].data["run_id"].as_str().unwrap().to_string()
}

async fn suggestion_calls(model: &str) -> usize {
    let requests = model_requests(model).await;
    requests
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            r["messages"][0]["content"]
                .as_str()
                .is_some_and(|s| s.starts_with("You suggest follow-up"))
        })
        .count()
}

#[tokio::test]
async fn suggestions_arrive_after_the_answer_and_are_kept_on_the_thread() {
    let env = Env::new();
    let model = mock_llm(SCRIPT).await;
    let server = env.start_agent(&model, &on());
    let events = run(&server, "sugg-1", "sugg-fast: what is Rust?", &MODES).await;
    assert_eq!(events.last().unwrap().event, "end");
    let answer = answer_id(&events);
    // On the run's stream when written before its end (after the answer), else on the
    // thread's stream, which waits for them.
    let on_run = suggestions_in(&events);
    let late = thread_stream(&server, "sugg-1").await;
    let suggested = match on_run.first() {
        Some(event) => {
            let at = events.iter().position(|e| e.data == **event).unwrap();
            let answered = events.iter().rposition(|e| e.event == "values").unwrap();
            assert!(
                at > answered && at == events.len() - 2,
                "after the answer, before end"
            );
            (*event).clone()
        }
        // Written between the run's end and the thread stream's start, they are on neither
        // stream but kept on the thread (where the UI reads them after the thread's stream).
        None => match suggestions_in(&late).first() {
            Some(event) => (*event).clone(),
            None => {
                let (_, thread) = server.get_json("/api/threads/sugg-1").await;
                thread["metadata"]["suggestions"].clone()
            }
        },
    };
    assert_eq!(late.last().unwrap().event, "end");
    assert_eq!(suggested["run_id"], run_id(&events).as_str());
    assert_eq!(suggested["message_id"], answer.as_str());
    assert_eq!(
        suggested["suggestions"],
        json!(["Tell me more", "Give an example"]),
        "fences stripped, empties and duplicates dropped"
    );
    // Kept for a conversation opened later.
    let (_, thread) = server.get_json("/api/threads/sugg-1").await;
    assert_eq!(
        thread["metadata"]["suggestions"]["message_id"],
        answer.as_str()
    );
    assert_eq!(
        thread["metadata"]["suggestions"]["suggestions"],
        suggested["suggestions"]
    );
    // The call asked about the last exchange, for the person's language.
    let requests = model_requests(&model).await;
    let call = requests
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["messages"][0]["content"]
                .as_str()
                .is_some_and(|s| s.starts_with("You suggest follow-up"))
        })
        .unwrap();
    let prompt = call["messages"][1]["content"].as_str().unwrap();
    assert!(
        prompt.contains("sugg-fast: what is Rust?") && prompt.contains("Here is the answer."),
        "{prompt}"
    );
    assert!(
        call["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("same language")
    );
}

#[tokio::test]
async fn a_slow_suggestions_call_never_holds_up_the_run_or_the_next_one() {
    let env = Env::new();
    let model = mock_llm(SCRIPT).await;
    let server = Arc::new(env.start_agent(&model, &on()));
    let first = run(&server, "sugg-2", "sugg-slow: tell me", &MODES).await;
    assert_eq!(first.last().unwrap().event, "end");
    assert!(
        suggestions_in(&first).is_empty(),
        "the run did not wait for them"
    );
    let first_run = run_id(&first);
    // Its end came with its final status and an idle thread.
    let (_, record) = server
        .get_json(&format!("/api/threads/sugg-2/runs/{first_run}"))
        .await;
    assert_eq!(record["status"], "success");
    let (_, thread) = server.get_json("/api/threads/sugg-2").await;
    assert_eq!(thread["status"], "idle");
    // The thread's stream waits for them (a heartbeat says it is waiting) ...
    let mut response = server.get("/api/threads/sugg-2/stream").await;
    let first_chunk = response.chunk().await.unwrap().unwrap();
    assert_eq!(&first_chunk[..], b": \n\n", "waiting, not ended");
    let second_done = Arc::new(AtomicBool::new(false));
    let reader = {
        let second_done = second_done.clone();
        tokio::spawn(async move {
            let mut seen_after_second = None;
            let events = read_sse(response, |e| {
                if e.event == "custom" {
                    seen_after_second = Some(second_done.load(Ordering::SeqCst));
                }
                false
            })
            .await;
            (events, seen_after_second)
        })
    };
    // ... while the next run starts and ends.
    let second = run(&server, "sugg-2", "sugg-next: and then?", &MODES).await;
    assert_eq!(second.last().unwrap().event, "end");
    let (_, record) = server
        .get_json(&format!("/api/threads/sugg-2/runs/{}", run_id(&second)))
        .await;
    assert_eq!(record["status"], "success");
    second_done.store(true, Ordering::SeqCst);
    let (events, seen_after_second) = reader.await.unwrap();
    assert_eq!(
        seen_after_second,
        Some(true),
        "they came after the next run ended"
    );
    let found = suggestions_in(&events);
    assert_eq!(found.len(), 1, "{events:?}");
    assert_eq!(found[0]["run_id"], first_run.as_str());
    assert_eq!(found[0]["suggestions"], json!(["Slow one"]));
    assert_eq!(events.last().unwrap().event, "end");
}

#[tokio::test]
async fn the_persons_switch_the_server_setting_and_unanswered_runs_make_no_call() {
    let env = Env::new();
    let model = mock_llm(SCRIPT).await;
    let server = env.start_agent(&model, &on());
    let (status, prefs) = server.get_json("/api/preferences").await;
    assert_eq!(status, 200);
    assert_eq!(
        prefs,
        json!({"suggestions": true, "suggestions_available": true})
    );
    for bad in [json!({"suggestions": "yes"}), json!({"other": true})] {
        let (status, body) = server.patch_json("/api/preferences", bad).await;
        assert_eq!(status, 422, "{body}");
        assert!(!error_code(&body).is_empty());
    }
    let (status, prefs) = server
        .patch_json("/api/preferences", json!({"suggestions": false}))
        .await;
    assert_eq!((status, &prefs["suggestions"]), (200, &json!(false)));
    let events = run(&server, "sugg-3", "sugg-off: hello", &MODES).await;
    let late = thread_stream(&server, "sugg-3").await;
    assert!(suggestions_in(&events).is_empty() && suggestions_in(&late).is_empty());
    // A clarification question, and a run whose client reads no `custom` events, get none
    // whatever the switch says.
    server
        .patch_json("/api/preferences", json!({"suggestions": true}))
        .await;
    let asked = run(&server, "sugg-4", "sugg-ask: export it", &MODES).await;
    assert!(asked.iter().all(|e| e.event != "error"), "{asked:?}");
    let late = thread_stream(&server, "sugg-4").await;
    assert!(suggestions_in(&asked).is_empty() && suggestions_in(&late).is_empty());
    run(&server, "sugg-5", "sugg-values: hello", &["values"]).await;
    thread_stream(&server, "sugg-5").await;
    assert_eq!(suggestion_calls(&model).await, 0, "no call was made");
    // Switched on again: the next answer gets them.
    let events = run(&server, "sugg-3", "sugg-on: hello again", &MODES).await;
    let late = thread_stream(&server, "sugg-3").await;
    // Streamed at most once (on the run's stream or the thread's; neither when they were
    // written between the two, as a client's late join can be), and always kept on the thread
    // by the time the thread's stream ends.
    assert!(suggestions_in(&events).len() + suggestions_in(&late).len() <= 1);
    let (_, thread) = server.get_json("/api/threads/sugg-3").await;
    assert_eq!(
        thread["metadata"]["suggestions"]["run_id"],
        run_id(&events).as_str(),
        "{thread}"
    );
    assert_eq!(suggestion_calls(&model).await, 1);
    server.stop();

    // Off for the whole server (as the test harness starts it): no call, and the person's
    // preferences say so.
    let env = Env::new();
    let model = mock_llm(SCRIPT).await;
    let server = env.start_agent(&model, &[]);
    let (_, prefs) = server.get_json("/api/preferences").await;
    assert_eq!(prefs["suggestions_available"], false);
    let events = run(&server, "sugg-6", "sugg-global: hello", &MODES).await;
    let late = thread_stream(&server, "sugg-6").await;
    assert!(suggestions_in(&events).is_empty() && suggestions_in(&late).is_empty());
    assert_eq!(late.len(), 1, "the thread's stream ends at once: {late:?}");
    assert_eq!(suggestion_calls(&model).await, 0);
}
