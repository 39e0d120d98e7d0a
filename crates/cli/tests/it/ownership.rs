//! Ids of another person's threads and assistants: taken like any taken id, never a 500,
//! and nothing in the answer says whose they are.

use serde_json::{Value, json};

use crate::auth::{send, user};
use crate::common::{Env, client_with, error_code, mock_llm};

/// What an answer must not reveal about the owner.
fn reveals_owner(body: &Value) -> bool {
    let text = body.to_string().to_lowercase();
    text.contains("owner") || text.contains("belongs") || text.contains("@antler.test")
}

#[tokio::test]
async fn another_persons_thread_id_is_taken_like_any_other_and_never_a_500() {
    let model =
        mock_llm("scenarios:\n  - match: \"\"\n    turns:\n      - content: \"ok\"\n").await;
    let env = Env::new();
    let server = env.start_agent(&model, &[]);
    // The admin owns the thread; Bob tries its id.
    assert_eq!(
        server
            .post_json("/api/threads", json!({"thread_id": "mine"}))
            .await
            .0,
        200
    );
    let bob = client_with(Some(&user(&server, "bob@antler.test").await));
    let taken = |body: &Value| error_code(body) == "conflict" && !reveals_owner(body);
    let run = json!({"assistant_id": "lead_agent", "if_not_exists": "create",
        "input": {"messages": [{"role": "user", "content": "hi"}]}});
    for path in ["runs", "runs/wait", "runs/stream"] {
        let (status, body) = send(
            bob.post(server.url(&format!("/api/threads/mine/{path}")))
                .json(&run),
        )
        .await;
        assert_eq!(status, 409, "{path}: {body}");
        assert!(taken(&body), "{path}: {body}");
    }
    // The answer matches a taken id of Bob's own that he asked not to reuse.
    let (status, own) = send(
        bob.post(server.url("/api/threads"))
            .json(&json!({"thread_id": "bobs"})),
    )
    .await;
    assert_eq!(status, 200, "{own}");
    let (_, own_taken) = send(
        bob.post(server.url("/api/threads"))
            .json(&json!({"thread_id": "bobs", "if_exists": "raise"})),
    )
    .await;
    for if_exists in ["raise", "do_nothing"] {
        let (status, body) = send(
            bob.post(server.url("/api/threads"))
                .json(&json!({"thread_id": "mine", "if_exists": if_exists})),
        )
        .await;
        assert_eq!(status, 409, "{if_exists}: {body}");
        assert!(taken(&body), "{if_exists}: {body}");
        assert_eq!(
            body["error"]["message"]
                .as_str()
                .map(|m| m.replace("mine", "bobs")),
            own_taken["error"]["message"].as_str().map(str::to_string),
            "the same words as for one's own taken id"
        );
    }
    // Without `if_not_exists` the thread simply is not Bob's.
    let (status, body) = send(
        bob.post(server.url("/api/threads/mine/runs"))
            .json(&json!({"assistant_id": "lead_agent", "input": null})),
    )
    .await;
    assert_eq!((status, error_code(&body)), (404, "not_found"), "{body}");
    // The admin's thread is untouched.
    let (status, thread) = server.get_json("/api/threads/mine").await;
    assert_eq!(status, 200);
    assert_eq!(thread["values"]["messages"], json!([]));
}

#[tokio::test]
async fn another_persons_assistant_id_is_taken_without_naming_its_owner() {
    let env = Env::new();
    let server = env.start();
    let (status, created) = server
        .post_json(
            "/api/assistants",
            json!({"graph_id": "agent", "name": "Mine"}),
        )
        .await;
    assert_eq!(status, 200, "{created}");
    let id = created["assistant_id"].as_str().unwrap().to_string();
    let bob = client_with(Some(&user(&server, "bob@antler.test").await));
    for if_exists in ["raise", "do_nothing"] {
        let (status, body) = send(bob.post(server.url("/api/assistants")).json(&json!({
            "graph_id": "agent", "assistant_id": id, "if_exists": if_exists
        })))
        .await;
        assert_eq!(status, 409, "{if_exists}: {body}");
        assert!(!reveals_owner(&body), "{body}");
    }
    let (status, _) = send(bob.get(server.url(&format!("/api/assistants/{id}")))).await;
    assert_eq!(status, 404);
}
