//! An agent whose memory is its own (`memory_scope: assistant`): what it learns is kept for
//! it alone, other agents neither read it nor see it while learning, and it still reads the
//! person's shared facts.

use serde_json::{Value, json};

use crate::common::{Env, Server, mock_llm, model_requests, wait_for};

const SCRIPT: &str = r#"scenarios:
  - system: "You maintain what an assistant remembers"
    match: "bake bread"
    turns:
      - content: '{"add": [{"content": "Works as a baker in Lyon", "category": "context", "confidence": 0.9}]}'
  - system: "You maintain what an assistant remembers"
    match: "green tea"
    turns:
      - content: '{"add": [{"content": "Drinks green tea", "category": "preference", "confidence": 0.9}]}'
  - match: ""
    turns:
      - content: "ok"
"#;

async fn facts(server: &Server) -> Vec<Value> {
    let (_, list) = server.get_json("/api/memory").await;
    list["facts"].as_array().cloned().unwrap_or_default()
}

/// The system prompt of the last agent request whose person said `text`.
async fn system_prompt_for(model: &str, text: &str) -> String {
    let request = crate::common::model_request_for(model, text).await;
    request["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn an_agent_with_its_own_memory_keeps_what_it_learns_to_itself() {
    let env = Env::new();
    let model = mock_llm(SCRIPT).await;
    let server = env.start_agent(
        &model,
        &[
            ("ANTLER_AGENT_GENERATE_TITLES", "false"),
            ("ANTLER_MEMORY_DEBOUNCE_SECS", "0"),
            ("ANTLER_MEMORY_EXTRACTION", "true"),
        ],
    );
    let (status, created) = server
        .post_json(
            "/api/assistants",
            json!({"graph_id": "agent", "name": "Baking coach",
                "context": {"memory_scope": "assistant"}}),
        )
        .await;
    assert_eq!(status, 200, "{created}");
    let coach = created["assistant_id"].as_str().unwrap().to_string();
    assert_eq!(created["context"]["memory_scope"], "assistant", "{created}");
    let (status, refused) = server
        .post_json(
            "/api/assistants",
            json!({"graph_id": "agent", "context": {"memory_scope": "everyone"}}),
        )
        .await;
    assert_eq!(status, 422, "{refused}");

    // The coach learns a fact: it is the coach's.
    server
        .run_wait("p", &coach, "I bake bread in Lyon for a living")
        .await;
    wait_for("the coach's fact", async || facts(&server).await.len() == 1).await;
    let baker = facts(&server).await[0].clone();
    assert_eq!(baker["content"], "Works as a baker in Lyon");
    assert_eq!(baker["assistant_id"], coach.as_str(), "{baker}");

    // The built-in agent learns a shared fact, without being shown the coach's.
    server
        .run_wait("q", "agent", "I drink green tea every morning")
        .await;
    wait_for("the shared fact", async || facts(&server).await.len() == 2).await;
    let tea = facts(&server)
        .await
        .into_iter()
        .find(|f| f["content"] == "Drinks green tea")
        .unwrap();
    assert!(tea["assistant_id"].is_null(), "{tea}");
    let requests = model_requests(&model).await;
    let learning_tea = requests
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r.to_string().contains("Known facts") && r.to_string().contains("green tea"))
        .unwrap();
    assert!(
        !learning_tea.to_string().contains("baker"),
        "another agent's private fact was shown while learning: {learning_tea}"
    );

    // Runs: the built-in agent reads only the shared fact; the coach reads both.
    server
        .run_wait("r", "agent", "What about bread and tea, as a baker?")
        .await;
    let shared = system_prompt_for(&model, "What about bread and tea, as a baker?").await;
    assert!(shared.contains("Drinks green tea"), "{shared}");
    assert!(!shared.contains("Works as a baker"), "{shared}");
    server
        .run_wait("s", &coach, "Which bread, with my tea, as a baker?")
        .await;
    let own = system_prompt_for(&model, "Which bread, with my tea, as a baker?").await;
    assert!(
        own.contains("Drinks green tea") && own.contains("Works as a baker"),
        "{own}"
    );
}
