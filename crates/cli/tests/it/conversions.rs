//! Uploaded documents get a Markdown version made in the thread's sandbox, which the upload
//! listing and the run's message name, against the real Docker engine.

use serde_json::{Value, json};

use crate::common::{Env, Server, mock_llm, wait_for};
use crate::sandbox::{docker_env, uuid_like};

/// A one-page PDF saying `text` (offsets computed, as a real writer does).
pub(crate) fn pdf(text: &str) -> Vec<u8> {
    let stream = format!("BT /F1 24 Tf 72 700 Td ({text}) Tj ET");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>".to_string(),
        format!("<< /Length {} >>\nstream\n{stream}\nendstream", stream.len()),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend(format!("{} 0 obj\n{body}\nendobj\n", i + 1).bytes());
    }
    let xref = out.len();
    out.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).bytes());
    for o in offsets {
        out.extend(format!("{o:010} 00000 n \n").bytes());
    }
    out.extend(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .bytes(),
    );
    out
}

async fn upload(server: &Server, thread: &str, files: &[(&str, Vec<u8>)]) -> Value {
    let (status, body) = crate::uploads::upload(server, thread, crate::uploads::form(files)).await;
    assert_eq!(status, 200, "{body}");
    body
}

fn entry<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["files"]
        .as_array()
        .unwrap_or_else(|| panic!("not a listing: {list}"))
        .iter()
        .find(|f| f["filename"] == name)
        .unwrap_or_else(|| panic!("{name} not listed: {list}"))
}

async fn settled(server: &Server, thread: &str, name: &str) -> Value {
    let mut last = Value::Null;
    wait_for(&format!("{name} to be converted"), async || {
        let (_, list) = server
            .get_json(&format!("/api/threads/{thread}/uploads"))
            .await;
        last = entry(&list, name)["markdown"].clone();
        last["status"] != "pending"
    })
    .await;
    last
}

/// Whether the full image is there; `make test` builds it and sets ANTLER_REQUIRE_FULL_IMAGE.
pub(crate) async fn full_image() -> bool {
    let docker = antler_sandbox::docker::connect(&Default::default()).unwrap();
    let there = docker.inspect_image("antler-sandbox:full").await.is_ok();
    if !there {
        assert!(
            std::env::var_os("ANTLER_REQUIRE_FULL_IMAGE").is_none(),
            "ANTLER_REQUIRE_FULL_IMAGE is set but antler-sandbox:full is not built"
        );
        eprintln!("note: skipped, this test needs antler-sandbox:full (`make sandbox-image`)");
    }
    there
}

#[tokio::test]
async fn documents_get_a_markdown_version_the_agent_is_told_about() {
    if !crate::common::docker().await || !full_image().await {
        return;
    }
    let env = Env::new();
    let instance = format!("conv-{}", uuid_like());
    let script = r#"
scenarios:
  - match: "read"
    turns:
      - tool_calls:
          - {name: bash, arguments: {command: "cat /mnt/user-data/uploads/report.pdf.md"}}
      - content: "done"
  - match: ""
    turns: [{content: "ok"}]
"#;
    let model = mock_llm(script).await;
    let mut vars = docker_env(&env, &instance);
    vars.push(("ANTLER_SANDBOX_IMAGE".into(), "antler-sandbox:full".into()));
    vars.push(("ANTLER_AGENT_GENERATE_TITLES".into(), "false".into()));
    let all: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let server = env.start_agent(&model, &all);
    server.create_thread("t").await;

    let html = b"<html><body><nav>Menu</nav><h1>Quarterly plan</h1><p>Ship the <a href=\"https://example.com/x\">new thing</a>.</p><script>alert(1)</script></body></html>".to_vec();
    let stored = upload(
        &server,
        "t",
        &[
            ("report.pdf", pdf("Revenue grew by 42 percent")),
            ("page.html", html),
            ("broken.pdf", b"%PDF-1.4\nnot really a PDF\n".to_vec()),
            ("notes.txt", b"plain text stays as it is".to_vec()),
        ],
    )
    .await;
    // The answer says a conversion is on its way; files that are not documents get none.
    assert_eq!(
        entry(&stored, "report.pdf")["markdown"]["status"],
        "pending",
        "{stored}"
    );
    assert!(
        entry(&stored, "notes.txt").get("markdown").is_none(),
        "{stored}"
    );

    let pdf_md = settled(&server, "t", "report.pdf").await;
    assert_eq!(pdf_md["status"], "done", "{pdf_md}");
    assert_eq!(
        pdf_md["virtual_path"],
        "/mnt/user-data/uploads/report.pdf.md"
    );
    let text = std::fs::read_to_string(env.user_data("t").join("uploads/report.pdf.md")).unwrap();
    assert!(text.contains("Revenue grew by 42 percent"), "{text}");
    let html_md = settled(&server, "t", "page.html").await;
    assert_eq!(html_md["status"], "done", "{html_md}");
    let text = std::fs::read_to_string(env.user_data("t").join("uploads/page.html.md")).unwrap();
    assert!(
        text.contains("# Quarterly plan")
            && text.contains("[new thing](https://example.com/x)")
            && !text.contains("alert"),
        "{text}"
    );
    let broken = settled(&server, "t", "broken.pdf").await;
    assert_eq!(broken["status"], "failed", "{broken}");
    assert!(
        broken["error"]
            .as_str()
            .unwrap()
            .starts_with("could not convert it"),
        "{broken}"
    );
    assert!(
        env.user_data("t").join("uploads/broken.pdf").exists(),
        "the original is kept"
    );

    // The listing shows each version with its document, not as an upload of its own.
    let (_, list) = server.get_json("/api/threads/t/uploads").await;
    let names: Vec<&str> = list["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["filename"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["broken.pdf", "notes.txt", "page.html", "report.pdf"],
        "{list}"
    );

    // A message naming the uploads also names the versions (or why there is none).
    let (status, values) = server
        .post_json(
            "/api/threads/t/runs/wait",
            json!({"assistant_id": "lead_agent", "input": {"messages": [{"role": "user", "content":
                "read them\n\n<uploaded_files>\n- /mnt/user-data/uploads/report.pdf\n- /mnt/user-data/uploads/broken.pdf\n- /mnt/user-data/uploads/notes.txt\n</uploaded_files>"}]}}),
        )
        .await;
    assert_eq!(status, 200, "{values}");
    let messages = values["messages"].as_array().unwrap();
    let human = messages[0]["content"].as_str().unwrap();
    assert!(
        human.contains("- /mnt/user-data/uploads/report.pdf\n  Markdown version: /mnt/user-data/uploads/report.pdf.md\n")
            && human.contains("- /mnt/user-data/uploads/broken.pdf\n  No Markdown version: could not convert it")
            && human.contains("- /mnt/user-data/uploads/notes.txt\n</uploaded_files>"),
        "{human}"
    );
    let tool = messages.iter().find(|m| m["type"] == "tool").unwrap();
    assert!(
        tool["content"]
            .as_str()
            .unwrap()
            .contains("Revenue grew by 42 percent"),
        "{tool}"
    );

    // Deleting a document deletes its version.
    let (status, _) = server.delete("/api/threads/t/uploads/report.pdf").await;
    assert_eq!(status, 204);
    assert!(!env.user_data("t").join("uploads/report.pdf.md").exists());
    drop(server);
}

/// In slim (no converter) a document's conversion fails saying why; with the local provider
/// it is skipped saying why. The original is kept either way.
#[tokio::test]
async fn without_the_full_image_or_docker_conversion_says_why() {
    let env = Env::new();
    let server = env.start();
    server.create_thread("local").await;
    let stored = upload(&server, "local", &[("a.pdf", pdf("x"))]).await;
    let md = &entry(&stored, "a.pdf")["markdown"];
    assert_eq!(md["status"], "skipped", "{stored}");
    assert!(
        md["error"].as_str().unwrap().contains("Docker sandbox"),
        "{md}"
    );
    drop(server);

    if !crate::common::docker().await {
        return;
    }
    let instance = format!("conv-{}", uuid_like());
    let vars = docker_env(&env, &instance);
    let mut cmd = env.command(&["serve", "--bind", "127.0.0.1:0"]);
    cmd.envs(vars.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let server = Server::spawn(cmd);
    server.create_thread("slim").await;
    upload(&server, "slim", &[("a.pdf", pdf("x"))]).await;
    let md = settled(&server, "slim", "a.pdf").await;
    assert_eq!(md["status"], "failed", "{md}");
    assert!(
        md["error"].as_str().unwrap().contains("no markitdown"),
        "{md}"
    );
    assert!(env.user_data("slim").join("uploads/a.pdf").exists());
}

/// A Word file among the artifacts previews as PDF: rendered in the thread's sandbox on the
/// first request, then served from the cache (same ETag, no second rendering); other files
/// and broken ones get clear errors.
#[tokio::test]
async fn office_files_preview_as_pdf() {
    if !crate::common::docker().await || !full_image().await {
        return;
    }
    let env = Env::new();
    let instance = format!("prev-{}", uuid_like());
    let mut vars = docker_env(&env, &instance);
    vars.push(("ANTLER_SANDBOX_IMAGE".into(), "antler-sandbox:full".into()));
    let mut cmd = env.command(&["serve", "--bind", "127.0.0.1:0"]);
    cmd.envs(vars.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let server = Server::spawn(cmd);
    server.create_thread("t").await;
    let (code, out, err) = crate::sandbox::sandbox_exec(
        &env,
        &vars,
        "t",
        "cd /mnt/user-data/outputs && python3 -c \"from docx import Document; d = Document(); d.add_heading('Launch plan', 1); d.add_paragraph('Week one: ship it.'); d.save('plan.docx')\" && printf 'PK\\003\\004broken' > broken.docx",
    );
    assert_eq!(code, 0, "{out}{err}");

    let url = "/api/threads/t/artifacts/mnt/user-data/outputs/plan.docx?preview=pdf";
    // LibreOffice's first start in a fresh container took over the client's usual 30 s on a
    // loaded 2-core CI machine (15 s when quiet): this request may take longer.
    let first = server
        .http
        .get(server.url(url))
        .timeout(std::time::Duration::from_secs(180))
        .send()
        .await
        .unwrap();
    assert_eq!(first.status().as_u16(), 200);
    assert_eq!(first.headers()["content-type"], "application/pdf");
    let etag = first.headers()["etag"].to_str().unwrap().to_string();
    assert!(etag.ends_with("-pdf\""), "{etag}");
    let bytes = first.bytes().await.unwrap();
    assert!(bytes.starts_with(b"%PDF-"), "a PDF");
    let cached: Vec<_> = std::fs::read_dir(env.thread_dir("t").unwrap().join("previews"))
        .unwrap()
        .collect();
    assert_eq!(cached.len(), 1, "cached once");
    let second = server.get(url).await;
    assert_eq!(second.headers()["etag"].to_str().unwrap(), etag);
    assert_eq!(second.bytes().await.unwrap(), bytes);
    // Nothing of the rendering is left where the agent looks.
    let workspace: Vec<_> = std::fs::read_dir(env.user_data("t").join("workspace"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(workspace.is_empty(), "{workspace:?}");

    let (status, body) = server
        .get_json("/api/threads/t/artifacts/mnt/user-data/outputs/broken.docx?preview=pdf")
        .await;
    assert_eq!(
        (status, crate::common::error_code(&body)),
        (422, "preview_failed"),
        "{body}"
    );
    std::fs::write(env.user_data("t").join("outputs/notes.txt"), "x").unwrap();
    let (status, _) = server
        .get_json("/api/threads/t/artifacts/mnt/user-data/outputs/notes.txt?preview=pdf")
        .await;
    assert_eq!(status, 400);
    let (status, _) = server
        .get_json("/api/threads/t/artifacts/mnt/user-data/outputs/plan.docx?preview=png")
        .await;
    assert_eq!(status, 400);
}
