//! Secrets for skills, against the real Docker sandbox: stored sealed, never shown again,
//! given only to the runs that use their skill or agent, and replaced by `[secret:NAME]` in
//! tool results, streamed events, stored messages, the server's log and artifact listings.

use serde_json::json;

use crate::common::{Env, Server, error_code, mock_llm, read_sse};
use crate::sandbox::{docker_env, uuid_like};

const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
const VALUE: &str = "sk-img-7a1f93c2e85d4b06";
const AGENT_VALUE: &str = "agent-token-55e0c3a1b9";

/// Uses the skill, then shows the value every way a command can: stdout, stderr, and the
/// names of files in outputs and uploads.
const USE_SKILL: &str = "cat /mnt/skills/public/imagegen/SKILL.md >/dev/null; echo out=$IMAGE_API_KEY; echo err=$IMAGE_API_KEY >&2; touch /mnt/user-data/outputs/$IMAGE_API_KEY.txt /mnt/user-data/uploads/$IMAGE_API_KEY.csv; echo agent=[$AGENT_TOKEN]";
const NO_SKILL: &str = "echo plain=[$IMAGE_API_KEY] agent=[$AGENT_TOKEN]";

#[tokio::test]
async fn a_secret_reaches_only_the_runs_that_use_it_and_never_leaves_the_sandbox() {
    if !crate::common::docker().await {
        return;
    }
    let script = format!(
        r#"
scenarios:
  - match: "make an image"
    turns:
      - tool_calls:
          - {{name: bash, arguments: {{command: "{USE_SKILL}"}}}}
      - content: "done"
  - match: "just echo"
    turns:
      - tool_calls:
          - {{name: bash, arguments: {{command: "{NO_SKILL}"}}}}
      - content: "done"
  - match: ""
    turns: [{{content: "ok"}}]
"#
    );
    let model = mock_llm(&script).await;
    let env = Env::new();
    env.write_skill(
        "public",
        "imagegen",
        "imagegen",
        "Makes images with an API.",
    );
    let instance = format!("it-{}", uuid_like());
    let log_path = env.data_dir().with_file_name("server.log");
    let mut cmd = env.command(&["serve", "--bind", "127.0.0.1:0"]);
    cmd.envs(docker_env(&env, &instance))
        .env("ANTLER_MODEL_BASE_URL", &model)
        .env("ANTLER_MODEL", "mock")
        .env("ANTLER_AGENT_GENERATE_TITLES", "false")
        .env("ANTLER_SECRETS_KEY", KEY)
        .env("ANTLER_LOG_LEVEL", "debug");
    let server = Server::spawn_with_log(cmd, std::fs::File::create(&log_path).unwrap());

    // Admins store it; the answer and the listing never carry the value.
    let (status, stored) = server
        .put_json(
            "/api/secrets/IMAGE_API_KEY",
            json!({"value": VALUE, "description": "image API", "skills": ["imagegen"]}),
        )
        .await;
    assert_eq!(status, 200, "{stored}");
    assert_eq!(stored["skills"], json!(["imagegen"]));
    let (status, agent) = server
        .post_json(
            "/api/assistants",
            json!({"graph_id": "agent", "name": "granted"}),
        )
        .await;
    assert_eq!(status, 200, "{agent}");
    let agent_id = agent["assistant_id"].as_str().unwrap().to_string();
    let (status, _) = server
        .put_json(
            "/api/secrets/AGENT_TOKEN",
            json!({"value": AGENT_VALUE, "agents": [agent_id]}),
        )
        .await;
    assert_eq!(status, 200);
    let (status, list) = server.get_json("/api/secrets").await;
    assert_eq!(status, 200);
    assert_eq!(list["available"], true);
    assert_eq!(list["secrets"].as_array().unwrap().len(), 2, "{list}");
    assert!(!list.to_string().contains(VALUE), "{list}");
    // Changing what it is for keeps the value.
    let (status, _) = server
        .put_json(
            "/api/secrets/IMAGE_API_KEY",
            json!({"description": "image generation"}),
        )
        .await;
    assert_eq!(status, 200);

    // Refusals: not an admin, a reserved or malformed name, a value too short to redact.
    let alice =
        crate::common::client_with(Some(&crate::auth::user(&server, "alice@antler.test").await));
    let refused = alice.get(server.url("/api/secrets")).send().await.unwrap();
    assert_eq!(refused.status().as_u16(), 403);
    let body: serde_json::Value = refused.json().await.unwrap();
    assert_eq!(error_code(&body), "admin_required");
    for (name, body, expected) in [
        ("PATH", json!({"value": "long enough value"}), 409),
        ("LD_PRELOAD", json!({"value": "long enough value"}), 409),
        ("1BAD", json!({"value": "long enough value"}), 422),
        ("SHORT", json!({"value": "abc"}), 422),
        ("NEW_ONE", json!({"description": "no value"}), 404),
    ] {
        let (status, body) = server.put_json(&format!("/api/secrets/{name}"), body).await;
        assert_eq!(status, expected, "{name}: {body}");
    }

    // A run that uses the skill gets it, and everything that leaves shows its name.
    let response = server
        .stream_run(
            "uses",
            json!({"assistant_id": "lead_agent", "if_not_exists": "create",
                "input": {"messages": [{"role": "user", "content": "make an image"}]},
                "stream_mode": ["values", "messages", "updates", "custom"]}),
        )
        .await;
    let events = read_sse(response, |_| false).await;
    let streamed: String = events.iter().map(|e| e.data.to_string()).collect();
    assert!(!streamed.contains(VALUE), "the value was streamed");
    assert!(
        streamed.contains("out=[secret:IMAGE_API_KEY]"),
        "{streamed}"
    );
    assert!(
        streamed.contains("err=[secret:IMAGE_API_KEY]"),
        "{streamed}"
    );
    assert!(
        streamed.contains("agent=[]"),
        "the built-in agent is not granted AGENT_TOKEN"
    );
    let (_, state) = server.get_json("/api/threads/uses/state").await;
    let (_, history) = server
        .post_json("/api/threads/uses/history", json!({"limit": 10}))
        .await;
    for stored in [state.to_string(), history.to_string()] {
        assert!(!stored.contains(VALUE));
        assert!(stored.contains("out=[secret:IMAGE_API_KEY]"));
    }
    let (_, artifacts) = server.get_json("/api/threads/uses/artifacts").await;
    let artifacts = artifacts.to_string();
    assert!(!artifacts.contains(VALUE), "{artifacts}");
    assert!(
        artifacts.contains("[secret:IMAGE_API_KEY].txt"),
        "{artifacts}"
    );

    // A run that does not use the skill does not get it; the granted agent gets its own.
    let values = server.run_wait("other", "lead_agent", "just echo").await;
    assert!(values.to_string().contains("plain=[] agent=[]"), "{values}");
    let values = server.run_wait("agents", &agent_id, "just echo").await;
    assert!(
        values.to_string().contains("agent=[[secret:AGENT_TOKEN]]"),
        "{values}"
    );
    // An agent whose settings list a secret gets it; only an admin may list one.
    let listing =
        json!({"graph_id": "agent", "name": "lists", "context": {"secrets": ["IMAGE_API_KEY"]}});
    let refused = alice
        .post(server.url("/api/assistants"))
        .json(&listing)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 403);
    let (status, body) = server
        .post_json(
            "/api/assistants",
            json!({"graph_id": "agent", "name": "bad", "context": {"secrets": ["not a name"]}}),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    let (status, lister) = server.post_json("/api/assistants", listing).await;
    assert_eq!(status, 200, "{lister}");
    let values = server
        .run_wait(
            "listed",
            lister["assistant_id"].as_str().unwrap(),
            "just echo",
        )
        .await;
    assert!(
        values
            .to_string()
            .contains("plain=[[secret:IMAGE_API_KEY]]"),
        "{values}"
    );

    // The database holds it sealed; the log never had it.
    let db = std::fs::read(env.data_dir().join("antler.db")).unwrap();
    for value in [VALUE, AGENT_VALUE] {
        assert!(!db.windows(value.len()).any(|w| w == value.as_bytes()));
    }
    server.stop();
    let log = std::fs::read_to_string(&log_path).unwrap();
    assert!(log.contains("secret stored"), "the log is being written");
    let leaked: Vec<&str> = log
        .lines()
        .filter(|l| l.contains(VALUE) || l.contains(AGENT_VALUE))
        .collect();
    assert!(leaked.is_empty(), "{leaked:#?}");

    // Deleted: later runs go without.
    let server = Server::spawn_with_log(
        {
            let mut cmd = env.command(&["serve", "--bind", "127.0.0.1:0"]);
            cmd.envs(docker_env(&env, &instance))
                .env("ANTLER_MODEL_BASE_URL", &model)
                .env("ANTLER_MODEL", "mock")
                .env("ANTLER_AGENT_GENERATE_TITLES", "false")
                .env("ANTLER_SECRETS_KEY", KEY);
            cmd
        },
        std::process::Stdio::null(),
    );
    let (status, _) = server.delete("/api/secrets/IMAGE_API_KEY").await;
    assert_eq!(status, 204);
    let (status, _) = server.delete("/api/secrets/IMAGE_API_KEY").await;
    assert_eq!(status, 404);
    let values = server
        .run_wait("after", "lead_agent", "make an image")
        .await;
    assert!(values.to_string().contains("out=\\n"), "{values}");
}

#[tokio::test]
async fn without_a_key_secrets_cannot_be_stored_and_a_bad_key_stops_the_server() {
    let env = Env::new();
    let server = env.start();
    let (status, list) = server.get_json("/api/secrets").await;
    assert_eq!(status, 200);
    assert_eq!(list["available"], false);
    let (status, body) = server
        .put_json("/api/secrets/X_KEY", json!({"value": "long enough value"}))
        .await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(error_code(&body), "secrets_unavailable");
    assert!(body.to_string().contains("ANTLER_SECRETS_KEY"), "{body}");
    let (status, _) = server.delete("/api/secrets/X_KEY").await;
    assert_eq!(status, 404);
    server.stop();
    let out = env
        .command(&["serve", "--bind", "127.0.0.1:0"])
        .env("ANTLER_SECRETS_KEY", "too-short")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("ANTLER_SECRETS_KEY"));
}

/// A version an admin made, with admin-only settings, cannot be brought back by its owner once
/// they are no longer an admin.
#[tokio::test]
async fn rolling_back_cannot_bring_back_what_only_an_admin_may_set() {
    let env = Env::new();
    let server = env.start();
    let (status, body) = server
        .post_json(
            "/api/users",
            json!({"email": "was-admin@antler.test", "password": "user-password-1", "role": "admin"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let user_id = body["id"].as_str().unwrap().to_string();
    let session = crate::common::sign_in(&server.base, "was-admin@antler.test", "user-password-1")
        .await
        .unwrap();
    let token = crate::common::create_token(&server.base, &session, "tests").await;
    let them = crate::common::client_with(Some(&token));
    let created: serde_json::Value = them
        .post(server.url("/api/assistants"))
        .json(&json!({"graph_id": "agent", "name": "mine", "context": {"secrets": ["IMAGE_API_KEY"]}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = created["assistant_id"].as_str().unwrap().to_string();
    let patched = them
        .patch(server.url(&format!("/api/assistants/{id}")))
        .json(&json!({"context": {}}))
        .send()
        .await
        .unwrap();
    assert_eq!(patched.status().as_u16(), 200);
    let (status, _) = server
        .patch_json(&format!("/api/users/{user_id}"), json!({"role": "user"}))
        .await;
    assert_eq!(status, 200);
    let back = them
        .post(server.url(&format!("/api/assistants/{id}/latest")))
        .json(&json!({"version": 1}))
        .send()
        .await
        .unwrap();
    assert_eq!(back.status().as_u16(), 403);
    let body: serde_json::Value = back.json().await.unwrap();
    assert!(body.to_string().contains("context.secrets"), "{body}");
    let same = them
        .post(server.url(&format!("/api/assistants/{id}/latest")))
        .json(&json!({"version": 2}))
        .send()
        .await
        .unwrap();
    assert_eq!(same.status().as_u16(), 200);
}
