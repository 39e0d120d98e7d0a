//! The memory queue on PostgreSQL with two replicas: a conversation whose replica was killed
//! (SIGKILL) while learning from it is learned by the other, and with both running each
//! conversation is learned once.

use serde_json::Value;

use crate::common::{Env, Server, mock_llm, model_requests, postgres_database, wait_for};

/// The extraction answer streams slowly (about 4 s) so a replica can be killed mid-way.
const SCRIPT: &str = r#"scenarios:
  - system: "You maintain what an assistant remembers"
    match: "bake bread"
    turns:
      - content: '{"add": [{"content": "Works as a baker in Lyon", "category": "context", "confidence": 0.9}]}'
        chunk_size: 4
        chunk_delay_ms: 150
  - match: ""
    turns:
      - content: "ok"
"#;

/// Conversation `i` of the second test teaches "Likes the number i".
fn numbers_script() -> String {
    let mut script = String::from("scenarios:\n");
    for i in 0..8 {
        script.push_str(&format!(
            "  - system: \"You maintain what an assistant remembers\"\n    match: \"favourite number is {i}00\"\n    turns:\n      - content: '{{\"add\": [{{\"content\": \"Likes the number {i}\", \"category\": \"preference\", \"confidence\": 0.9}}]}}'\n"
        ));
    }
    script.push_str("  - match: \"\"\n    turns:\n      - content: \"ok\"\n");
    script
}

fn replica(env: &Env, model: &str, db: &str, name: &str) -> Server {
    env.start_agent(
        model,
        &[
            ("ANTLER_DATABASE_URL", db),
            ("ANTLER_SANDBOX_INSTANCE_ID", name),
            ("ANTLER_AGENT_GENERATE_TITLES", "false"),
            ("ANTLER_MEMORY_EXTRACTION", "true"),
            ("ANTLER_MEMORY_DEBOUNCE_SECS", "0"),
            ("ANTLER_MEMORY_CLAIM_TIMEOUT_SECS", "2"),
        ],
    )
}

/// The extraction requests the model received for conversations containing `text`.
async fn extractions(model: &str, text: &str) -> usize {
    let requests = model_requests(model).await;
    requests
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            let s = r.to_string();
            s.contains("Known facts") && s.contains(text)
        })
        .count()
}

async fn facts(server: &Server) -> Vec<Value> {
    let (_, list) = server.get_json("/api/memory?limit=100").await;
    list["facts"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn a_conversation_claimed_by_a_killed_replica_is_learned_by_the_other() {
    let Some(db) = postgres_database().await else {
        return;
    };
    let env = Env::new();
    let model = mock_llm(SCRIPT).await;
    let a = replica(&env, &model, &db, "a");
    a.run_wait("k", "agent", "I bake bread in Lyon for a living")
        .await;
    // A has claimed it and is reading the model's slow answer: kill it there.
    wait_for("A to start learning", async || {
        extractions(&model, "bake bread").await == 1
    })
    .await;
    a.crash();

    let b = replica(&env, &model, &db, "b");
    wait_for("B to learn what A could not", async || {
        !facts(&b).await.is_empty()
    })
    .await;
    let learned = facts(&b).await;
    assert_eq!(learned.len(), 1, "{learned:?}");
    assert_eq!(learned[0]["content"], "Works as a baker in Lyon");
    assert_eq!(learned[0]["source_thread"], "k");
    assert_eq!(extractions(&model, "bake bread").await, 2);
    // Done is done: nothing is learned again later.
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    assert_eq!(extractions(&model, "bake bread").await, 2);
    assert_eq!(facts(&b).await.len(), 1);
}

#[tokio::test]
async fn with_two_replicas_each_conversation_is_learned_once() {
    let Some(db) = postgres_database().await else {
        return;
    };
    let env = Env::new();
    let model = mock_llm(&numbers_script()).await;
    let a = replica(&env, &model, &db, "a");
    let b = replica(&env, &model, &db, "b");
    let threads: Vec<String> = (0..8).map(|i| format!("n{i}")).collect();
    let runs = threads.iter().enumerate().map(|(i, thread)| {
        let server = if i % 2 == 0 { &a } else { &b };
        async move {
            server
                .run_wait(thread, "agent", &format!("My favourite number is {i}00"))
                .await
        }
    });
    futures::future::join_all(runs).await;
    wait_for("every conversation learned", async || {
        facts(&a).await.len() >= 8
    })
    .await;
    let mut learned: Vec<String> = facts(&b)
        .await
        .iter()
        .map(|f| f["content"].as_str().unwrap_or_default().to_string())
        .collect();
    learned.sort();
    let expected: Vec<String> = (0..8).map(|i| format!("Likes the number {i}")).collect();
    assert_eq!(learned, expected);
    // Each conversation was read exactly once, by one replica or the other.
    for i in 0..8 {
        assert_eq!(
            extractions(&model, &format!("My favourite number is {i}00")).await,
            1,
            "conversation {i}"
        );
    }
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    assert_eq!(extractions(&model, "My favourite number is").await, 8);
    assert_eq!(facts(&a).await.len(), 8);
}
