//! Personal skills: a person installs skills of their own; they are listed, offered to the
//! agent and mounted at `/mnt/skills/user` for that person only, in a real Docker sandbox.

use antler_skills::archive::testing::ZipBuilder;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

use crate::auth::{send, user};
use crate::common::{
    Env, Server, client_with, error_code, mock_llm, model_requests, postgres_database, run_body,
    wait_for,
};

const SCRIPT: &str = r#"
scenarios:
  - match: "read my diary"
    turns:
      - tool_calls: [{name: bash, arguments: {command: "cat /mnt/skills/user/diary/SKILL.md; ls -A /mnt/skills/user"}}]
      - content: "done"
"#;

fn archive(name: &str, description: &str) -> Vec<u8> {
    ZipBuilder::new()
        .file(
            &format!("{name}/SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\nSecret recipe of {name}.\n")
                .as_bytes(),
        )
        .finish()
        .unwrap()
}

/// Uploads `zip` as the holder of `client`, with extra form fields.
async fn upload(
    server: &Server,
    client: &reqwest::Client,
    zip: Vec<u8>,
    fields: &[(&str, &str)],
) -> (u16, Value) {
    let mut form = Form::new().part("file", Part::bytes(zip).file_name("x.skill"));
    for (k, v) in fields {
        form = form.text(k.to_string(), v.to_string());
    }
    send(
        client
            .post(server.url("/api/skills/upload"))
            .multipart(form),
    )
    .await
}

fn find<'a>(list: &'a Value, name: &str, category: &str) -> Option<&'a Value> {
    list["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name && s["category"] == category)
}

/// The tool result the model got back in the run's second request.
async fn tool_output(model: &str, index: usize) -> (String, String) {
    let requests = model_requests(model).await;
    let requests = requests.as_array().unwrap();
    let system = requests[index]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    let result = requests[index + 1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "tool")
        .map(|m| m["content"].to_string())
        .unwrap_or_default();
    (system, result)
}

#[tokio::test]
async fn personal_skills_are_their_owner_alone_in_the_api_the_prompt_and_the_sandbox() {
    if !crate::common::docker().await {
        return;
    }
    let env = Env::new();
    env.write_skill("public", "notes", "notes", "Shared notes skill.");
    let model = mock_llm(SCRIPT).await;
    let instance = format!("personal-{}", std::process::id());
    let server = env.start_agent(
        &model,
        &[
            ("ANTLER_AGENT_GENERATE_TITLES", "false"),
            ("ANTLER_SANDBOX_PROVIDER", "docker"),
            ("ANTLER_SANDBOX_INSTANCE_ID", &instance),
            ("ANTLER_SANDBOX_DOCKER_WARM_POOL", "1"),
        ],
    );
    let alice = client_with(Some(&user(&server, "alice@antler.test").await));
    let bob = client_with(Some(&user(&server, "bob@antler.test").await));

    // A non-admin's install is personal by default; a shared one is refused.
    let (status, installed) =
        upload(&server, &alice, archive("diary", "Alice's diary."), &[]).await;
    assert_eq!(status, 200, "{installed}");
    let skill = &installed["skill"];
    assert_eq!(skill["category"], "user");
    assert_eq!(skill["location"], "/mnt/skills/user/diary/SKILL.md");
    assert_eq!(
        (skill["enabled"].as_bool(), skill["editable"].as_bool()),
        (Some(true), Some(true))
    );
    let (status, body) = upload(
        &server,
        &alice,
        archive("shared", "x"),
        &[("category", "custom")],
    )
    .await;
    assert_eq!(
        (status, error_code(&body)),
        (403, "admin_required"),
        "{body}"
    );
    let (status, _) = upload(
        &server,
        &alice,
        archive("x", "x"),
        &[("category", "public")],
    )
    .await;
    assert_eq!(status, 400);
    let (status, body) = upload(
        &server,
        &alice,
        archive("x", "x"),
        &[("category", "secret")],
    )
    .await;
    assert_eq!(
        (status, error_code(&body)),
        (400, "invalid_request"),
        "{body}"
    );
    // A personal skill of the same name as a shared one hides it from its owner only.
    let (status, _) = upload(&server, &alice, archive("notes", "Alice's own notes."), &[]).await;
    assert_eq!(status, 200);

    let (_, mine) = send(alice.get(server.url("/api/skills"))).await;
    assert!(find(&mine, "diary", "user").is_some(), "{mine}");
    assert_eq!(find(&mine, "notes", "public").unwrap()["shadowed"], true);
    for (who, client) in [("bob", &bob), ("the admin", &server.http)] {
        let (_, theirs) = send(client.get(server.url("/api/skills"))).await;
        assert!(
            find(&theirs, "diary", "user").is_none() && !theirs.to_string().contains("diary"),
            "{who} sees alice's skill: {theirs}"
        );
        assert_eq!(find(&theirs, "notes", "public").unwrap()["shadowed"], false);
        let (status, _) = send(client.get(server.url("/api/skills/diary"))).await;
        assert_eq!(status, 404, "{who}");
        let (status, _) = send(
            client
                .put(server.url("/api/skills/diary"))
                .json(&json!({"enabled": false, "category": "user"})),
        )
        .await;
        assert_eq!(status, 404, "{who} cannot toggle it");
        let (status, _) = send(client.delete(server.url("/api/skills/diary?category=user"))).await;
        assert_eq!(status, 404, "{who} cannot delete it");
    }
    let (status, detail) = send(alice.get(server.url("/api/skills/diary"))).await;
    assert_eq!(status, 200);
    assert!(
        detail["body"]
            .as_str()
            .unwrap()
            .contains("Secret recipe of diary.")
    );
    // Alice may not change the shared skill, only her own.
    let (status, body) = send(
        alice
            .put(server.url("/api/skills/notes"))
            .json(&json!({"enabled": false, "category": "public"})),
    )
    .await;
    assert_eq!((status, error_code(&body)), (403, "admin_required"));
    let (status, body) = send(
        alice
            .put(server.url("/api/skills/notes"))
            .json(&json!({"enabled": false})),
    )
    .await;
    assert_eq!(status, 409, "ambiguous without a category: {body}");

    // The prompt and the sandbox: alice's run sees her skill, bob's does not.
    for (client, thread) in [(&alice, "alice-t"), (&bob, "bob-t")] {
        let (status, body) = send(
            client
                .post(server.url("/api/threads"))
                .json(&json!({"thread_id": thread})),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let (status, run) = send(
            client
                .post(server.url(&format!("/api/threads/{thread}/runs/wait")))
                .json(&run_body("read my diary", &["values"])),
        )
        .await;
        assert_eq!(status, 200, "{run}");
    }
    let (system, seen) = tool_output(&model, 0).await;
    assert!(
        system.contains("/mnt/skills/user/diary/SKILL.md"),
        "{system}"
    );
    assert!(system.contains("/mnt/skills/user/notes/SKILL.md"));
    assert!(
        !system.contains("/mnt/skills/public/notes/SKILL.md"),
        "the shadowed shared skill is not offered"
    );
    assert!(seen.contains("Secret recipe of diary."), "{seen}");
    let (system, seen) = tool_output(&model, 2).await;
    assert!(!system.contains("diary"), "{system}");
    assert!(system.contains("/mnt/skills/public/notes/SKILL.md"));
    assert!(!seen.contains("Secret recipe"), "bob's sandbox: {seen}");
    assert!(seen.contains("No such file"), "{seen}");

    // Disabling and deleting reach alice's running sandbox before the answer.
    let (status, toggled) = send(
        alice
            .put(server.url("/api/skills/diary"))
            .json(&json!({"enabled": false})),
    )
    .await;
    assert_eq!(
        (status, toggled["enabled"].as_bool()),
        (200, Some(false)),
        "{toggled}"
    );
    let files = std::fs::read_dir(env.data_dir().join("sandbox/personal").join(&instance))
        .unwrap()
        .filter_map(Result::ok)
        .map(|copy| copy.path().join("user/diary/SKILL.md"))
        .filter(|p| p.exists())
        .count();
    assert_eq!(
        files, 0,
        "a disabled personal skill is gone from alice's sandbox"
    );
    let (status, _) = send(alice.delete(server.url("/api/skills/diary"))).await;
    assert_eq!(status, 204);
    let (_, mine) = send(alice.get(server.url("/api/skills"))).await;
    assert!(find(&mine, "diary", "user").is_none());
    assert!(
        env.data_dir()
            .join("users")
            .read_dir()
            .unwrap()
            .filter_map(Result::ok)
            .any(|u| u.path().join("skills/user/.history/diary").is_dir()),
        "the deleted version is kept in alice's history"
    );
    server.stop();
}

#[tokio::test]
async fn personal_skills_follow_their_owner_across_replicas_on_postgresql() {
    let Some(db) = postgres_database().await else {
        return;
    };
    let env = Env::new();
    let replica = |name: &'static str| {
        env.start_with(&[
            ("ANTLER_DATABASE_URL", db.as_str()),
            ("ANTLER_SKILLS_WATCH", "false"),
            ("ANTLER_SANDBOX_INSTANCE_ID", name),
        ])
    };
    let (one, two) = (replica("one"), replica("two"));
    let alice = client_with(Some(&user(&one, "alice@antler.test").await));
    let bob = client_with(Some(&user(&one, "bob@antler.test").await));
    // Replica two reads alice's (empty) catalog first: it has to hear of the install.
    let (status, before) = send(alice.get(two.url("/api/skills"))).await;
    assert_eq!(status, 200);
    assert!(find(&before, "diary", "user").is_none());
    let (status, body) = upload(&one, &alice, archive("diary", "Alice's diary."), &[]).await;
    assert_eq!(status, 200, "{body}");
    let listed_on_two = async |client: &reqwest::Client| {
        let (_, list) = send(client.get(two.url("/api/skills"))).await;
        find(&list, "diary", "user").map(|s| s["enabled"].as_bool())
    };
    wait_for("replica two to list alice's skill", async || {
        listed_on_two(&alice).await == Some(Some(true))
    })
    .await;
    let (status, _) = send(
        alice
            .put(one.url("/api/skills/diary"))
            .json(&json!({"enabled": false})),
    )
    .await;
    assert_eq!(status, 200);
    wait_for("replica two to see it disabled", async || {
        listed_on_two(&alice).await == Some(Some(false))
    })
    .await;
    assert_eq!(listed_on_two(&bob).await, None, "bob never sees it");
    let (_, admin) = send(two.http.get(two.url("/api/skills"))).await;
    assert!(find(&admin, "diary", "user").is_none());
    one.stop();
    two.stop();
}
