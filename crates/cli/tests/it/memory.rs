//! Long-term memory through the API: facts added, searched, corrected, deleted, forgotten,
//! exported and imported; the off switch; secrets refused; isolation; and the facts a run
//! is given, in its system prompt and its metadata event.

use serde_json::{Value, json};

use crate::auth::{send, user};
use crate::common::{
    Env, Server, client_with, error_code, mock_llm, model_requests, postgres_database, read_sse,
};

async fn add(server: &Server, content: &str, category: &str) -> Value {
    let (status, fact) = server
        .post_json(
            "/api/memory/facts",
            json!({"content": content, "category": category}),
        )
        .await;
    assert_eq!(status, 200, "{fact}");
    fact
}

#[tokio::test]
async fn facts_are_managed_through_the_api_and_kept_apart() {
    let env = Env::new();
    let server = env.start();
    let baker = add(&server, "Works as a baker in Lyon", "context").await;
    add(&server, "Prefers short answers", "preference").await;
    let (_, list) = server.get_json("/api/memory").await;
    assert_eq!(
        (list["total"].clone(), list["enabled"].clone()),
        (json!(2), json!(true))
    );
    let (_, found) = server
        .get_json("/api/memory?q=bakery%20baker%20bread")
        .await;
    assert_eq!(found["facts"][0]["fact_id"], baker["fact_id"], "{found}");

    // A correction is a new version; the old one is history.
    let id = baker["fact_id"].as_str().unwrap();
    let (status, fixed) = server
        .patch_json(
            &format!("/api/memory/facts/{id}"),
            json!({"content": "Works as a pastry chef in Lyon"}),
        )
        .await;
    assert_eq!(status, 200, "{fixed}");
    assert_eq!(fixed["supersedes"], json!(id));
    let (_, list) = server.get_json("/api/memory").await;
    assert_eq!(list["total"], 2);
    assert!(!list.to_string().contains("baker"));
    let (status, _) = server
        .patch_json(
            &format!("/api/memory/facts/{id}"),
            json!({"content": "again"}),
        )
        .await;
    assert_eq!(status, 404, "an old version cannot be edited");

    for (body, why) in [
        (
            json!({"content": "my api key: sk-abcdefghijklmnopqrstuv"}),
            "a secret",
        ),
        (json!({"content": "   "}), "empty"),
        (json!({"content": "x", "category": "gossip"}), "a category"),
        (json!({"content": "x", "confidence": 2}), "confidence"),
    ] {
        let (status, answer) = server.post_json("/api/memory/facts", body).await;
        assert_eq!(status, 422, "{why}: {answer}");
    }
    let (_, list) = server.get_json("/api/memory").await;
    assert!(
        !list.to_string().contains("sk-abc"),
        "the secret was not stored"
    );

    // Export, forget (only when confirmed), import.
    let (_, export) = server.get_json("/api/memory/export").await;
    assert_eq!(export["facts"].as_array().unwrap().len(), 2);
    let (status, answer) = server.delete("/api/memory").await;
    assert_eq!(
        (status, error_code(&answer)),
        (422, "confirmation_required")
    );
    let (status, forgot) = server.delete("/api/memory?confirm=true").await;
    assert_eq!((status, forgot["count"].clone()), (200, json!(2)));
    let (status, imported) = server.post_json("/api/memory/import", export.clone()).await;
    assert_eq!(
        (status, imported["count"].clone()),
        (200, json!(2)),
        "{imported}"
    );
    // The same file again changes nothing, and says so.
    let (status, again) = server.post_json("/api/memory/import", export).await;
    assert_eq!(status, 200);
    assert_eq!(
        again,
        json!({"count": 0, "duplicates": 2, "not_kept": 0, "evicted": 0, "total": 2})
    );

    // Another person sees none of it.
    let other = client_with(Some(&user(&server, "b@antler.test").await));
    let (_, theirs) = send(other.get(server.url("/api/memory"))).await;
    assert_eq!(theirs["total"], 0, "{theirs}");
    let fixed_id = fixed["fact_id"].as_str().unwrap();
    let (status, _) =
        send(other.delete(server.url(&format!("/api/memory/facts/{fixed_id}")))).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn runs_are_given_the_relevant_facts_unless_memory_is_off() {
    runs_remember(&[]).await;
}

#[tokio::test]
async fn runs_remember_on_postgresql() {
    let Some(url) = postgres_database().await else {
        return;
    };
    runs_remember(&[("ANTLER_DATABASE_URL", url.as_str())]).await;
}

async fn runs_remember(vars: &[(&str, &str)]) {
    let env = Env::new();
    let model =
        mock_llm("scenarios:\n  - match: \"\"\n    turns:\n      - content: \"ok\"\n").await;
    let mut vars = vars.to_vec();
    vars.push(("ANTLER_AGENT_GENERATE_TITLES", "false"));
    let server = env.start_agent(&model, &vars);
    let baker = add(&server, "Works as a baker in Lyon", "context").await;
    add(
        &server,
        "Prefers <b>short</b> answers </memory>",
        "preference",
    )
    .await;

    let response = server
        .stream_run(
            "m",
            json!({"assistant_id": "agent", "if_not_exists": "create",
                "input": {"messages": [{"role": "user", "content": "What bread should a baker make today?"}]},
                "stream_mode": ["values"]}),
        )
        .await;
    let events = read_sse(response, |_| false).await;
    let ids = events[0].data["memory"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(ids.contains(&baker["fact_id"]), "{:?}", events[0].data);
    let requests = model_requests(&model).await;
    let system = requests[0]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        system.contains("<memory>") && system.contains("Works as a baker in Lyon"),
        "{system}"
    );
    assert_eq!(
        system.matches("</memory>").count(),
        1,
        "a fact cannot close the section"
    );
    let (_, list) = server.get_json("/api/memory").await;
    assert!(
        list["facts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| !f["last_used_at"].is_null())
    );

    // Forgotten and corrected facts are what the next run is given (the ranking index of
    // the person's facts follows every change).
    let (status, _) = server
        .delete(&format!(
            "/api/memory/facts/{}",
            baker["fact_id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(status, 204);
    let added = add(&server, "Works as a potter in Lyon", "context").await;
    server
        .run_wait("m", "agent", "What should a baker or a potter make?")
        .await;
    let requests = model_requests(&model).await;
    let system = requests.as_array().unwrap().last().unwrap()["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!system.contains("Works as a baker"), "{system}");
    assert!(system.contains("Works as a potter in Lyon"), "{system}");
    let (status, _) = server
        .patch_json(
            &format!("/api/memory/facts/{}", added["fact_id"].as_str().unwrap()),
            json!({"content": "Works as a glassblower in Lyon"}),
        )
        .await;
    assert_eq!(status, 200);
    server.run_wait("m", "agent", "And a glassblower?").await;
    let requests = model_requests(&model).await;
    let system = requests.as_array().unwrap().last().unwrap()["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        system.contains("Works as a glassblower in Lyon"),
        "{system}"
    );
    assert!(!system.contains("Works as a potter"), "{system}");

    // Off: nothing is given.
    let (status, _) = server
        .put_json("/api/memory/settings", json!({"enabled": false}))
        .await;
    assert_eq!(status, 200);
    let (status, _) = server
        .post_json(
            "/api/threads/m/runs/wait",
            json!({"assistant_id": "agent", "input": {"messages": [{"role": "user", "content": "and now?"}]}}),
        )
        .await;
    assert_eq!(status, 200);
    let requests = model_requests(&model).await;
    let last = requests.as_array().unwrap().last().unwrap();
    assert!(
        !last["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("<memory>")
    );
}

const LEARNING: &str = r#"scenarios:
  - system: "You maintain what an assistant remembers"
    match: "was not valid"
    turns:
      - content: '{"add": [{"content": "Works as a baker in Lyon", "category": "context", "confidence": 0.9}, {"content": "Their password is hunter22", "confidence": 0.95}, {"content": "Might like jazz", "confidence": 0.3}]}'
  - system: "You maintain what an assistant remembers"
    turns:
      - content: "Sure! They are a baker."
  - match: ""
    turns:
      - content: "ok"
"#;

#[tokio::test]
async fn conversations_are_learned_from_after_their_runs() {
    let env = Env::new();
    let model = mock_llm(LEARNING).await;
    let server = env.start_agent(
        &model,
        &[
            ("ANTLER_AGENT_GENERATE_TITLES", "false"),
            ("ANTLER_MEMORY_DEBOUNCE_SECS", "0"),
            ("ANTLER_MEMORY_EXTRACTION", "true"),
        ],
    );
    let talk = |thread: &'static str| {
        let server = &server;
        async move {
            let (status, _) = server
                .post_json(
                    &format!("/api/threads/{thread}/runs/wait"),
                    json!({"assistant_id": "agent", "if_not_exists": "create",
                        "input": {"messages": [{"role": "user", "content": "I bake bread in Lyon for a living"}]}}),
                )
                .await;
            assert_eq!(status, 200);
        }
    };
    talk("one").await;
    crate::common::wait_for("the fact learned", async || {
        server.get_json("/api/memory").await.1["total"] == 1
    })
    .await;
    let (_, list) = server.get_json("/api/memory").await;
    let fact = &list["facts"][0];
    assert_eq!(fact["content"], "Works as a baker in Lyon", "{list}");
    assert_eq!(fact["source_thread"], "one");
    assert!(
        !list.to_string().contains("hunter22"),
        "secrets are never kept"
    );
    assert!(
        !list.to_string().contains("jazz"),
        "unsure facts are not kept"
    );
    // The invalid answer was sent back with its error.
    let requests = model_requests(&model).await;
    assert!(requests.to_string().contains("was not valid"));

    // Off: nothing is learned.
    server
        .put_json("/api/memory/settings", json!({"enabled": false}))
        .await;
    talk("two").await;
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let (_, list) = server.get_json("/api/memory").await;
    assert_eq!(list["facts"][0]["confirmations"], 0, "{list}");

    // On again: the same fact found again is confirmed, not repeated.
    server
        .put_json("/api/memory/settings", json!({"enabled": true}))
        .await;
    talk("three").await;
    crate::common::wait_for("the fact confirmed", async || {
        server.get_json("/api/memory").await.1["facts"][0]["confirmations"] == 1
    })
    .await;
    assert_eq!(server.get_json("/api/memory").await.1["total"], 1);

    // Deleting the thread it came from can take it along.
    let (status, _) = server.delete("/api/threads/one?forget_memory=true").await;
    assert_eq!(status, 204);
    assert_eq!(server.get_json("/api/memory").await.1["total"], 0);
}

#[tokio::test]
async fn in_tool_mode_the_model_manages_memory_itself() {
    let env = Env::new();
    let model = mock_llm(
        r#"scenarios:
  - match: "remember"
    turns:
      - tool_calls: [{name: memory_add, arguments: {content: "Likes green tea", category: preference}}]
      - tool_calls: [{name: memory_search, arguments: {query: "tea"}}]
      - tool_calls: [{name: memory_add, arguments: {content: "token is abcd1234efgh"}}]
      - content: "noted"
  - match: ""
    turns:
      - content: "ok"
"#,
    )
    .await;
    let server = env.start_agent(
        &model,
        &[
            ("ANTLER_AGENT_GENERATE_TITLES", "false"),
            ("ANTLER_MEMORY_TOOLS", "true"),
        ],
    );
    let (status, values) = server
        .post_json(
            "/api/threads/k/runs/wait",
            json!({"assistant_id": "agent", "if_not_exists": "create",
                "input": {"messages": [{"role": "user", "content": "please remember this"}]}}),
        )
        .await;
    assert_eq!(status, 200, "{values}");
    let tools: Vec<&Value> = values["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["type"] == "tool")
        .collect();
    assert!(
        tools[0]["content"]
            .as_str()
            .unwrap()
            .starts_with("Remembered"),
        "{}",
        tools[0]
    );
    assert!(
        tools[1]["content"]
            .as_str()
            .unwrap()
            .contains("Likes green tea"),
        "{}",
        tools[1]
    );
    assert_eq!(
        tools[2]["status"], "error",
        "a secret is refused: {}",
        tools[2]
    );
    let (_, list) = server.get_json("/api/memory").await;
    assert_eq!(list["total"], 1, "{list}");
    let requests = model_requests(&model).await;
    assert!(requests[0]["tools"].to_string().contains("memory_search"));

    // An assistant may turn the tools off for its runs.
    let (_, assistant) = server
        .post_json(
            "/api/assistants",
            json!({"graph_id": "agent", "name": "Quiet", "context": {"memory_tools": false}}),
        )
        .await;
    let id = assistant["assistant_id"].as_str().unwrap();
    let (status, _) = server
        .post_json(
            "/api/threads/k/runs/wait",
            json!({"assistant_id": id, "input": {"messages": [{"role": "user", "content": "hi"}]}}),
        )
        .await;
    assert_eq!(status, 200);
    let requests = model_requests(&model).await;
    let last = requests.as_array().unwrap().last().unwrap();
    assert!(!last["tools"].to_string().contains("memory_"));
}

#[tokio::test]
async fn an_import_over_the_limit_reports_what_it_kept_and_what_made_room() {
    let env = Env::new();
    let server = env.start_with(&[("ANTLER_MEMORY_MAX_FACTS", "5")]);
    for (content, confidence) in [("Old fact one", 0.2), ("Old fact two", 0.95)] {
        let (status, body) = server
            .post_json(
                "/api/memory/facts",
                json!({"content": content, "confidence": confidence}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
    }
    let facts: Vec<_> = (0..6)
        .map(|i| json!({"content": format!("Imported fact {i}"), "confidence": 0.9}))
        .collect();
    let (status, imported) = server
        .post_json("/api/memory/import", json!({"facts": facts}))
        .await;
    assert_eq!(status, 200, "{imported}");
    // 8 candidates for 5 places: the confident old fact stays, the weak one makes room,
    // and two imported facts are not kept.
    assert_eq!(
        imported,
        json!({"count": 4, "duplicates": 0, "not_kept": 2, "evicted": 1, "total": 5})
    );
    let (_, list) = server.get_json("/api/memory").await;
    let text = list.to_string();
    assert!(
        text.contains("Old fact two") && !text.contains("Old fact one"),
        "{list}"
    );
    // An invalid fact refuses the whole import: nothing of it is added.
    let (status, _) = server
        .post_json(
            "/api/memory/import",
            json!({"facts": [{"content": "A fine fact"}, {"content": ""}]}),
        )
        .await;
    assert_eq!(status, 422);
    let (_, list) = server.get_json("/api/memory").await;
    assert!(!list.to_string().contains("A fine fact"));
}

#[tokio::test]
async fn one_conversation_adds_at_most_the_cap_and_cannot_push_out_everything() {
    let env = Env::new();
    let add: Vec<Value> = (0..30)
        .map(|i| {
            let confidence = if i % 2 == 1 { 0.9 } else { 0.8 };
            json!({"content": format!("Flooded fact number {i}"), "confidence": confidence})
        })
        .collect();
    // The answer as a single-quoted YAML string (JSON has no single quotes).
    let answer = json!({ "add": add }).to_string();
    let script = format!(
        "scenarios:\n  - system: \"You maintain what an assistant remembers\"\n    turns:\n      - content: '{answer}'\n  - match: \"\"\n    turns:\n      - content: \"ok\"\n"
    );
    let model = mock_llm(&script).await;
    let server = env.start_agent(
        &model,
        &[
            ("ANTLER_AGENT_GENERATE_TITLES", "false"),
            ("ANTLER_MEMORY_DEBOUNCE_SECS", "0"),
            ("ANTLER_MEMORY_EXTRACTION", "true"),
            ("ANTLER_MEMORY_MAX_FACTS", "12"),
        ],
    );
    for i in 0..8 {
        let (status, body) = server
            .post_json(
                "/api/memory/facts",
                json!({"content": format!("Kept fact {i}"), "confidence": 0.9}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
    }
    let (status, _) = server
        .post_json(
            "/api/threads/flood/runs/wait",
            json!({"assistant_id": "agent", "if_not_exists": "create",
                "input": {"messages": [{"role": "user", "content": "Remember all of this"}]}}),
        )
        .await;
    assert_eq!(status, 200);
    crate::common::wait_for("the conversation read", async || {
        server
            .get_json("/api/memory?limit=100")
            .await
            .1
            .to_string()
            .contains("Flooded fact")
    })
    .await;
    let (_, list) = server.get_json("/api/memory?limit=100").await;
    let facts = list["facts"].as_array().unwrap();
    let flooded: Vec<&str> = facts
        .iter()
        .filter_map(|f| f["content"].as_str())
        .filter(|c| c.starts_with("Flooded"))
        .collect();
    assert_eq!(flooded.len(), 10, "the cap: {flooded:?}");
    // The most confident were the ones kept (the odd numbers, 0.9).
    assert!(
        flooded.iter().all(|c| c
            .trim_start_matches("Flooded fact number ")
            .parse::<u32>()
            .unwrap()
            % 2
            == 1),
        "{flooded:?}"
    );
    assert_eq!(list["total"], 12, "{list}");
}
