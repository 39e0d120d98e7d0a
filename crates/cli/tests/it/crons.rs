//! Crons (scheduled runs) over HTTP: the LangGraph API and Antler's extensions, ownership,
//! validation, runs started by the scheduler through the scripted model, and two replicas on
//! one PostgreSQL where one is killed mid-way: every tick runs once.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::auth::{send, user};
use crate::common::{Env, Server, client_with, error_code, mock_llm, postgres_database, wait_for};

const SCRIPT: &str = "scenarios:\n  - match: \"\"\n    turns:\n      - content: \"ok\"\n";

/// A cron request: the built-in agent saying `text` on `schedule`.
fn cron(schedule: &str, text: &str) -> Value {
    json!({"assistant_id": "agent", "schedule": schedule,
        "input": {"messages": [{"role": "user", "content": text}]}})
}

fn start(env: &Env, model: &str, extra: &[(&str, &str)]) -> Server {
    let mut vars = vec![
        ("ANTLER_AGENT_GENERATE_TITLES", "false"),
        ("ANTLER_CRONS_POLL_INTERVAL_MS", "100"),
    ];
    vars.extend_from_slice(extra);
    env.start_agent(model, &vars)
}

async fn threads_of(server: &Server, cron_id: &str) -> Vec<Value> {
    let (status, found) = server
        .post_json(
            "/api/threads/search",
            json!({"metadata": {"cron_id": cron_id}, "limit": 1000}),
        )
        .await;
    assert_eq!(status, 200, "{found}");
    found.as_array().cloned().unwrap_or_default()
}

/// Every run on the threads of a new-thread cron.
async fn cron_runs(server: &Server, cron_id: &str) -> Vec<Value> {
    let mut runs = Vec::new();
    for t in threads_of(server, cron_id).await {
        let tid = t["thread_id"].as_str().unwrap();
        let (status, list) = server.get_json(&format!("/api/threads/{tid}/runs")).await;
        assert_eq!(status, 200, "{list}");
        runs.extend(list.as_array().cloned().unwrap_or_default());
    }
    runs
}

fn time(v: &Value) -> DateTime<Utc> {
    v.as_str().unwrap().parse().unwrap()
}

#[tokio::test]
async fn crons_are_created_searched_counted_updated_and_deleted() {
    let model = mock_llm(SCRIPT).await;
    let env = Env::new();
    let server = start(&env, &model, &[("ANTLER_CRONS_ENABLED", "false")]);
    let (status, daily) = server
        .post_json(
            "/api/runs/crons",
            json!({"assistant_id": "agent", "schedule": "0 9 * * 1-5", "timezone": "Europe/Paris",
                "metadata": {"team": "news"}, "input": {"messages": [{"role": "user", "content": "news"}]}}),
        )
        .await;
    assert_eq!(status, 200, "{daily}");
    assert_eq!(daily["thread_id"], Value::Null);
    assert_eq!(daily["on_run_completed"], "delete");
    assert_eq!(daily["enabled"], true);
    assert_eq!(daily["timezone"], "Europe/Paris");
    assert_eq!(daily["payload"]["input"]["messages"][0]["content"], "news");
    assert_eq!(daily["metadata"]["team"], "news");
    assert_eq!(daily["last_run"], Value::Null);
    assert!(daily["user_id"].is_string());
    let next = time(&daily["next_run_date"]);
    assert!(next > Utc::now());
    // 09:00 in Paris is 07:00 or 08:00 UTC.
    assert!(
        next.format("%H:%M").to_string() == "07:00" || next.format("%H:%M").to_string() == "08:00"
    );

    server
        .post_json("/api/threads", json!({"thread_id": "t1"}))
        .await;
    let (status, on_thread) = server
        .post_json(
            "/api/threads/t1/runs/crons",
            json!({"assistant_id": "agent", "schedule": "*/5 * * * * *", "enabled": false}),
        )
        .await;
    assert_eq!(status, 200, "{on_thread}");
    assert_eq!(on_thread["thread_id"], "t1");
    assert_eq!(on_thread["on_run_completed"], Value::Null);
    assert_eq!(on_thread["next_run_date"], Value::Null);
    let daily_id = daily["cron_id"].as_str().unwrap();
    let thread_id = on_thread["cron_id"].as_str().unwrap();

    let (_, all) = server.post_json("/api/runs/crons/search", json!({})).await;
    assert_eq!(all.as_array().unwrap().len(), 2);
    // Newest first by default; ascending by creation gives the other order.
    assert_eq!(all[0]["cron_id"], thread_id);
    let (_, asc) = server
        .post_json(
            "/api/runs/crons/search",
            json!({"sort_by": "created_at", "sort_order": "asc", "select": ["cron_id", "enabled"]}),
        )
        .await;
    assert_eq!(asc[0], json!({"cron_id": daily_id, "enabled": true}));
    let (_, by_meta) = server
        .post_json(
            "/api/runs/crons/search",
            json!({"metadata": {"team": "news"}}),
        )
        .await;
    assert_eq!(by_meta.as_array().unwrap().len(), 1);
    assert_eq!(by_meta[0]["cron_id"], daily_id);
    let (_, of_thread) = server
        .post_json(
            "/api/runs/crons/search",
            json!({"thread_id": "t1", "enabled": false}),
        )
        .await;
    assert_eq!(of_thread.as_array().unwrap().len(), 1);
    let (_, paged) = server
        .post_json(
            "/api/runs/crons/search",
            json!({"limit": 1, "offset": 1, "sort_by": "next_run_date"}),
        )
        .await;
    assert_eq!(paged.as_array().unwrap().len(), 1);
    for (filter, n) in [
        (json!({}), 2),
        (json!({"assistant_id": "agent"}), 2),
        (json!({"thread_id": "t1"}), 1),
        (json!({"metadata": {"team": "news"}}), 1),
        (json!({"metadata": {"team": "sport"}}), 0),
    ] {
        let (status, count) = server
            .post_json("/api/runs/crons/count", filter.clone())
            .await;
        assert_eq!((status, count), (200, json!(n)), "{filter}");
    }

    // Enabling computes the next date; a new schedule moves it; metadata is replaced.
    let (status, enabled) = server
        .patch_json(
            &format!("/api/runs/crons/{thread_id}"),
            json!({"enabled": true, "metadata": {"kind": "poll"}}),
        )
        .await;
    assert_eq!(status, 200, "{enabled}");
    assert!(enabled["next_run_date"].is_string());
    assert_eq!(enabled["metadata"], json!({"kind": "poll"}));
    let (_, moved) = server
        .patch_json(
            &format!("/api/runs/crons/{daily_id}"),
            json!({"schedule": "30 6 1 1 *", "timezone": "UTC", "end_time": "2999-01-01T00:00:00Z"}),
        )
        .await;
    assert!(
        time(&moved["next_run_date"])
            .format("%m-%d %H:%M")
            .to_string()
            == "01-01 06:30"
    );
    assert_eq!(moved["end_time"], "2999-01-01T00:00:00.000000Z");
    let (_, cleared) = server
        .patch_json(
            &format!("/api/runs/crons/{daily_id}"),
            json!({"end_time": null}),
        )
        .await;
    assert_eq!(cleared["end_time"], Value::Null);
    assert_eq!(cleared["next_run_date"], moved["next_run_date"]);
    let (_, got) = server
        .get_json(&format!("/api/runs/crons/{daily_id}"))
        .await;
    assert_eq!(got["schedule"], "30 6 1 1 *");

    let (status, _) = server.delete(&format!("/api/runs/crons/{daily_id}")).await;
    assert_eq!(status, 204);
    let (status, body) = server
        .get_json(&format!("/api/runs/crons/{daily_id}"))
        .await;
    assert_eq!((status, error_code(&body)), (404, "not_found"));
    // A thread's crons go with it.
    server.delete("/api/threads/t1").await;
    let (_, count) = server.post_json("/api/runs/crons/count", json!({})).await;
    assert_eq!(count, json!(0));
}

#[tokio::test]
async fn another_persons_cron_does_not_exist_for_them() {
    let model = mock_llm(SCRIPT).await;
    let env = Env::new();
    let server = start(&env, &model, &[("ANTLER_CRONS_ENABLED", "false")]);
    let (_, mine) = server
        .post_json("/api/runs/crons", cron("0 9 * * *", "hi"))
        .await;
    let id = mine["cron_id"].as_str().unwrap();
    let bob = client_with(Some(&user(&server, "bob@antler.test").await));
    let path = server.url(&format!("/api/runs/crons/{id}"));
    let (status, _) = send(bob.get(&path)).await;
    assert_eq!(status, 404);
    let (status, _) = send(bob.patch(&path).json(&json!({"enabled": false}))).await;
    assert_eq!(status, 404);
    let (status, _) = send(bob.post(format!("{path}/run"))).await;
    assert_eq!(status, 404);
    let (status, _) = send(bob.delete(&path)).await;
    assert_eq!(status, 404);
    let (_, found) = send(
        bob.post(server.url("/api/runs/crons/search"))
            .json(&json!({})),
    )
    .await;
    assert_eq!(found, json!([]));
    let (_, count) = send(
        bob.post(server.url("/api/runs/crons/count"))
            .json(&json!({})),
    )
    .await;
    assert_eq!(count, json!(0));
    // Nor may Bob put a cron on the admin's thread.
    server
        .post_json("/api/threads", json!({"thread_id": "admins"}))
        .await;
    let (status, _) = send(
        bob.post(server.url("/api/threads/admins/runs/crons"))
            .json(&cron("0 9 * * *", "hi")),
    )
    .await;
    assert_eq!(status, 404);
    let (_, still) = server.get_json(&format!("/api/runs/crons/{id}")).await;
    assert_eq!(still["enabled"], true);
}

#[tokio::test]
async fn invalid_schedules_time_zones_and_end_times_are_422_naming_the_field() {
    let model = mock_llm(SCRIPT).await;
    let env = Env::new();
    let server = start(&env, &model, &[("ANTLER_CRONS_ENABLED", "false")]);
    let bad = [
        (json!({"schedule": "every morning"}), "schedule"),
        (json!({"schedule": "61 * * * *"}), "schedule"),
        (json!({"schedule": "* * * * * * * *"}), "schedule"),
        (json!({"timezone": "Mars/Olympus"}), "timezone"),
        (json!({"end_time": "2001-01-01T00:00:00Z"}), "end_time"),
        (json!({"end_time": "soon"}), "end_time"),
        (
            json!({"interrupt_before": [null, null]}),
            "interrupt_before",
        ),
        (json!({"interrupt_after": "tools"}), "interrupt_after"),
    ];
    for (change, field) in bad {
        let mut body = cron("0 9 * * *", "hi");
        for (k, v) in change.as_object().unwrap() {
            body[k] = v.clone();
        }
        let (status, err) = server.post_json("/api/runs/crons", body).await;
        assert_eq!(status, 422, "{change}: {err}");
        let message = err["error"]["message"].as_str().unwrap();
        assert!(message.starts_with(field), "{change}: {message}");
    }
    let (status, err) = server
        .post_json(
            "/api/runs/crons",
            json!({"assistant_id": "agent", "schedule": 5}),
        )
        .await;
    assert_eq!(status, 422, "{err}");
    let (status, _) = server
        .post_json(
            "/api/runs/crons",
            json!({"assistant_id": "00000000-0000-0000-0000-000000000000", "schedule": "0 9 * * *"}),
        )
        .await;
    assert_eq!(status, 404);
    let (status, _) = server
        .post_json("/api/threads/nope/runs/crons", cron("0 9 * * *", "hi"))
        .await;
    assert_eq!(status, 404);
    let (_, ok) = server
        .post_json("/api/runs/crons", cron("0 9 * * *", "hi"))
        .await;
    let path = format!("/api/runs/crons/{}", ok["cron_id"].as_str().unwrap());
    let (status, err) = server.patch_json(&path, json!({"schedule": "nope"})).await;
    assert_eq!(status, 422, "{err}");
    let (status, err) = server
        .patch_json(&path, json!({"interrupt_before": {"node": 1}}))
        .await;
    assert_eq!(status, 422, "{err}");
    let (status, err) = server
        .post_json("/api/runs/crons/search", json!({"select": ["secret"]}))
        .await;
    assert_eq!(status, 422, "{err}");
    // Nothing changed.
    let (_, same) = server.get_json(&path).await;
    assert_eq!(same["schedule"], "0 9 * * *");
    // LangGraph's shapes of interrupts are kept; an empty select is every field.
    let (status, changed) = server
        .patch_json(
            &path,
            json!({"interrupt_before": "*", "interrupt_after": ["agent"]}),
        )
        .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(changed["payload"]["interrupt_before"], "*");
    let (status, found) = server
        .post_json("/api/runs/crons/search", json!({"select": []}))
        .await;
    assert_eq!(status, 200, "{found}");
    assert_eq!(found[0]["schedule"], "0 9 * * *", "{found}");
}

#[tokio::test]
async fn a_per_second_cron_runs_on_new_threads_deleted_or_kept_after_the_run() {
    let model = mock_llm(SCRIPT).await;
    let env = Env::new();
    let server = start(&env, &model, &[]);
    let mut kept = cron("* * * * * *", "tick");
    kept["on_run_completed"] = json!("keep");
    let (status, kept) = server.post_json("/api/runs/crons", kept).await;
    assert_eq!(status, 200, "{kept}");
    let (_, deleted) = server
        .post_json("/api/runs/crons", cron("* * * * * *", "tick"))
        .await;
    let kept_id = kept["cron_id"].as_str().unwrap().to_string();
    let deleted_id = deleted["cron_id"].as_str().unwrap().to_string();
    let done = |v: &Value| v["last_run"]["status"] == "success";
    wait_for("both crons to finish runs", async || {
        let (_, a) = server.get_json(&format!("/api/runs/crons/{kept_id}")).await;
        let (_, b) = server
            .get_json(&format!("/api/runs/crons/{deleted_id}"))
            .await;
        done(&a) && done(&b) && threads_of(&server, &kept_id).await.len() >= 2
    })
    .await;
    for id in [&kept_id, &deleted_id] {
        server
            .patch_json(&format!("/api/runs/crons/{id}"), json!({"enabled": false}))
            .await;
    }
    // Kept threads hold the run, owned by the cron's owner, with the cron in the metadata.
    // A tick claimed just before the cron was disabled may still be running: read a thread
    // whose run has finished.
    let mut finished = None;
    wait_for("a kept thread whose run finished", async || {
        for t in threads_of(&server, &kept_id).await {
            let id = t["thread_id"].as_str().unwrap_or_default().to_string();
            let (_, runs) = server.get_json(&format!("/api/threads/{id}/runs")).await;
            if runs[0]["status"] == "success" {
                finished = Some((id, runs));
                return true;
            }
        }
        false
    })
    .await;
    let (thread, runs) = finished.unwrap();
    assert_eq!(runs[0]["metadata"]["cron_id"], kept_id.as_str());
    assert!(runs[0]["metadata"]["cron_scheduled_for"].is_string());
    let (_, state) = server
        .get_json(&format!("/api/threads/{thread}/state"))
        .await;
    assert_eq!(state["values"]["messages"][1]["content"], "ok");
    // Deleted ones are gone once their runs ended.
    wait_for("the deleted cron's threads to go", async || {
        threads_of(&server, &deleted_id).await.is_empty()
    })
    .await;
    let (_, gone) = server
        .get_json(&format!("/api/runs/crons/{deleted_id}"))
        .await;
    assert_eq!(gone["last_run"]["status"], "success");
    assert_eq!(gone["next_run_date"], Value::Null);
}

#[tokio::test]
async fn run_now_starts_a_thread_crons_run_without_moving_its_next_date() {
    let model = mock_llm(SCRIPT).await;
    let env = Env::new();
    let server = start(&env, &model, &[]);
    server
        .post_json("/api/threads", json!({"thread_id": "daily"}))
        .await;
    let (_, c) = server
        .post_json("/api/threads/daily/runs/crons", cron("0 9 1 1 *", "hello"))
        .await;
    let id = c["cron_id"].as_str().unwrap();
    let (status, run) = server.post(&format!("/api/runs/crons/{id}/run")).await;
    assert_eq!(status, 200, "{run}");
    assert_eq!(run["thread_id"], "daily");
    assert_eq!(run["metadata"]["cron_id"], id);
    assert_eq!(run["multitask_strategy"], "enqueue");
    let run_id = run["run_id"].as_str().unwrap();
    server
        .wait_run("daily", run_id, |r| r["status"] == "success")
        .await;
    let (_, after) = server.get_json(&format!("/api/runs/crons/{id}")).await;
    assert_eq!(after["next_run_date"], c["next_run_date"]);
    assert_eq!(after["last_run"]["run_id"], run_id);
    assert_eq!(after["last_run"]["thread_id"], "daily");
    assert_eq!(after["last_run"]["status"], "success");
}

#[tokio::test]
async fn a_cron_whose_assistant_is_gone_is_disabled_with_the_reason() {
    let model = mock_llm(SCRIPT).await;
    let env = Env::new();
    let server = start(&env, &model, &[]);
    let (status, assistant) = server
        .post_json(
            "/api/assistants",
            json!({"graph_id": "agent", "name": "Helper"}),
        )
        .await;
    assert_eq!(status, 200, "{assistant}");
    let assistant_id = assistant["assistant_id"].as_str().unwrap();
    let mut body = cron("* * * * * *", "hi");
    body["assistant_id"] = json!(assistant_id);
    body["enabled"] = json!(false);
    let (_, c) = server.post_json("/api/runs/crons", body).await;
    let id = c["cron_id"].as_str().unwrap();
    server
        .delete(&format!("/api/assistants/{assistant_id}"))
        .await;
    server
        .patch_json(&format!("/api/runs/crons/{id}"), json!({"enabled": true}))
        .await;
    wait_for("the cron to be disabled", async || {
        let (_, c) = server.get_json(&format!("/api/runs/crons/{id}")).await;
        c["enabled"] == false
    })
    .await;
    let (_, c) = server.get_json(&format!("/api/runs/crons/{id}")).await;
    let reason = c["metadata"]["disabled_reason"].as_str().unwrap();
    assert!(reason.starts_with("assistant_not_found"), "{reason}");
    assert_eq!(c["next_run_date"], Value::Null);
    assert!(threads_of(&server, id).await.is_empty());
}

fn replica(env: &Env, model: &str, db: &str, name: &str) -> Server {
    start(
        env,
        model,
        &[
            ("ANTLER_DATABASE_URL", db),
            ("ANTLER_SANDBOX_INSTANCE_ID", name),
        ],
    )
}

#[tokio::test]
async fn two_replicas_run_every_tick_of_ten_seconds_once_though_one_is_killed() {
    let Some(db) = postgres_database().await else {
        return;
    };
    let env = Env::new();
    let model = mock_llm(SCRIPT).await;
    let a = replica(&env, &model, &db, "a");
    let b = replica(&env, &model, &db, "b");
    let mut body = cron("* * * * * *", "tick");
    body["on_run_completed"] = json!("keep");
    let (status, c) = b.post_json("/api/runs/crons", body).await;
    assert_eq!(status, 200, "{c}");
    let id = c["cron_id"].as_str().unwrap().to_string();
    // Ten ticks: the first due one and the nine after it.
    let first = time(&c["next_run_date"]);
    let end = first + chrono::TimeDelta::milliseconds(9500);
    let (status, patched) = b
        .patch_json(
            &format!("/api/runs/crons/{id}"),
            json!({"end_time": end.to_rfc3339()}),
        )
        .await;
    assert_eq!(status, 200, "{patched}");
    assert_eq!(time(&patched["next_run_date"]), first);
    // Mid-way, one replica dies without a word.
    wait_for("half the ticks", async || {
        threads_of(&b, &id).await.len() >= 5
    })
    .await;
    a.crash();
    // Runs, not threads, are counted: a tick's thread exists before its run (and before a
    // takeover starts the run of a tick the dead replica had claimed).
    wait_for("the cron to end", async || {
        let (_, c) = b.get_json(&format!("/api/runs/crons/{id}")).await;
        c["next_run_date"].is_null() && cron_runs(&b, &id).await.len() >= 10
    })
    .await;
    // A tick the dead replica claimed is taken over once its heartbeat is stale.
    let runs = cron_runs(&b, &id).await;
    let due: BTreeSet<String> = runs
        .iter()
        .map(|r| {
            r["metadata"]["cron_scheduled_for"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let expected: BTreeSet<String> = (0..10)
        .map(|s| {
            (first + chrono::TimeDelta::seconds(s))
                .format("%Y-%m-%dT%H:%M:%S%.6fZ")
                .to_string()
        })
        .collect();
    assert_eq!(runs.len(), 10, "{runs:?}");
    assert_eq!(due, expected);
}
