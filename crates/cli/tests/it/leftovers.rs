//! What a server killed mid-work leaves behind is cleared when it starts again: uploads and
//! archives that were arriving, install staging, and host commands still running; a live
//! replica's work in progress is left alone.

use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::common::{Env, Server, Sleeper, mock_llm, run_body, wait_for};

/// Starts a multipart upload that sends `head` and then stalls until the sender drops.
async fn stalled_upload(
    server: &Server,
    path: &str,
    field: &str,
) -> tokio::sync::mpsc::Sender<Vec<u8>> {
    let (tx, rx) = tokio::sync::mpsc::channel::<Vec<u8>>(4);
    let boundary = "leftover-boundary";
    let head = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"big.bin\"\r\n\
         Content-Type: application/octet-stream\r\n\r\n"
    );
    tx.send(head.into_bytes()).await.unwrap();
    tx.send(vec![b'x'; 256 * 1024]).await.unwrap();
    let body = reqwest::Body::wrap_stream(futures::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|chunk| (Ok::<_, std::io::Error>(chunk), rx))
    }));
    let request = server
        .http
        .post(server.url(path))
        .header(
            "content-type",
            format!("multipart/form-data; boundary={boundary}"),
        )
        .body(body)
        .timeout(Duration::from_secs(300));
    tokio::spawn(request.send());
    tx
}

fn names(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|r| {
            r.map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect()
        })
        .unwrap_or_default()
}

fn start(env: &Env, instance: &str, model: &str) -> Server {
    env.start_agent(model, &[("ANTLER_SANDBOX_INSTANCE_ID", instance)])
}

#[tokio::test]
async fn a_restart_clears_what_a_crash_left_and_keeps_a_live_replicas_work() {
    let env = Env::new();
    let sleeper = Sleeper::new(41);
    let script = format!(
        "scenarios:\n  - match: \"hello\"\n    turns: [{{content: hi}}]\n  - match: \"\"\n    turns:\n      - tool_calls: [{{name: bash, arguments: {{command: \"{}\"}}}}]\n      - content: done\n",
        sleeper.command
    );
    let model = mock_llm(&script).await;
    let a = start(&env, "crash-a", &model);
    let b = start(&env, "crash-b", &model);
    a.create_thread("t").await;
    let tmp = env.data_dir().join("tmp");
    // Work in flight on both: an upload and a skill archive on A, an upload on B.
    let _a_upload = stalled_upload(&a, "/api/threads/t/uploads", "files").await;
    let _a_archive = stalled_upload(&a, "/api/skills/upload", "file").await;
    let _b_upload = stalled_upload(&b, "/api/threads/t/uploads", "files").await;
    wait_for("A's uploads to arrive", async || {
        names(&tmp.join("crash-a")).len() == 2
    })
    .await;
    wait_for("B's upload to arrive", async || {
        names(&tmp.join("crash-b")).len() == 1
    })
    .await;
    // A host command A runs, and an install A was extracting when it died.
    let (status, _) = a
        .post_json(
            "/api/threads/t/runs",
            serde_json::json!({"assistant_id": "lead_agent", "input": {"messages": [{"role": "user", "content": "go"}]}, "on_disconnect": "continue"}),
        )
        .await;
    assert_eq!(status, 200);
    wait_for("the command to start", async || sleeper.running()).await;
    let custom = env.skills_dir().join("custom");
    std::fs::create_dir_all(custom.join(".staging-crash-a-k3j9x2/skill")).unwrap();
    std::fs::write(
        custom.join(".staging-crash-a-k3j9x2/skill/SKILL.md"),
        "half",
    )
    .unwrap();
    // What an older version left in the thread itself, long ago.
    let uploads = env.user_data("t").join("uploads");
    let old = uploads.join(".upload-Ab3dE9");
    std::fs::write(&old, b"partial").unwrap();
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(hour_ago)
        .unwrap();

    a.crash();
    assert_eq!(names(&tmp.join("crash-a")).len(), 2, "the crash left them");
    assert!(sleeper.running(), "and the command");
    let a = start(&env, "crash-a", &model);
    assert!(
        names(&tmp.join("crash-a")).is_empty(),
        "A's arrivals are gone"
    );
    assert!(
        !custom.join(".staging-crash-a-k3j9x2").exists(),
        "A's staging is gone"
    );
    assert!(!old.exists(), "the old partial upload is gone");
    assert_eq!(
        names(&tmp.join("crash-b")).len(),
        1,
        "B is alive: its upload stays"
    );
    wait_for("the orphaned command to be killed", async || {
        !sleeper.running()
    })
    .await;
    // The uploads folder the agent sees never held a partial file of this version.
    assert!(names(&uploads).is_empty(), "{:?}", names(&uploads));
    // And the thread goes on.
    let (status, _) = a
        .post_json("/api/threads/t/runs/wait", run_body("hello", &["values"]))
        .await;
    assert_eq!(status, 200);
    drop(b);
}
