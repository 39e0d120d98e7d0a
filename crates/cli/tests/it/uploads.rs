//! `/api/threads/{id}/uploads`.

use reqwest::multipart::{Form, Part};
use serde_json::Value;

use crate::common::{Env, Server, error_code};

pub(crate) fn form(files: &[(&str, Vec<u8>)]) -> Form {
    files.iter().fold(Form::new(), |f, (name, bytes)| {
        f.part(
            "files",
            Part::bytes(bytes.clone()).file_name(name.to_string()),
        )
    })
}

pub(crate) async fn upload(server: &Server, thread: &str, form: Form) -> (u16, Value) {
    let r = server
        .http
        .post(server.url(&format!("/api/threads/{thread}/uploads")))
        .multipart(form)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

fn listing(env: &Env, thread: &str) -> Vec<String> {
    // A thread that never got a file has no folder yet.
    let Ok(dir) = std::fs::read_dir(env.user_data(thread).join("uploads")) else {
        return Vec::new();
    };
    let mut names: Vec<String> = dir
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn several_files_upload_at_once_with_safe_deduplicated_names() {
    let env = Env::new();
    let server = env.start();
    server.create_thread("t").await;
    let (status, body) = upload(
        &server,
        "t",
        form(&[
            ("report.csv", b"a,b\n1,2\n".to_vec()),
            ("report.csv", b"second".to_vec()),
            ("../../etc/passwd", b"not really".to_vec()),
            ("C:\\temp\\notes.txt", b"n".to_vec()),
        ]),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let files = body["files"].as_array().unwrap();
    let names: Vec<&str> = files
        .iter()
        .map(|f| f["filename"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["report.csv", "report_1.csv", "passwd", "notes.txt"]);
    assert_eq!(files[0]["size"], 8);
    assert_eq!(
        files[0]["virtual_path"],
        "/mnt/user-data/uploads/report.csv"
    );
    assert_eq!(
        files[0]["artifact_url"],
        "/api/threads/t/artifacts/mnt/user-data/uploads/report.csv"
    );
    assert_eq!(
        listing(&env, "t"),
        ["notes.txt", "passwd", "report.csv", "report_1.csv"]
    );
    assert_eq!(
        std::fs::read(env.user_data("t").join("uploads/report_1.csv")).unwrap(),
        b"second"
    );
    // The artifact URL serves the file.
    let r = server.get(files[0]["artifact_url"].as_str().unwrap()).await;
    assert_eq!(r.text().await.unwrap(), "a,b\n1,2\n");

    let (status, list) = server.get_json("/api/threads/t/uploads").await;
    assert_eq!(status, 200);
    assert_eq!(list["files"].as_array().unwrap().len(), 4);
    let (status, limits) = server.get_json("/api/threads/t/uploads/limits").await;
    assert_eq!(status, 200);
    assert_eq!(limits["max_files"], 10);
    assert_eq!(limits["max_file_bytes"], 50 * 1024 * 1024);
    assert_eq!(limits["max_request_bytes"], 100 * 1024 * 1024);
}

#[tokio::test]
async fn limits_refuse_the_whole_request_naming_file_and_limit_and_leave_nothing() {
    let env = Env::new();
    let server = env.start_with(&[
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_UPLOADS_MAX_FILES", "2"),
        ("ANTLER_UPLOADS_MAX_FILE_BYTES", "1000"),
        ("ANTLER_UPLOADS_MAX_REQUEST_BYTES", "1500"),
    ]);
    server.create_thread("t").await;
    let (status, body) = upload(
        &server,
        "t",
        form(&[
            ("a.txt", vec![b'a'; 10]),
            ("b.txt", vec![b'b'; 10]),
            ("c.txt", vec![b'c'; 10]),
        ]),
    )
    .await;
    assert_eq!(status, 413, "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("c.txt"));
    assert_eq!(body["error"]["details"]["limit"], 2);

    let (status, body) = upload(
        &server,
        "t",
        form(&[("ok.txt", vec![1; 10]), ("big.bin", vec![0; 1001])]),
    )
    .await;
    assert_eq!(status, 413);
    assert_eq!(body["error"]["details"]["file"], "big.bin");
    assert_eq!(body["error"]["details"]["limit"], 1000);

    let (status, body) = upload(
        &server,
        "t",
        form(&[("x.bin", vec![0; 900]), ("y.bin", vec![0; 900])]),
    )
    .await;
    assert_eq!(status, 413);
    assert_eq!(body["error"]["details"]["limit"], 1500);
    assert_eq!(error_code(&body), "payload_too_large");

    assert!(
        listing(&env, "t").is_empty(),
        "refused uploads leave nothing: {:?}",
        listing(&env, "t")
    );
}

#[tokio::test]
async fn an_existing_symlink_at_the_destination_is_replaced_not_followed() {
    let env = Env::new();
    let server = env.start();
    server.create_thread("t").await;
    let victim = env.root.path().join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    std::os::unix::fs::symlink(&victim, env.files_of("t").join("uploads/evil.txt")).unwrap();
    let (status, _) = upload(
        &server,
        "t",
        form(&[("evil.txt", b"overwritten?".to_vec())]),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let stored = env.user_data("t").join("uploads/evil.txt");
    assert!(!stored.symlink_metadata().unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(stored).unwrap(), "overwritten?");
}

#[tokio::test]
async fn bad_requests_get_clear_errors() {
    let env = Env::new();
    let server = env.start();
    let (status, _) = upload(&server, "missing", form(&[("a", vec![1])])).await;
    assert_eq!(status, 404);
    server.create_thread("t").await;
    let (status, body) = upload(&server, "t", Form::new().text("other", "x")).await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = upload(&server, "t", Form::new().text("files", "not a file")).await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = upload(&server, "t", form(&[("..", vec![1])])).await;
    assert_eq!(status, 400, "{body}");
    let r = server
        .http
        .post(server.url("/api/threads/t/uploads"))
        .json(&serde_json::json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 415);
}

#[tokio::test]
async fn uploads_are_deleted_by_name() {
    let env = Env::new();
    let server = env.start();
    server.create_thread("t").await;
    upload(&server, "t", form(&[("a.txt", vec![1])])).await;
    let (status, _) = server.delete("/api/threads/t/uploads/a.txt").await;
    assert_eq!(status, 204);
    assert!(listing(&env, "t").is_empty());
    let (status, _) = server.delete("/api/threads/t/uploads/a.txt").await;
    assert_eq!(status, 404);
    let (status, body) = server.delete("/api/threads/t/uploads/..%2Fx").await;
    assert_eq!(status, 400, "{body}");
}
