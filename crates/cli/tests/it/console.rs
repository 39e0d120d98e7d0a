//! The admin runs console (`/api/admin/runs`): admins only; everyone's runs filtered by
//! person, agent, status, time and subagents, paged with a total; bad parameters named in a
//! 422; and a run's timeline of model calls, tool calls and subagents, its subagents' runs
//! nested with theirs.

use serde_json::{Value, json};

use crate::auth::{send, user};
use crate::common::{Env, Server, client_with, error_code, mock_llm, postgres_database, wait_for};

const SCRIPT: &str = r#"scenarios:
  - system: "<subagent"
    match: "Research it"
    turns:
      - content: "found it"
  - match: "work please"
    turns:
      - tool_calls: [{name: bash, arguments: {command: "echo hi"}}]
      - tool_calls: [{name: read_file, arguments: {path: /mnt/user-data/workspace/missing.txt}}]
      - tool_calls: [{name: task, arguments: {description: "Look", prompt: "Research it"}}]
      - content: "done"
  - match: ""
    turns:
      - content: "hi"
"#;

/// A run id no run has.
const NO_RUN: &str = "00000000-0000-4000-8000-000000000000";

/// A server with the scripted model named `quick`, host bash, no titles (their calls would
/// be steps of every run), and `extra` settings.
async fn start_with(env: &Env, extra: &[(&str, &str)]) -> Server {
    let model = mock_llm(SCRIPT).await;
    let models = format!("- {{name: quick, base_url: \"{model}\", model: mock}}\n");
    let mut vars = vec![
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_MODELS", models.as_str()),
        ("ANTLER_SANDBOX_ALLOW_HOST_BASH", "true"),
        ("ANTLER_AGENT_GENERATE_TITLES", "false"),
    ];
    vars.extend_from_slice(extra);
    env.start_with(&vars)
}

async fn start(env: &Env) -> Server {
    start_with(env, &[]).await
}

fn run(text: &str) -> Value {
    json!({"assistant_id": "lead_agent", "if_not_exists": "create",
           "input": {"messages": [{"role": "user", "content": text}]}})
}

/// Runs `text` on `thread` as the admin, to the end.
async fn admin_run(server: &Server, thread: &str, text: &str) {
    let (status, body) = server
        .post_json(&format!("/api/threads/{thread}/runs/wait"), run(text))
        .await;
    assert_eq!(status, 200, "{body}");
}

/// `GET /api/admin/runs?<query>` as the admin: the run ids and the total.
async fn listed(server: &Server, query: &str) -> (Vec<String>, u64) {
    let (status, page) = server.get_json(&format!("/api/admin/runs?{query}")).await;
    assert_eq!(status, 200, "{query}: {page}");
    let ids = page["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run_id"].as_str().unwrap().to_string())
        .collect();
    (ids, page["total"].as_u64().unwrap())
}

/// The id of the account with `email`.
async fn user_id(server: &Server, email: &str) -> String {
    let (_, users) = server.get_json("/api/users").await;
    users
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["email"] == email)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn console_refuses_people_who_are_not_admins() {
    let env = Env::new();
    let server = start(&env).await;
    let bob = client_with(Some(&user(&server, "bob@antler.test").await));
    for path in [
        "/api/admin/runs".to_string(),
        format!("/api/admin/runs/{NO_RUN}"),
    ] {
        let (status, body) = send(bob.get(server.url(&path))).await;
        assert_eq!(status, 403, "{path}: {body}");
        assert_eq!(error_code(&body), "admin_required", "{path}");
        let (status, body) = send(client_with(None).get(server.url(&path))).await;
        assert_eq!(status, 401, "{path}: {body}");
    }
}

#[tokio::test]
async fn console_filters_and_pages_everyones_runs_newest_first() {
    filters_and_pages(&[]).await;
}

#[tokio::test]
async fn console_filters_and_pages_everyones_runs_on_postgresql() {
    let Some(url) = postgres_database().await else {
        return;
    };
    filters_and_pages(&[("ANTLER_DATABASE_URL", url.as_str())]).await;
}

async fn filters_and_pages(extra: &[(&str, &str)]) {
    let env = Env::new();
    let server = start_with(&env, extra).await;
    admin_run(&server, "a1", "hello").await;
    admin_run(&server, "a2", "hello again").await;
    let bob = client_with(Some(&user(&server, "bob@antler.test").await));
    let (status, body) = send(
        bob.post(server.url("/api/threads/b1/runs/wait"))
            .json(&run("hey")),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (admin_id, bob_id) = (
        user_id(&server, "admin@antler.test").await,
        user_id(&server, "bob@antler.test").await,
    );

    let (status, page) = server.get_json("/api/admin/runs").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["total"], 3, "{page}");
    let runs = page["runs"].as_array().unwrap();
    let threads: Vec<&str> = runs
        .iter()
        .map(|r| r["thread_id"].as_str().unwrap())
        .collect();
    assert_eq!(threads, ["b1", "a2", "a1"], "newest first: {page}");
    assert_eq!(runs[0]["user_id"], bob_id.as_str());
    assert_eq!(runs[0]["user_email"], "bob@antler.test");
    assert_eq!(runs[1]["user_id"], admin_id.as_str());
    assert_eq!(runs[1]["user_email"], "admin@antler.test");
    for r in runs {
        assert_eq!(r["status"], "success", "{r}");
        assert_eq!(r["assistant_id"], runs[0]["assistant_id"], "{r}");
        assert_eq!(r["models"], json!(["quick"]), "{r}");
        assert_eq!(r["usage"]["model_calls"], 1, "{r}");
        assert!(
            r["duration_ms"].is_u64(),
            "a finished run has a duration: {r}"
        );
        assert_eq!(r["parent_run_id"], Value::Null, "{r}");
    }
    let id = |i: usize| runs[i]["run_id"].as_str().unwrap().to_string();
    let (b1, a2, a1) = (id(0), id(1), id(2));

    // By person, agent and status.
    assert_eq!(
        listed(&server, &format!("user={bob_id}")).await,
        (vec![b1.clone()], 1)
    );
    assert_eq!(
        listed(&server, &format!("user={}", admin_id.to_uppercase())).await,
        (vec![a2.clone(), a1.clone()], 2),
        "a user id in capitals is the same id"
    );
    assert_eq!(listed(&server, "user=local").await, (vec![], 0));
    assert_eq!(listed(&server, "status=success").await.1, 3);
    assert_eq!(listed(&server, "status=error").await, (vec![], 0));
    assert_eq!(listed(&server, "assistant_id=lead_agent").await.1, 3);
    let built_in = runs[0]["assistant_id"].as_str().unwrap();
    assert_eq!(
        listed(&server, &format!("assistant_id={built_in}")).await.1,
        3
    );
    assert_eq!(listed(&server, "assistant_id=writer").await, (vec![], 0));

    // By time: `from` included, an RFC 3339 `to` left out, a day `to` included whole.
    let created = |i: usize| runs[i]["created_at"].as_str().unwrap().to_string();
    let a2_at = created(1);
    assert_eq!(
        listed(&server, &format!("from={a2_at}")).await,
        (vec![b1.clone(), a2.clone()], 2)
    );
    assert_eq!(
        listed(&server, &format!("to={a2_at}")).await,
        (vec![a1.clone()], 1)
    );
    let (first_day, last_day) = (&created(2)[..10], &created(0)[..10]);
    assert_eq!(
        listed(&server, &format!("from={first_day}&to={last_day}"))
            .await
            .1,
        3
    );
    let before: chrono::NaiveDate = first_day.parse().unwrap();
    let before = before.pred_opt().unwrap();
    assert_eq!(listed(&server, &format!("to={before}")).await.1, 0);
    assert_eq!(
        listed(
            &server,
            &format!("from={}", created(0).replace('Z', "%2B00:00"))
        )
        .await,
        (vec![b1.clone()], 1),
        "an offset is a time like Z"
    );

    // Pages, with the total of every match; empty values are left out.
    assert_eq!(
        listed(&server, "limit=2").await,
        (vec![b1.clone(), a2.clone()], 3)
    );
    assert_eq!(
        listed(&server, "limit=2&offset=2").await,
        (vec![a1.clone()], 3)
    );
    assert_eq!(listed(&server, "offset=5").await, (vec![], 3));
    assert_eq!(
        listed(
            &server,
            "user=&assistant_id=&status=&from=&to=&subagents=&limit=&offset="
        )
        .await,
        (vec![b1, a2, a1], 3)
    );

    // Bad values are refused naming the parameter.
    for (query, name) in [
        ("limit=0", "limit"),
        ("limit=201", "limit"),
        ("limit=ten", "limit"),
        ("offset=-1", "offset"),
        ("status=done", "status"),
        ("user=bob", "user"),
        ("subagents=yes", "subagents"),
        ("from=2025-13-01", "from"),
        ("to=yesterday", "to"),
        ("from=2025-03-01T10:00:00", "from"),
    ] {
        let (status, body) = server.get_json(&format!("/api/admin/runs?{query}")).await;
        assert_eq!(status, 422, "{query}: {body}");
        assert_eq!(error_code(&body), "invalid_query", "{query}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(name), "{query}: {message}");
    }
    let (status, body) = server.get_json("/api/admin/runs?colour=red").await;
    assert_eq!(status, 422, "an unknown parameter: {body}");

    // A run that does not exist, and an id that is no run id.
    let (status, body) = server.get_json(&format!("/api/admin/runs/{NO_RUN}")).await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(error_code(&body), "not_found");
    let (status, body) = server.get_json("/api/admin/runs/not-a-run").await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(error_code(&body), "invalid_run_id");
}

#[tokio::test]
async fn console_lists_subagents_runs_only_when_asked() {
    subagents_when_asked(&[]).await;
}

#[tokio::test]
async fn console_lists_subagents_runs_only_when_asked_on_postgresql() {
    let Some(url) = postgres_database().await else {
        return;
    };
    subagents_when_asked(&[("ANTLER_DATABASE_URL", url.as_str())]).await;
}

async fn subagents_when_asked(extra: &[(&str, &str)]) {
    let env = Env::new();
    let server = start_with(&env, extra).await;
    admin_run(&server, "t", "work please").await;
    let (leads, total) = listed(&server, "").await;
    assert_eq!(total, 1, "{leads:?}");
    let (status, all) = server.get_json("/api/admin/runs?subagents=true").await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["total"], 2, "{all}");
    let child = &all["runs"][0];
    assert_eq!(child["parent_run_id"], leads[0].as_str(), "{all}");
    assert_eq!(all["runs"][1]["run_id"], leads[0].as_str());
    assert_eq!(listed(&server, "subagents=false").await, (leads, 1));
}

#[tokio::test]
async fn console_shows_a_runs_timeline_with_its_tools_and_its_subagents_runs() {
    let env = Env::new();
    let server = start(&env).await;
    admin_run(&server, "t", "work please").await;
    let (leads, _) = listed(&server, "").await;
    let path = format!("/api/admin/runs/{}", leads[0]);
    // The timeline is stored with the run's final update.
    let mut detail = Value::Null;
    wait_for("the run's timeline", async || {
        let (status, body) = server.get_json(&path).await;
        assert_eq!(status, 200, "{body}");
        detail = body;
        detail["timeline"].as_array().is_some_and(|t| !t.is_empty())
    })
    .await;

    let steps: Vec<(&str, &str)> = detail["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["kind"].as_str().unwrap(), s["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        steps,
        [
            ("model_call", "quick"),
            ("tool_call", "bash"),
            ("model_call", "quick"),
            ("tool_call", "read_file"),
            ("model_call", "quick"),
            ("subagent", "general-purpose"),
            ("model_call", "quick"),
        ],
        "{detail}"
    );
    let timeline = detail["timeline"].as_array().unwrap();
    assert_eq!(timeline[1]["status"], "ok", "{detail}");
    assert_eq!(timeline[3]["status"], "error", "a missing file: {detail}");
    assert!(timeline[3]["error"].is_string(), "{detail}");
    assert!(timeline[0]["input_tokens"].is_u64(), "{detail}");
    assert!(timeline[1]["tool_call_id"].is_string(), "{detail}");
    let child_id = timeline[5]["child_run_id"].as_str().unwrap();

    let run = &detail["run"];
    assert_eq!(run["run_id"], leads[0].as_str());
    assert_eq!(
        run["tools"],
        json!([
            {"name": "bash", "calls": 1, "errors": 0},
            {"name": "read_file", "calls": 1, "errors": 1},
            {"name": "task", "calls": 1, "errors": 0},
        ]),
        "{detail}"
    );
    assert_eq!(run["tool_errors"], 1);
    assert_eq!(run["models"], json!(["quick"]));

    // The subagent's run, nested with its own steps.
    let subagents = detail["subagents"].as_array().unwrap();
    assert_eq!(subagents.len(), 1, "{detail}");
    let sub = &subagents[0];
    assert_eq!(sub["run"]["run_id"], child_id);
    assert_eq!(sub["run"]["parent_run_id"], leads[0].as_str());
    let sub_steps: Vec<&str> = sub["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["kind"].as_str().unwrap())
        .collect();
    assert_eq!(sub_steps, ["model_call"], "{sub}");
    assert_eq!(sub["subagents"], json!([]));

    // The child's own detail has its parent, and no subagents.
    let (status, child) = server
        .get_json(&format!("/api/admin/runs/{child_id}"))
        .await;
    assert_eq!(status, 200, "{child}");
    assert_eq!(child["run"]["parent_run_id"], leads[0].as_str());
    assert_eq!(child["timeline"], sub["timeline"]);
}
