//! Two `antler serve` processes on one PostgreSQL database (and one shared data and skills
//! directory) behave as one service.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{
    Env, Server, mock_llm, model_requests, postgres_database, read_sse, run_body, streamed_text,
    wait_for,
};

const SCRIPT: &str = r#"
scenarios:
  - system: "You write titles"
    turns: [{content: "Replicas"}]
  - match: "slow"
    turns:
      - content: "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"
        chunk_size: 4
        chunk_delay_ms: 150
  - match: ""
    turns:
      - content: "quick answer"
"#;

struct Pair {
    env: Env,
    db: String,
    model: String,
}

impl Pair {
    async fn new() -> Option<Self> {
        let db = postgres_database().await?;
        Some(Pair {
            env: Env::new(),
            db,
            model: mock_llm(SCRIPT).await,
        })
    }

    fn replica(&self, name: &str) -> Server {
        self.env.start_agent(
            &self.model,
            &[
                ("ANTLER_DATABASE_URL", &self.db),
                ("ANTLER_SANDBOX_INSTANCE_ID", name),
            ],
        )
    }
}

async fn start(server: &Server, thread: &str, text: &str) -> String {
    let mut body = run_body(text, &["values", "messages-tuple"]);
    body["on_disconnect"] = json!("continue");
    let (status, run) = server
        .post_json(&format!("/api/threads/{thread}/runs"), body)
        .await;
    assert_eq!(status, 200, "{run}");
    run["run_id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_run_on_one_replica_is_joined_and_replayed_through_the_other() {
    let Some(pair) = Pair::new().await else {
        return;
    };
    let (a, b) = (pair.replica("replica-a"), pair.replica("replica-b"));
    a.create_thread("t").await;
    let run_id = start(&a, "t", "slow please").await;
    a.wait_run("t", &run_id, |r| r["status"] == "running").await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    // A join through B while the run is still going on A waits for its end.
    let join = tokio::spawn(
        b.http
            .get(b.url(&format!("/api/threads/t/runs/{run_id}/join")))
            .send(),
    );
    let joined = b.replay("t", &run_id, 2).await;
    let ids: Vec<u64> = joined.iter().map(|e| e.id.unwrap()).collect();
    assert_eq!(ids[0], 3, "resumes after the given id");
    assert!(
        ids.windows(2).all(|w| w[1] == w[0] + 1),
        "no lost or duplicated events: {ids:?}"
    );
    assert_eq!(joined.last().unwrap().event, "end");
    let text = streamed_text(&joined);
    assert!(text.ends_with("sixteen"), "{text}");
    // The same replay from A, after the end, is identical.
    let from_a = a.replay("t", &run_id, 2).await;
    let a_ids: Vec<u64> = from_a.iter().map(|e| e.id.unwrap()).collect();
    assert_eq!(a_ids, ids);
    let joined_values: Value = join.await.unwrap().unwrap().json().await.unwrap();
    let messages = joined_values["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "{joined_values}");
    assert!(
        messages[1]["content"]
            .as_str()
            .unwrap()
            .ends_with("sixteen"),
        "the join answered with the finished state: {joined_values}"
    );
}

#[tokio::test]
async fn cancel_through_one_replica_stops_a_run_on_the_other() {
    let Some(pair) = Pair::new().await else {
        return;
    };
    let (a, b) = (pair.replica("replica-a"), pair.replica("replica-b"));
    a.create_thread("t").await;
    let run_id = start(&a, "t", "slow please").await;
    a.wait_run("t", &run_id, |r| r["status"] == "running").await;
    let (status, cancelled) = b
        .post(&format!("/api/threads/t/runs/{run_id}/cancel?wait=true"))
        .await;
    assert_eq!(status, 200, "{cancelled}");
    assert_eq!(cancelled["status"], "interrupted");
    assert_eq!(cancelled["stop_reason"], "cancelled");
    // Busy-thread rules hold across replicas too.
    let run_id = start(&a, "t", "slow please").await;
    a.wait_run("t", &run_id, |r| r["status"] == "running").await;
    let (status, body) = b
        .post_json("/api/threads/t/runs", run_body("quick", &["values"]))
        .await;
    assert_eq!(status, 409, "{body}");
    b.post(&format!("/api/threads/t/runs/{run_id}/cancel?wait=true"))
        .await;
}

#[tokio::test]
async fn a_skill_toggled_on_one_replica_is_seen_by_the_other() {
    let Some(pair) = Pair::new().await else {
        return;
    };
    pair.env
        .write_skill("public", "shared-skill", "shared-skill", "Shared.");
    let (a, b) = (pair.replica("replica-a"), pair.replica("replica-b"));
    let (status, _) = a
        .put_json("/api/skills/shared-skill", json!({"enabled": false}))
        .await;
    assert_eq!(status, 200);
    wait_for("B to see the toggle", async || {
        b.get_json("/api/skills").await.1["skills"][0]["enabled"] == false
    })
    .await;
    // B's next prompt leaves the skill out.
    b.create_thread("t").await;
    b.post_json("/api/threads/t/runs/wait", run_body("hello", &["values"]))
        .await;
    let requests = model_requests(&pair.model).await;
    let system = requests.as_array().unwrap().iter().rev().find_map(|r| {
        let s = r["messages"][0]["content"].as_str()?;
        (!s.contains("You write titles")).then(|| s.to_string())
    });
    assert!(!system.unwrap().contains("shared-skill"));
    // An install through B appears on A.
    let archive = antler_skills::archive::testing::ZipBuilder::new()
        .skill("fresh/", "fresh")
        .finish()
        .unwrap();
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(archive).file_name("f.skill"),
    );
    let r = b
        .http
        .post(b.url("/api/skills/upload"))
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    wait_for("A to see the install", async || {
        a.get_json("/api/skills").await.1["skills"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["name"] == "fresh")
    })
    .await;
}

#[tokio::test]
async fn a_survivor_interrupts_the_runs_of_a_replica_that_died() {
    let Some(pair) = Pair::new().await else {
        return;
    };
    let (a, b) = (pair.replica("replica-a"), pair.replica("replica-b"));
    a.create_thread("t").await;
    let run_id = start(&a, "t", "slow please").await;
    a.wait_run("t", &run_id, |r| r["status"] == "running").await;
    a.crash(); // no shutdown, no final status
    let url = b.url(&format!("/api/threads/t/runs/{run_id}/stream"));
    let events = read_sse(b.http.get(&url).send().await.unwrap(), |_| false).await;
    assert_eq!(
        events.last().unwrap().event,
        "end",
        "the stream of the dead replica's run ends"
    );
    assert!(
        events
            .iter()
            .any(|e| e.event == "error" && e.data["name"] == "ReplicaLost")
    );
    let run = b.wait_run("t", &run_id, |r| r["status"] != "running").await;
    assert_eq!(run["status"], "interrupted");
    assert_eq!(run["stop_reason"], "replica_lost");
    let (status, values) = b
        .post_json("/api/threads/t/runs/wait", run_body("again", &["values"]))
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        values["messages"].as_array().unwrap().last().unwrap()["content"],
        "quick answer"
    );
}

#[tokio::test]
async fn a_replica_whose_notice_connection_broke_rereads_the_skills() {
    let Some(pair) = Pair::new().await else {
        return;
    };
    let b = pair.replica("replica-b");
    // A change no notice announces (written straight to the shared skills dir).
    pair.env
        .write_skill("public", "late-skill", "late-skill", "Late.");
    let (_, list) = b.get_json("/api/skills").await;
    assert_eq!(list["skills"].as_array().unwrap().len(), 0, "{list}");
    let db = sqlx::PgPool::connect(&pair.db).await.unwrap();
    let killed: Vec<(bool,)> = sqlx::query_as(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE 'LISTEN%'",
    )
    .fetch_all(&db)
    .await
    .unwrap();
    assert_eq!(killed.len(), 1, "one listener connection");
    wait_for("B to re-read the skills", async || {
        b.get_json("/api/skills").await.1["skills"]
            .as_array()
            .unwrap()
            .len()
            == 1
    })
    .await;
}
