//! Feedback on answers over HTTP: thumbs up or down with a comment on a run of one's own
//! thread (given again, replaced; taken back with DELETE), listed for the thread, refused on
//! other people's threads and runs of other threads (404) and for bad input (422, in the
//! error envelope); shown and filtered in the admin runs console; exported by admins as
//! JSON Lines; gone with the thread.

use serde_json::{Value, json};

use crate::auth::{send, user};
use crate::common::{Env, Server, client_with, error_code, mock_llm, postgres_database};

const SCRIPT: &str = r#"scenarios:
  - match: ""
    turns:
      - content: "An answer."
"#;

/// A run id no run has.
const NO_RUN: &str = "00000000-0000-4000-8000-000000000000";

async fn start_with(env: &Env, extra: &[(&str, &str)]) -> Server {
    let model = mock_llm(SCRIPT).await;
    let models = format!("- {{name: quick, base_url: \"{model}\", model: mock}}\n");
    let mut vars = vec![
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_MODELS", models.as_str()),
        ("ANTLER_AGENT_GENERATE_TITLES", "false"),
    ];
    vars.extend_from_slice(extra);
    env.start_with(&vars)
}

/// Runs a message on `thread` (created when missing) with `client`, to its end: the run id.
async fn answered(server: &Server, client: &reqwest::Client, thread: &str) -> String {
    let r = client
        .post(server.url(&format!("/api/threads/{thread}/runs/wait")))
        .json(
            &json!({"assistant_id": "lead_agent", "if_not_exists": "create",
                      "input": {"messages": [{"role": "user", "content": "Hello"}]}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let location = r.headers()["content-location"]
        .to_str()
        .unwrap()
        .to_string();
    location.rsplit('/').next().unwrap().to_string()
}

fn path(thread: &str, run: &str) -> String {
    format!("/api/threads/{thread}/runs/{run}/feedback")
}

#[tokio::test]
async fn feedback_is_stored_replaced_listed_and_taken_back() {
    stored_replaced_listed_and_taken_back(&[]).await;
}

#[tokio::test]
async fn feedback_is_stored_replaced_listed_and_taken_back_on_postgresql() {
    let Some(url) = postgres_database().await else {
        return;
    };
    stored_replaced_listed_and_taken_back(&[("ANTLER_DATABASE_URL", url.as_str())]).await;
}

async fn stored_replaced_listed_and_taken_back(extra: &[(&str, &str)]) {
    let env = Env::new();
    let server = start_with(&env, extra).await;
    let first = answered(&server, &server.http, "fb").await;
    let second = answered(&server, &server.http, "fb").await;

    let (status, body) = server
        .put_json(&path("fb", &first), json!({"rating": "up"}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["rating"], "up");
    assert_eq!(body["comment"], Value::Null);
    assert_eq!(
        (body["run_id"].as_str(), body["thread_id"].as_str()),
        (Some(first.as_str()), Some("fb"))
    );
    let created = body["created_at"].clone();

    // Given again: replaced, the comment trimmed, the first time kept. The run id may be
    // sent in capitals.
    let (status, body) = server
        .put_json(
            &path("fb", &first.to_uppercase()),
            json!({"rating": "down", "comment": "  The year is wrong.\n"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["rating"], "down");
    assert_eq!(body["comment"], "The year is wrong.");
    assert_eq!(body["created_at"], created);
    assert_eq!(body["run_id"], first.as_str());

    let (status, body) = server
        .put_json(
            &path("fb", &second),
            json!({"rating": "up", "comment": "   "}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["comment"], Value::Null, "a blank comment is none");

    let (status, list) = server.get_json("/api/threads/fb/feedback").await;
    assert_eq!(status, 200, "{list}");
    let got: Vec<(&str, &str)> = list["feedback"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["run_id"].as_str().unwrap(), f["rating"].as_str().unwrap()))
        .collect();
    assert_eq!(got, [(first.as_str(), "down"), (second.as_str(), "up")]);

    let (status, _) = server.delete(&path("fb", &second)).await;
    assert_eq!(status, 204);
    // Taking back what is not there answers alike.
    let (status, _) = server.delete(&path("fb", &second)).await;
    assert_eq!(status, 204);
    let (_, list) = server.get_json("/api/threads/fb/feedback").await;
    assert_eq!(list["feedback"].as_array().unwrap().len(), 1, "{list}");

    // Deleting the thread deletes its feedback.
    let (status, body) = server.delete("/api/threads/fb").await;
    assert_eq!(status, 204, "{body}");
    let r = server.get("/api/admin/feedback/export").await;
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.text().await.unwrap(), "", "nothing left to export");
}

#[tokio::test]
async fn feedback_is_refused_on_other_peoples_threads_other_threads_runs_and_bad_input() {
    let env = Env::new();
    let server = start_with(&env, &[]).await;
    let run = answered(&server, &server.http, "mine").await;
    let other = answered(&server, &server.http, "other").await;
    let bob = client_with(Some(&user(&server, "bob@antler.test").await));

    // Bob cannot see, rate or take back ratings on the admin's thread: as if it did not exist.
    let (status, body) = send(bob.get(server.url("/api/threads/mine/feedback"))).await;
    assert_eq!((status, error_code(&body)), (404, "not_found"), "{body}");
    let (status, body) = send(
        bob.put(server.url(&path("mine", &run)))
            .json(&json!({"rating": "up"})),
    )
    .await;
    assert_eq!((status, error_code(&body)), (404, "not_found"), "{body}");
    let (status, body) = send(bob.delete(server.url(&path("mine", &run)))).await;
    assert_eq!((status, error_code(&body)), (404, "not_found"), "{body}");

    // A run of another thread, or no run at all.
    for run in [other.as_str(), NO_RUN] {
        let (status, body) = server
            .put_json(&path("mine", run), json!({"rating": "up"}))
            .await;
        assert_eq!(
            (status, error_code(&body)),
            (404, "not_found"),
            "{run}: {body}"
        );
    }
    let (_, list) = server.get_json("/api/threads/mine/feedback").await;
    assert_eq!(list["feedback"], json!([]));

    let long = "x".repeat(2001);
    for (body, code) in [
        (json!({"rating": "sideways"}), "invalid_body"),
        (json!({"comment": "no rating"}), "invalid_body"),
        (json!({"rating": "up", "stars": 5}), "invalid_body"),
        (json!({"rating": "up", "comment": long}), "invalid_feedback"),
        (
            json!({"rating": "up", "comment": "a\u{0}b"}),
            "invalid_feedback",
        ),
    ] {
        let (status, answer) = server.put_json(&path("mine", &run), body.clone()).await;
        assert_eq!(
            (status, error_code(&answer)),
            (422, code),
            "{body}: {answer}"
        );
    }
    // 2,000 characters, as sent, is the limit.
    let (status, body) = server
        .put_json(
            &path("mine", &run),
            json!({"rating": "up", "comment": "字".repeat(2000)}),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    let (status, body) = server
        .put_json(&path("mine", "not-a-run"), json!({"rating": "up"}))
        .await;
    assert_eq!(
        (status, error_code(&body)),
        (422, "invalid_run_id"),
        "{body}"
    );
    let (status, body) = server
        .put_json(&path("bad.id", &run), json!({"rating": "up"}))
        .await;
    assert_eq!(
        (status, error_code(&body)),
        (422, "invalid_thread_id"),
        "{body}"
    );
}

#[tokio::test]
async fn the_console_shows_who_rated_a_run_and_filters_by_rating() {
    let env = Env::new();
    let server = start_with(&env, &[]).await;
    let bob_token = user(&server, "bob@antler.test").await;
    let bob = client_with(Some(&bob_token));
    let rated = answered(&server, &bob, "bob-thread").await;
    let liked = answered(&server, &server.http, "admin-thread").await;
    let plain = answered(&server, &server.http, "admin-plain").await;
    let (status, body) = send(
        bob.put(server.url(&path("bob-thread", &rated)))
            .json(&json!({"rating": "down", "comment": "Too long"})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = server
        .put_json(&path("admin-thread", &liked), json!({"rating": "up"}))
        .await;
    assert_eq!(status, 200, "{body}");

    let ids = async |query: &str| {
        let (status, page) = server.get_json(&format!("/api/admin/runs?{query}")).await;
        assert_eq!(status, 200, "{query}: {page}");
        let mut ids: Vec<String> = page["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["run_id"].as_str().unwrap().to_string())
            .collect();
        ids.sort();
        ids
    };
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    assert_eq!(ids("feedback=down").await, [rated.as_str()]);
    assert_eq!(ids("feedback=up").await, [liked.as_str()]);
    assert_eq!(
        ids("feedback=any").await,
        sorted(vec![rated.clone(), liked.clone()])
    );
    assert_eq!(ids("feedback=").await.len(), 3);
    let (status, body) = server.get_json("/api/admin/runs?feedback=meh").await;
    assert_eq!(
        (status, error_code(&body)),
        (422, "invalid_query"),
        "{body}"
    );

    let (status, detail) = server.get_json(&format!("/api/admin/runs/{rated}")).await;
    assert_eq!(status, 200, "{detail}");
    let feedback = &detail["run"]["feedback"];
    assert_eq!(feedback.as_array().unwrap().len(), 1, "{detail}");
    assert_eq!(feedback[0]["rating"], "down");
    assert_eq!(feedback[0]["comment"], "Too long");
    assert_eq!(feedback[0]["user_email"], "bob@antler.test");
    let (_, detail) = server.get_json(&format!("/api/admin/runs/{plain}")).await;
    assert_eq!(detail["run"]["feedback"], json!([]), "{detail}");

    // Bob is no admin: no console, no export.
    for path in ["/api/admin/runs?feedback=any", "/api/admin/feedback/export"] {
        let (status, body) = send(bob.get(server.url(path))).await;
        assert_eq!(
            (status, error_code(&body)),
            (403, "admin_required"),
            "{path}: {body}"
        );
    }
}

#[tokio::test]
async fn admins_export_everyones_feedback_as_json_lines_within_bounds() {
    let env = Env::new();
    let server = start_with(&env, &[]).await;
    let bob = client_with(Some(&user(&server, "bob@antler.test").await));
    let bobs = answered(&server, &bob, "b").await;
    let mine = answered(&server, &server.http, "a").await;
    let (status, _) = send(
        bob.put(server.url(&path("b", &bobs)))
            .json(&json!({"rating": "up", "comment": "Thanks"})),
    )
    .await;
    assert_eq!(status, 200);
    let (status, _) = server
        .put_json(&path("a", &mine), json!({"rating": "down"}))
        .await;
    assert_eq!(status, 200);

    let r = server.get("/api/admin/feedback/export").await;
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.headers()["content-type"], "application/x-ndjson");
    let disposition = r.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(disposition.starts_with("attachment;"), "{disposition}");
    assert!(disposition.contains(".jsonl"), "{disposition}");
    let text = r.text().await.unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(text.ends_with('\n'));
    let (first, second) = (&lines[0], &lines[1]);
    assert_eq!(first["run_id"], bobs.as_str(), "oldest change first");
    assert_eq!(first["thread_id"], "b");
    assert_eq!(first["user_email"], "bob@antler.test");
    assert_eq!(first["rating"], "up");
    assert_eq!(first["comment"], "Thanks");
    assert_eq!(first["model"], "quick");
    assert!(first["user_id"].as_str().is_some_and(|id| !id.is_empty()));
    for field in ["created_at", "updated_at", "assistant_id"] {
        assert!(first[field].is_string(), "{field}: {first}");
    }
    assert_eq!(second["run_id"], mine.as_str());
    assert_eq!(second["comment"], Value::Null);

    // Bounds: `since` from the second's change on; `until` a day long past.
    let since = second["updated_at"].as_str().unwrap();
    let r = server
        .http
        .get(server.url("/api/admin/feedback/export"))
        .query(&[("since", since)])
        .send()
        .await
        .unwrap();
    let text = r.text().await.unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains(&mine), "{text}");
    let r = server
        .get("/api/admin/feedback/export?until=2000-01-01")
        .await;
    assert_eq!(r.text().await.unwrap(), "");
    let (status, body) = server
        .get_json("/api/admin/feedback/export?since=yesterday")
        .await;
    assert_eq!(
        (status, error_code(&body)),
        (422, "invalid_query"),
        "{body}"
    );
    let (status, body) = server
        .get_json("/api/admin/feedback/export?format=csv")
        .await;
    assert_eq!(
        (status, error_code(&body)),
        (400, "invalid_query"),
        "{body}"
    );
}
