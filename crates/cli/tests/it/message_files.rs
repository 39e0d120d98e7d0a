//! Files inside a message (the Agent Chat UI's PDF blocks, OpenAI file parts): stored as the
//! thread's uploads and named in the message for the agent, or refused with the reason.

use base64::Engine as _;
use serde_json::{Value, json};

use crate::common::{Env, error_code, mock_llm, model_requests};

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn run(blocks: Value) -> Value {
    json!({"assistant_id": "agent", "if_not_exists": "create",
        "input": {"messages": [{"type": "human", "content": blocks}]}})
}

#[tokio::test]
async fn file_blocks_become_uploads_the_message_names() {
    let env = Env::new();
    let model =
        mock_llm("scenarios:\n  - match: \"\"\n    turns:\n      - content: \"read\"\n").await;
    let server = env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")]);
    let pdf = b"%PDF-1.4\nhello\n";
    let (status, values) = server
        .post_json(
            "/api/threads/f/runs/wait",
            run(json!([
                {"type": "text", "text": "summarize these"},
                {"type": "file", "mimeType": "application/pdf", "data": b64(pdf),
                    "metadata": {"filename": "report.pdf"}},
                {"type": "file", "file": {"filename": "report.pdf",
                    "file_data": format!("data:application/pdf;base64,{}", b64(b"second"))}},
            ])),
        )
        .await;
    assert_eq!(status, 200, "{values}");
    let (_, uploads) = server.get_json("/api/threads/f/uploads").await;
    let names: Vec<&str> = uploads["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["filename"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{uploads}");
    assert!(names.contains(&"report.pdf"), "{names:?}");
    let stored = server
        .get("/api/threads/f/artifacts/mnt/user-data/uploads/report.pdf")
        .await;
    assert_eq!(stored.bytes().await.unwrap().as_ref(), pdf);
    let text = values["messages"][0]["content"].to_string();
    assert!(text.contains("<uploaded_files>"), "{text}");
    assert!(text.contains("/mnt/user-data/uploads/report.pdf"), "{text}");
    assert!(!text.contains("\"file\""), "no file block is kept: {text}");
    let requests = model_requests(&model).await;
    assert!(
        requests[0]["messages"][1]["content"]
            .to_string()
            .contains("/mnt/user-data/uploads/report.pdf"),
        "the model is told where the file is"
    );
}

#[tokio::test]
async fn unreadable_file_blocks_are_refused_and_nothing_is_stored() {
    let env = Env::new();
    let model = mock_llm("scenarios:\n  - match: \"\"\n    turns:\n      - content: \"x\"\n").await;
    let server = env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")]);
    server.create_thread("g").await;
    for (block, why) in [
        (
            json!({"type": "file", "mimeType": "application/pdf", "data": "not base64!"}),
            "not base64",
        ),
        (
            json!({"type": "file", "url": "https://example.com/a.pdf"}),
            "a URL",
        ),
        (
            json!({"type": "file", "file": {"file_data": "plain text"}}),
            "not a data URL",
        ),
        (
            json!({"type": "file", "data": b64(b"x"), "metadata": {"filename": "///"}}),
            "no usable name",
        ),
    ] {
        let mut body = run(json!([{"type": "text", "text": "hi"}, block]));
        body["if_not_exists"] = json!("reject");
        let (status, answer) = server.post_json("/api/threads/g/runs/wait", body).await;
        assert_eq!(
            (status, error_code(&answer)),
            (422, "invalid_body"),
            "{why}: {answer}"
        );
    }
    let (_, uploads) = server.get_json("/api/threads/g/uploads").await;
    assert_eq!(uploads["files"], json!([]));
    let (status, _) = server
        .post_json("/api/threads/missing/runs/wait", {
            let mut b = run(json!([{"type": "file", "data": b64(b"x")}]));
            b["if_not_exists"] = json!("reject");
            b
        })
        .await;
    assert_eq!(status, 404);
}
