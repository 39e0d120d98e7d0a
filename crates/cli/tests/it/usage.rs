//! Usage and cost: on each AI message (streamed and stored) and on the run, subagents and
//! titles counted; `GET /api/usage` grouped per day, model and person, with who may see
//! what; daily token and cost limits refusing new runs with 429 until an admin raises them,
//! with accounts on and off.

use serde_json::{Value, json};

use crate::auth::{send, user};
use crate::common::{Env, Server, client_with, error_code, mock_llm, read_sse};

const PRICED_SCRIPT: &str = r#"scenarios:
  - system: "You write titles"
    turns:
      - content: "Priced talk"
        usage: {prompt_tokens: 40, completion_tokens: 4}
  - system: "<subagent"
    match: "Research priced"
    turns:
      - content: "found it"
        usage: {prompt_tokens: 300, completion_tokens: 20}
  - match: "usage please"
    turns:
      - tool_calls: [{name: task, arguments: {description: "Look", prompt: "Research priced"}}]
        usage: {prompt_tokens: 1000, completion_tokens: 100, cached_tokens: 400, reasoning_tokens: 30}
      - content: "done"
        usage: {prompt_tokens: 2000, completion_tokens: 50, cached_tokens: 1500}
  - match: ""
    turns:
      - content: "hi"
        usage: {prompt_tokens: 150, completion_tokens: 10}
"#;

/// A model named `priced` at `url`, at $2 / $0.50 cached / $10 per million tokens.
fn priced_model(url: &str) -> String {
    format!(
        "- {{name: priced, base_url: \"{url}\", model: mock, pricing: {{input: 2.0, cached_input: 0.5, output: 10.0}}}}\n"
    )
}

fn run(text: &str) -> Value {
    json!({"assistant_id": "lead_agent", "if_not_exists": "create",
           "input": {"messages": [{"role": "user", "content": text}]}})
}

fn close(a: &Value, b: f64) -> bool {
    a.as_f64().is_some_and(|a| (a - b).abs() < 1e-9)
}

/// The runs of `thread`: the lead's and its subagents' (`metadata.parent_run_id`).
async fn runs_of(server: &Server, thread: &str) -> (Value, Vec<Value>) {
    let (status, runs) = server
        .get_json(&format!("/api/threads/{thread}/runs"))
        .await;
    assert_eq!(status, 200, "{runs}");
    let (children, leads): (Vec<Value>, Vec<Value>) = runs
        .as_array()
        .unwrap()
        .iter()
        .cloned()
        .partition(|r| r["metadata"].get("parent_run_id").is_some());
    assert_eq!(leads.len(), 1, "{runs}");
    (leads[0].clone(), children)
}

#[tokio::test]
async fn usage_and_cost_are_on_each_answer_and_the_run_with_subagents_and_titles_counted() {
    let model = mock_llm(PRICED_SCRIPT).await;
    let env = Env::new();
    let models = priced_model(&model);
    let server = env.start_with(&[("ANTLER_SKILLS_WATCH", "false"), ("ANTLER_MODELS", &models)]);
    let mut body = run("usage please");
    body["stream_mode"] = json!(["messages-tuple", "values"]);
    let response = server.stream_run("t1", body).await;
    assert_eq!(response.status(), 200);
    let events = read_sse(response, |_| false).await;

    // The last streamed chunk of each answer carries its usage, model and cost.
    let finals: Vec<&Value> = events
        .iter()
        .filter(|e| e.event == "messages")
        .map(|e| &e.data[0])
        .filter(|c| c.get("usage_metadata").is_some_and(|u| !u.is_null()))
        .collect();
    let last = finals
        .iter()
        .find(|c| c["usage_metadata"]["input_tokens"] == 2000)
        .unwrap_or_else(|| panic!("no final chunk of the answer: {finals:?}"));
    assert_eq!(
        last["usage_metadata"],
        json!({"input_tokens": 2000, "output_tokens": 50, "total_tokens": 2050,
               "input_token_details": {"cache_read": 1500}})
    );
    assert_eq!(last["response_metadata"]["model_name"], "priced");
    // 500 fresh · $2 + 1500 cached · $0.50 + 50 out · $10, per million.
    assert!(
        close(&last["response_metadata"]["cost_usd"], 0.00225),
        "{last}"
    );

    // The stored messages keep them.
    let (_, state) = server.get_json("/api/threads/t1/state").await;
    let ais: Vec<&Value> = state["values"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["type"] == "ai")
        .collect();
    assert_eq!(ais.len(), 2, "{state}");
    assert_eq!(
        ais[0]["usage_metadata"],
        json!({"input_tokens": 1000, "output_tokens": 100, "total_tokens": 1100,
               "input_token_details": {"cache_read": 400},
               "output_token_details": {"reasoning": 30}})
    );
    assert!(
        close(&ais[0]["response_metadata"]["cost_usd"], 0.0024),
        "{}",
        ais[0]
    );
    assert_eq!(ais[1]["response_metadata"]["model_name"], "priced");
    assert!(close(&ais[1]["response_metadata"]["cost_usd"], 0.00225));
    assert_eq!(state["values"]["title"], "Priced talk");

    // The run counts its own two calls, its subagent's and the title's.
    let (run, children) = runs_of(&server, "t1").await;
    assert_eq!(children.len(), 1);
    let child = &children[0]["usage"];
    assert_eq!(
        (
            &child["model_calls"],
            &child["input_tokens"],
            &child["output_tokens"]
        ),
        (&json!(1), &json!(300), &json!(20)),
        "the subagent's run has its own: {child}"
    );
    let usage = &run["usage"];
    assert_eq!(usage["model_calls"], 4, "{run}");
    assert_eq!(usage["input_tokens"], 1000 + 2000 + 300 + 40);
    assert_eq!(usage["cached_input_tokens"], 1900);
    assert_eq!(usage["output_tokens"], 100 + 50 + 20 + 4);
    assert_eq!(usage["reasoning_tokens"], 30);
    // 0.0024 + 0.00225 + subagent 0.0008 + title 0.00012.
    assert!(close(&usage["cost_usd"], 0.00557), "{usage}");

    // `/api/usage` has the same, per day and model, and today's use under the limit.
    let (status, report) = server.get_json("/api/usage").await;
    assert_eq!(status, 200, "{report}");
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{report}");
    assert_eq!(rows[0]["model"], "priced");
    assert_eq!(rows[0]["day"], report["to"]);
    assert!(
        rows[0].get("user").is_none(),
        "not grouped by user: {report}"
    );
    assert_eq!(rows[0]["model_calls"], 4);
    assert_eq!(report["totals"]["input_tokens"], 3340);
    assert_eq!(report["totals"]["cached_input_tokens"], 1900);
    assert_eq!(report["totals"]["reasoning_tokens"], 30);
    assert!(close(&report["totals"]["cost_usd"], 0.00557), "{report}");
    assert_eq!(report["limit"]["tokens_per_day"], Value::Null);
    assert_eq!(report["limit"]["used_tokens_today"], 3340 + 174);
    assert!(
        report["limit"]["resets_at"]
            .as_str()
            .unwrap()
            .ends_with("T00:00:00Z"),
        "{report}"
    );
}

#[tokio::test]
async fn people_see_their_own_usage_and_admins_everyones_grouped_as_asked() {
    let model = mock_llm(PRICED_SCRIPT).await;
    let env = Env::new();
    let models = priced_model(&model);
    let server = env.start_with(&[
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_MODELS", &models),
        ("ANTLER_AGENT_GENERATE_TITLES", "false"),
    ]);
    let (status, body) = server
        .post_json("/api/threads/a/runs/wait", run("hello"))
        .await;
    assert_eq!(status, 200, "{body}");
    let bob_token = user(&server, "bob@antler.test").await;
    let bob = client_with(Some(&bob_token));
    let (status, body) = send(
        bob.post(server.url("/api/threads/b/runs/wait"))
            .json(&run("hey")),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (_, users) = server.get_json("/api/users").await;
    let id_of = |email: &str| {
        users
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["email"] == email)
            .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (admin_id, bob_id) = (id_of("admin@antler.test"), id_of("bob@antler.test"));

    // Bob sees his own only, and nobody else's.
    let (status, mine) = send(bob.get(server.url("/api/usage?group_by=user"))).await;
    assert_eq!(status, 200, "{mine}");
    assert_eq!(mine["rows"].as_array().unwrap().len(), 1, "{mine}");
    assert_eq!(mine["rows"][0]["user"], bob_id.as_str());
    assert_eq!(mine["totals"]["input_tokens"], 150);
    for other in [format!("user={admin_id}"), "user=all".into()] {
        let (status, answer) = send(bob.get(server.url(&format!("/api/usage?{other}")))).await;
        assert_eq!(status, 403, "{other}: {answer}");
    }
    let (status, _) = send(bob.get(server.url(&format!("/api/usage?user={bob_id}")))).await;
    assert_eq!(status, 200);

    // An admin sees everyone's, per person, or one person's with their limits.
    let (status, all) = server
        .get_json("/api/usage?user=all&group_by=user,model")
        .await;
    assert_eq!(status, 200, "{all}");
    let people: Vec<(&str, &str, u64)> = all["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["user"].as_str().unwrap(),
                r["model"].as_str().unwrap(),
                r["input_tokens"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut expected = vec![
        (admin_id.as_str(), "priced", 150),
        (bob_id.as_str(), "priced", 150),
    ];
    expected.sort();
    assert_eq!(people, expected, "{all}");
    assert!(all["rows"][0].get("day").is_none());
    assert_eq!(all["totals"]["input_tokens"], 300);
    let (status, bobs) = server.get_json(&format!("/api/usage?user={bob_id}")).await;
    assert_eq!(status, 200);
    assert_eq!(bobs["totals"]["model_calls"], 1, "{bobs}");
    assert_eq!(bobs["limit"]["used_tokens_today"], 160);
    let (status, answer) = server
        .get_json("/api/usage?user=00000000-0000-4000-8000-000000000000")
        .await;
    assert_eq!(status, 404, "{answer}");

    // Days outside the range are not counted; the range is checked.
    let (status, old) = server
        .get_json("/api/usage?from=2020-01-01&to=2020-01-31")
        .await;
    assert_eq!(status, 200, "{old}");
    assert_eq!(old["rows"], json!([]));
    assert_eq!(old["totals"]["model_calls"], 0);
    // Any range is answered: a long one (counting today's runs) and one that ends before it
    // starts (nothing).
    let (status, long) = server.get_json("/api/usage?from=0000-01-01").await;
    assert_eq!(status, 200, "{long}");
    assert!(
        long["totals"]["model_calls"].as_u64().unwrap() > 0,
        "{long}"
    );
    let (status, backwards) = server
        .get_json("/api/usage?from=2025-03-10&to=2025-03-01")
        .await;
    assert_eq!(status, 200, "{backwards}");
    assert_eq!(backwards["rows"], json!([]));
    // An empty value is as if it were left out.
    let (status, own) = server.get_json("/api/usage?user=&group_by=").await;
    assert_eq!(status, 200, "{own}");
    for bad in [
        "from=2025-13-01",
        "from=2025-1-01",
        "to=yesterday",
        "to=",
        "group_by=thread",
        "group_by=day,",
        "user=nobody",
        "colour=blue",
    ] {
        let (status, answer) = server.get_json(&format!("/api/usage?{bad}")).await;
        assert_eq!(status, 422, "{bad}: {answer}");
        assert!(
            ["invalid_query", "invalid_user_id"].contains(&error_code(&answer)),
            "{bad}: {answer}"
        );
    }
}

/// Starts a run with `client` on `thread`; answers the status, the body, and `Retry-After`.
async fn start(
    server: &Server,
    client: &reqwest::Client,
    path: &str,
    text: &str,
) -> (u16, Value, Option<u64>) {
    let r = client
        .post(server.url(path))
        .json(&run(text))
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let retry = r
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok());
    let body = r.json().await.unwrap_or(Value::Null);
    (status, body, retry)
}

fn assert_refused(what: &str, (status, body, retry): &(u16, Value, Option<u64>), limit: &str) {
    assert_eq!(*status, 429, "{what}: {body}");
    assert_eq!(error_code(body), "usage_limit_exceeded", "{what}: {body}");
    let details = &body["error"]["details"];
    assert_eq!(details["limit"], limit, "{body}");
    let resets = details["resets_at"].as_str().unwrap();
    assert!(resets.ends_with("T00:00:00Z"), "{resets}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(resets) && message.contains("daily"),
        "{message}"
    );
    let retry = retry.unwrap_or_else(|| panic!("{what}: no Retry-After"));
    assert!((1..=86_400).contains(&retry), "{retry}");
}

#[tokio::test]
async fn a_run_over_the_daily_token_limit_is_refused_until_an_admin_raises_the_limit() {
    let model = mock_llm(PRICED_SCRIPT).await;
    let env = Env::new();
    let server = env.start_agent(
        &model,
        &[
            ("ANTLER_AGENT_GENERATE_TITLES", "false"),
            ("ANTLER_USAGE_DAILY_TOKEN_LIMIT", "100"),
        ],
    );
    let bob_token = user(&server, "bob@antler.test").await;
    let bob = client_with(Some(&bob_token));
    // Under the limit when it starts: the run goes to its end, past the limit.
    let first = start(&server, &bob, "/api/threads/b/runs/wait", "hello").await;
    assert_eq!(first.0, 200, "{}", first.1);
    for path in [
        "/api/threads/b/runs/wait",
        "/api/threads/b/runs/stream",
        "/api/threads/c/runs",
        "/api/runs/wait",
    ] {
        assert_refused(
            path,
            &start(&server, &bob, path, "again").await,
            "tokens_per_day",
        );
    }
    let (status, batch) = send(
        bob.post(server.url("/api/runs/batch"))
            .json(&json!([run("in a batch")])),
    )
    .await;
    assert_eq!(status, 429, "{batch}");
    assert_eq!(error_code(&batch), "usage_limit_exceeded");
    // Refused runs stored nothing: no thread, no run.
    let (status, _) = send(bob.get(server.url("/api/threads/c"))).await;
    assert_eq!(status, 404);
    let (_, runs) = send(bob.get(server.url("/api/threads/b/runs"))).await;
    assert_eq!(runs.as_array().unwrap().len(), 1, "{runs}");
    // Someone else still has their own day's allowance.
    let (status, body) = server
        .post_json("/api/threads/a/runs/wait", run("admin"))
        .await;
    assert_eq!(status, 200, "{body}");

    // Only admins set limits.
    let (_, me) = send(bob.get(server.url("/api/auth/me"))).await;
    let bob_id = me["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{me}"))
        .to_string();
    let limits_path = format!("/api/usage/limits/{bob_id}");
    let (status, _) = send(
        bob.put(server.url(&limits_path))
            .json(&json!({"tokens_per_day": 1_000_000})),
    )
    .await;
    assert_eq!(status, 403);
    for bad in [
        json!({"tokens_per_day": -5}),
        json!({"tokens_per_day": "many"}),
        json!({"tokens_per_day": 2.5}),
        // More than the database keeps (it would come back negative).
        json!({"tokens_per_day": 9_223_372_036_854_775_808_u64}),
        json!({"cost_usd_per_day": -1.0}),
        json!({"daily": 5}),
    ] {
        let (status, answer) = server.put_json(&limits_path, bad.clone()).await;
        assert_eq!(status, 422, "{bad}: {answer}");
    }
    let (status, _) = server
        .put_json(
            "/api/usage/limits/00000000-0000-4000-8000-000000000000",
            json!({"tokens_per_day": 5}),
        )
        .await;
    assert_eq!(status, 404);
    let (status, _) = server
        .put_json("/api/usage/limits/not-a-user", json!({"tokens_per_day": 5}))
        .await;
    assert_eq!(status, 422);

    // Raised: Bob's next run goes through, and the limit shows in his report. JSON Schema
    // counts 1000000.0 as an integer, so it is taken as one.
    let (status, set) = server
        .put_json(&limits_path, json!({"tokens_per_day": 1_000_000.0}))
        .await;
    assert_eq!(status, 200, "{set}");
    assert_eq!(set["user_id"], bob_id.as_str());
    assert_eq!(set["tokens_per_day"], 1_000_000);
    let again = start(&server, &bob, "/api/threads/b/runs/wait", "hello again").await;
    assert_eq!(again.0, 200, "{}", again.1);
    let (_, report) = send(bob.get(server.url("/api/usage"))).await;
    assert_eq!(report["limit"]["tokens_per_day"], 1_000_000, "{report}");
    assert_eq!(report["limit"]["used_tokens_today"], 320);
    let (status, list) = server.get_json("/api/usage/limits").await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["defaults"]["tokens_per_day"], 100);
    assert_eq!(list["users"][0]["user_id"], bob_id.as_str());
    let (status, _) = send(bob.get(server.url("/api/usage/limits"))).await;
    assert_eq!(status, 403);

    // Cleared: the default applies again.
    let (status, cleared) = server
        .put_json(&limits_path, json!({"tokens_per_day": null}))
        .await;
    assert_eq!(status, 200, "{cleared}");
    assert_eq!(cleared["updated_at"], Value::Null);
    assert_refused(
        "after clearing",
        &start(&server, &bob, "/api/threads/b/runs/wait", "once more").await,
        "tokens_per_day",
    );
}

#[tokio::test]
async fn with_accounts_off_the_cost_limit_applies_to_the_local_user() {
    let model = mock_llm(PRICED_SCRIPT).await;
    let env = Env::new();
    let models = priced_model(&model);
    let mut cmd = env.command(&["serve", "--bind", "127.0.0.1:0"]);
    cmd.env("ANTLER_AUTH_MODE", "none")
        .env("ANTLER_SKILLS_WATCH", "false")
        .env("ANTLER_MODELS", &models)
        .env("ANTLER_AGENT_GENERATE_TITLES", "false")
        .env("ANTLER_USAGE_DAILY_COST_LIMIT_USD", "0.001");
    let server = Server::spawn(cmd);
    assert!(server.token.is_none());
    let plain = reqwest::Client::new();
    // 150 in · $2 + 10 out · $10 = $0.0004 a run: the third is over $0.001.
    for i in 0..3 {
        let r = start(
            &server,
            &plain,
            "/api/threads/l/runs/wait",
            &format!("run {i}"),
        )
        .await;
        assert_eq!(r.0, 200, "{}", r.1);
    }
    let refused = start(&server, &plain, "/api/threads/l/runs/wait", "a fourth").await;
    assert_refused("over the cost limit", &refused, "cost_usd_per_day");
    assert!(close(&refused.1["error"]["details"]["limit_value"], 0.001));
    let (_, report) = server.get_json("/api/usage").await;
    assert!(
        close(&report["limit"]["cost_usd_per_day"], 0.001),
        "{report}"
    );
    assert!(
        close(&report["limit"]["used_cost_usd_today"], 0.0012),
        "{report}"
    );

    let (status, set) = server
        .put_json("/api/usage/limits/local", json!({"cost_usd_per_day": 1.0}))
        .await;
    assert_eq!(status, 200, "{set}");
    let r = start(&server, &plain, "/api/threads/l/runs/wait", "allowed again").await;
    assert_eq!(r.0, 200, "{}", r.1);
}

#[tokio::test]
async fn a_server_killed_in_the_middle_of_a_run_keeps_what_its_finished_calls_used() {
    let script = r#"scenarios:
  - match: "crash during me"
    turns:
      - tool_calls: [{name: ls, arguments: {path: /mnt/user-data}}]
        usage: {prompt_tokens: 500, completion_tokens: 5}
      - content: "a slow answer the server never finishes"
        chunk_size: 1
        chunk_delay_ms: 5000
        usage: {prompt_tokens: 900, completion_tokens: 9}
"#;
    let model = mock_llm(script).await;
    let env = Env::new();
    let models = priced_model(&model);
    let serve = || {
        let mut cmd = env.command(&["serve", "--bind", "127.0.0.1:0"]);
        cmd.env("ANTLER_AUTH_MODE", "none")
            .env("ANTLER_SKILLS_WATCH", "false")
            .env("ANTLER_MODELS", &models)
            .env("ANTLER_AGENT_GENERATE_TITLES", "false");
        Server::spawn(cmd)
    };
    let server = serve();
    let (status, body) = server
        .post_json("/api/threads/k/runs", run("crash during me"))
        .await;
    assert_eq!(status, 200, "{body}");
    // The second call has started: the first one answered, and its usage was stored then.
    loop {
        let requests = crate::common::model_requests(&model).await;
        if requests.as_array().is_some_and(|r| r.len() >= 2) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    server.crash();

    let server = serve();
    let (status, report) = server.get_json("/api/usage").await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["totals"]["input_tokens"], 500, "{report}");
    assert_eq!(report["totals"]["output_tokens"], 5, "{report}");
    // 500 in · $2 + 5 out · $10, per million.
    assert!(close(&report["totals"]["cost_usd"], 0.00105), "{report}");
    assert_eq!(report["limit"]["used_tokens_today"], 505, "{report}");
}
