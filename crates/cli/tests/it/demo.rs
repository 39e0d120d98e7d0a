//! `make demo`'s scripted conversations (demo/mock.yaml) with the bundled public skills, in
//! the Docker sandbox: every prepared prompt ends well and delivers its files.

use serde_json::{Value, json};

use crate::common::{Env, Server, mock_llm, run_body};

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

async fn ask(server: &Server, thread: &str, text: &str) -> Value {
    let (status, values) = server
        .post_json(
            &format!("/api/threads/{thread}/runs/wait"),
            run_body(text, &["values"]),
        )
        .await;
    assert_eq!(status, 200, "{values}");
    let (_, runs) = server
        .get_json(&format!("/api/threads/{thread}/runs"))
        .await;
    assert_eq!(runs[0]["status"], "success", "{text}: {}", runs[0]);
    for m in values["messages"].as_array().unwrap() {
        if m["type"] == "tool" {
            assert_ne!(m["status"], "error", "{text}: a tool failed: {m}");
        }
    }
    values
}

#[tokio::test]
async fn every_demo_conversation_runs_to_its_files() {
    if !crate::common::docker().await {
        return;
    }
    let root = std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../..");
    let env = Env::new();
    copy_dir(
        &root.join("skills/public"),
        &env.skills_dir().join("public"),
    );
    let script = std::fs::read_to_string(root.join("demo/mock.yaml")).unwrap();
    let script = script.replace("chunk_delay_ms: 15", "chunk_delay_ms: 0");
    let instance = format!("demo-{}", std::process::id());
    let server = env.start_agent(
        &mock_llm(&script).await,
        &[
            ("ANTLER_SANDBOX_PROVIDER", "docker"),
            ("ANTLER_SANDBOX_INSTANCE_ID", &instance),
            ("ANTLER_SANDBOX_DOCKER_WARM_POOL", "0"),
        ],
    );

    server.create_thread("skill").await;
    let values = ask(
        &server,
        "skill",
        "Create a skill that turns meeting notes into a list of action items",
    )
    .await;
    let artifacts = values["artifacts"].to_string();
    assert!(artifacts.contains("action-items.skill"), "{artifacts}");
    let (status, installed) = server
        .post_json(
            "/api/skills/install",
            json!({"thread_id": "skill", "path": "/mnt/user-data/outputs/action-items.skill"}),
        )
        .await;
    assert_eq!(status, 200, "{installed}");
    assert_eq!(installed["skill"]["name"], "action-items");
    assert_eq!(installed["skill"]["enabled"], true);

    // The person uploads a CSV; the sandbox user reads it (uploads used to be 0600 root).
    server.create_thread("csv").await;
    let csv = "date,region,product,units,revenue\n2025-01-06,North,Widget,12,240.00\n\
               2025-01-06,South,Gadget,5,175.50\n2025-01-13,North,Gadget,8,280.80\n\
               2025-01-13,West,Widget,,0\n2025-01-20,South,Widget,20,400.00\n\
               2025-01-20,West,Gizmo,3,89.97\n2025-01-27,North,Gizmo,7,209.93\n";
    let form = reqwest::multipart::Form::new().part(
        "files",
        reqwest::multipart::Part::bytes(csv.as_bytes().to_vec()).file_name("sales.csv"),
    );
    let uploaded = server
        .http
        .post(server.url("/api/threads/csv/uploads"))
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(uploaded.status().as_u16(), 200);
    let values = ask(
        &server,
        "csv",
        "Profile a sample CSV file and summarise what is in it",
    )
    .await;
    assert!(
        values["artifacts"].to_string().contains("sales-profile.md"),
        "{values}"
    );
    assert!(
        values
            .to_string()
            .contains("profiling /mnt/user-data/uploads/sales.csv"),
        "the uploaded file was profiled: {values}"
    );
    assert!(
        !env.user_data("csv").join("outputs/sales.csv").exists(),
        "no sample was needed"
    );
    let profile =
        std::fs::read_to_string(env.user_data("csv").join("outputs/sales-profile.md")).unwrap();
    assert!(
        profile.contains("units") && profile.contains("region"),
        "{profile}"
    );

    server.create_thread("report").await;
    ask(&server, "report", "Help me write a short report").await;
    let values = ask(&server, "report", "HTML").await;
    assert!(
        values["artifacts"].to_string().contains("report.html"),
        "{values}"
    );
    let html =
        std::fs::read_to_string(env.user_data("report").join("outputs/report.html")).unwrap();
    assert!(html.contains("<h1") && !html.contains("<script"), "{html}");
    server.stop();
}
