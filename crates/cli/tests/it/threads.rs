//! `/api/threads`.

use serde_json::json;

use crate::common::{Env, error_code};

#[tokio::test]
async fn threads_are_created_idempotently_without_folders_until_a_file_arrives() {
    let env = Env::new();
    let server = env.start();
    let (status, t) = server
        .post_json(
            "/api/threads",
            json!({"thread_id": "t-1", "metadata": {"title": "Hello"}}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(t["thread_id"], "t-1");
    assert_eq!(t["status"], "idle");
    assert_eq!(t["values"], json!({"messages": [], "artifacts": []}));
    assert_eq!(t["metadata"]["title"], "Hello");
    // Its folders come with its first file: a thread without files costs no inodes, and
    // reading its (empty) listings makes none either.
    assert!(!env.user_data("t-1").exists());
    for path in ["/api/threads/t-1/artifacts", "/api/threads/t-1/uploads"] {
        let (status, body) = server.get_json(path).await;
        assert_eq!(status, 200, "{path}: {body}");
    }
    assert!(!env.user_data("t-1").exists());
    let (status, again) = server
        .post_json(
            "/api/threads",
            json!({"thread_id": "t-1", "metadata": {"title": "Other"}}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(again, t, "creating an existing id returns it unchanged");
    let (status, body) = server
        .post_json(
            "/api/threads",
            json!({"thread_id": "t-1", "if_exists": "raise"}),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    let (status, generated) = server.post_json("/api/threads", json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(generated["thread_id"].as_str().unwrap().len(), 36);
}

#[tokio::test]
async fn invalid_thread_ids_are_422_everywhere() {
    let env = Env::new();
    let server = env.start();
    for bad in ["has space", "slash/y", "dot.dot", &"x".repeat(65), ""] {
        let (status, body) = server
            .post_json("/api/threads", json!({"thread_id": bad}))
            .await;
        assert_eq!(status, 422, "{bad:?}: {body}");
        assert_eq!(error_code(&body), "invalid_thread_id");
    }
    for path in [
        "/api/threads/bad.id",
        "/api/threads/bad%20id/uploads",
        "/api/threads/a.b/artifacts",
    ] {
        let (status, body) = server.get_json(path).await;
        assert_eq!(status, 422, "{path}: {body}");
    }
}

#[tokio::test]
async fn metadata_is_merged_and_threads_are_searched_newest_first() {
    let env = Env::new();
    let server = env.start();
    for (id, kind) in [("a", "x"), ("b", "y"), ("c", "x")] {
        server
            .post_json(
                "/api/threads",
                json!({"thread_id": id, "metadata": {"kind": kind, "keep": 1}}),
            )
            .await;
    }
    let r = server
        .http
        .patch(server.url("/api/threads/a"))
        .json(&json!({"metadata": {"title": "Renamed", "keep": null}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let t: serde_json::Value = r.json().await.unwrap();
    assert_eq!(t["metadata"], json!({"kind": "x", "title": "Renamed"}));
    let (_, got) = server.get_json("/api/threads/a").await;
    assert_eq!(got["metadata"]["title"], "Renamed");

    let ids = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|t| t["thread_id"].as_str().unwrap().to_string())
            .collect()
    };
    let (status, all) = server
        .post_json("/api/threads/search", json!({"limit": 10, "offset": 0}))
        .await;
    assert_eq!(status, 200);
    assert_eq!(ids(&all), ["c", "b", "a"]);
    let (_, xs) = server
        .post_json("/api/threads/search", json!({"metadata": {"kind": "x"}}))
        .await;
    assert_eq!(ids(&xs), ["c", "a"]);
    let (_, page) = server
        .post_json("/api/threads/search", json!({"limit": 1, "offset": 1}))
        .await;
    assert_eq!(ids(&page), ["b"]);
    let (status, body) = server
        .post_json("/api/threads/search", json!({"limit": 0}))
        .await;
    assert_eq!(status, 422, "{body}");
    let (status, _) = server
        .post_json("/api/threads/search", json!({"sort_by": "colour"}))
        .await;
    assert_eq!(status, 422);
    // Any key is a key (the API fuzzer's 500: a NUL cut the JSON path it was spliced into).
    for key in ["\u{0}kind", "a\"b", "$.kind"] {
        let (status, body) = server
            .post_json("/api/threads/search", json!({"metadata": {key: "x"}}))
            .await;
        assert_eq!((status, ids(&body).len()), (200, 0), "{key:?}: {body}");
    }
}

#[tokio::test]
async fn deleting_a_thread_removes_its_files() {
    let env = Env::new();
    let server = env.start();
    server.create_thread("gone").await;
    std::fs::write(env.files_of("gone").join("outputs/a.txt"), "x").unwrap();
    let (status, _) = server.delete("/api/threads/gone").await;
    assert_eq!(status, 204);
    assert_eq!(env.thread_dir("gone"), None);
    let (status, body) = server.get_json("/api/threads/gone").await;
    assert_eq!(status, 404);
    assert_eq!(error_code(&body), "not_found");
    let (status, _) = server.delete("/api/threads/gone").await;
    assert_eq!(status, 404);
}
