//! Exporting a conversation over HTTP: Markdown with roles, folded tool calls and reasoning
//! and artifact links; JSON with the thread, its state and its history; an attachment named
//! after the title; 404 for someone else's thread, 422 for an unknown format.

use serde_json::Value;

use crate::auth::user;
use crate::common::{Env, Server, client_with, error_code, mock_llm};

const SCRIPT: &str = r##"scenarios:
  - match: "report"
    turns:
      - reasoning: "The person wants a file."
        tool_calls: [{name: write_file, arguments: {path: /mnt/user-data/outputs/weekly report.md, content: "# Weekly"}}]
      - tool_calls: [{name: present_files, arguments: {filepaths: ["/mnt/user-data/outputs/weekly report.md"]}}]
      - content: "Here is **your report**."
  - match: ""
    turns:
      - content: "ok"
"##;

async fn start(env: &Env) -> Server {
    let model = mock_llm(SCRIPT).await;
    env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")])
}

async fn export(server: &Server, query: &str) -> reqwest::Response {
    server.get(&format!("/api/threads/t/export{query}")).await
}

fn header<'a>(r: &'a reqwest::Response, name: &str) -> &'a str {
    r.headers()[name].to_str().unwrap()
}

#[tokio::test]
async fn export_answers_markdown_and_json_files_of_the_conversation() {
    let env = Env::new();
    let server = start(&env).await;
    server
        .run_wait("t", "lead_agent", "Write the weekly report")
        .await;
    let (status, _) = server
        .patch_json(
            "/api/threads/t",
            serde_json::json!({"metadata": {"title": "Weekly: report/notes"}}),
        )
        .await;
    assert_eq!(status, 200);

    for query in ["", "?format=markdown"] {
        let r = export(&server, query).await;
        assert_eq!(r.status().as_u16(), 200);
        assert_eq!(header(&r, "content-type"), "text/markdown; charset=utf-8");
        assert!(
            header(&r, "content-disposition")
                .starts_with("attachment; filename=\"Weekly-report-notes.md\""),
            "{}",
            header(&r, "content-disposition")
        );
        let md = r.text().await.unwrap();
        assert!(md.starts_with("# Weekly: report/notes\n"), "{md}");
        assert!(md.contains("## User\n\nWrite the weekly report"), "{md}");
        assert!(
            md.contains("<summary>Reasoning</summary>\n\nThe person wants a file."),
            "{md}"
        );
        assert!(
            md.contains("<summary>Tool call: write_file</summary>"),
            "{md}"
        );
        assert!(
            md.contains("\"path\": \"/mnt/user-data/outputs/weekly report.md\""),
            "{md}"
        );
        assert!(md.contains("Result (success)"), "{md}");
        assert!(
            md.contains("## Assistant\n\nHere is **your report**."),
            "{md}"
        );
        assert!(
            md.contains("- [weekly report.md](/api/threads/t/artifacts/mnt/user-data/outputs/weekly%20report.md?download=true)"),
            "{md}"
        );
        assert_eq!(
            md.matches("<details>").count(),
            md.matches("</details>").count()
        );
    }
    // The artifact link downloads the file.
    let r = server
        .get("/api/threads/t/artifacts/mnt/user-data/outputs/weekly%20report.md?download=true")
        .await;
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.text().await.unwrap(), "# Weekly");

    let r = export(&server, "?format=json").await;
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(header(&r, "content-type"), "application/json");
    assert!(header(&r, "content-disposition").contains("filename=\"Weekly-report-notes.json\""));
    let doc: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    let (_, thread) = server.get_json("/api/threads/t").await;
    let (_, state) = server.get_json("/api/threads/t/state").await;
    let (_, history) = server.get_json("/api/threads/t/history?limit=1000").await;
    assert_eq!(doc["thread"], thread);
    assert_eq!(doc["state"], state);
    assert_eq!(doc["history"], history);
    assert!(doc["history"].as_array().unwrap().len() > 1);
    assert_eq!(
        doc["state"]["values"]["messages"][0]["content"],
        "Write the weekly report"
    );
}

#[tokio::test]
async fn export_refuses_other_peoples_threads_and_unknown_formats() {
    let env = Env::new();
    let server = start(&env).await;
    server.run_wait("t", "lead_agent", "hello").await;

    for query in ["?format=pdf", "?format=", "?format=JSON", "?format=md"] {
        let r = export(&server, query).await;
        assert_eq!(r.status().as_u16(), 422, "{query}");
        let body: Value = r.json().await.unwrap();
        assert_eq!(error_code(&body), "invalid_query", "{body}");
    }
    let r = server.get("/api/threads/missing/export").await;
    assert_eq!(r.status().as_u16(), 404);
    let r = server.get("/api/threads/bad%20id/export").await;
    assert_eq!(r.status().as_u16(), 422);

    let other = client_with(Some(&user(&server, "other@example.com").await));
    for query in ["", "?format=json"] {
        let r = other
            .get(server.url(&format!("/api/threads/t/export{query}")))
            .send()
            .await
            .unwrap();
        assert_eq!(
            r.status().as_u16(),
            404,
            "someone else's thread is not found"
        );
        let body: Value = r.json().await.unwrap();
        assert_eq!(error_code(&body), "not_found", "{body}");
    }

    // A thread without a title is named "conversation".
    server.create_thread("plain").await;
    let r = server.get("/api/threads/plain/export").await;
    assert_eq!(r.status().as_u16(), 200);
    assert!(
        header(&r, "content-disposition").starts_with("attachment; filename=\"conversation.md\"")
    );
    assert!(r.text().await.unwrap().starts_with("# Conversation\n"));
}
