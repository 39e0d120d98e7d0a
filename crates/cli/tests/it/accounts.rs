//! Accounts in use: tokens, isolation between users, what only admins may do, the adoption
//! of single-user data, and the command line.

use serde_json::{Value, json};

use crate::auth::{send, user};
use crate::common::{
    ADMIN_EMAIL, Env, Server, client_with, error_code, postgres_database, sign_in,
};

#[tokio::test]
async fn tokens_work_as_bearer_and_x_api_key_until_revoked() {
    let env = Env::new();
    let server = env.start();
    let (status, created) = server
        .post_json(
            "/api/auth/tokens",
            json!({"name": "laptop", "expires_in_days": 30}),
        )
        .await;
    assert_eq!(status, 200, "{created}");
    let secret = created["token"].as_str().unwrap();
    let id = created["id"].as_str().unwrap();
    assert!(created["expires_at"].is_string());
    for (header, value) in [
        ("authorization", format!("Bearer {secret}")),
        ("x-api-key", secret.to_string()),
    ] {
        let (status, me) = send(
            reqwest::Client::new()
                .get(server.url("/api/auth/me"))
                .header(header, &value),
        )
        .await;
        assert_eq!(
            (status, me["email"].as_str()),
            (200, Some(ADMIN_EMAIL)),
            "{header}"
        );
    }
    let (_, listed) = server.get_json("/api/auth/tokens").await;
    let listed = listed.as_array().unwrap();
    assert!(
        listed
            .iter()
            .any(|t| t["id"] == id && t["name"] == "laptop")
    );
    assert!(
        !listed.iter().any(|t| t.to_string().contains(secret)),
        "secrets are never listed"
    );
    for bad in [
        json!({"name": ""}),
        json!({"name": "x", "expires_in_days": 0}),
    ] {
        assert_eq!(server.post_json("/api/auth/tokens", bad).await.0, 422);
    }
    assert_eq!(
        server.delete(&format!("/api/auth/tokens/{id}")).await.0,
        204
    );
    let (status, _) = send(
        reqwest::Client::new()
            .get(server.url("/api/auth/me"))
            .header("x-api-key", secret),
    )
    .await;
    assert_eq!(status, 401);
    assert_eq!(
        server.delete(&format!("/api/auth/tokens/{id}")).await.0,
        404
    );
    let (status, body) = send(
        reqwest::Client::new()
            .get(server.url("/api/auth/me"))
            .header("authorization", "Basic YWRtaW46YWRtaW4="),
    )
    .await;
    assert_eq!((status, error_code(&body)), (401, "unauthenticated"));
}

#[tokio::test]
async fn users_get_404_for_each_others_threads_runs_streams_uploads_and_artifacts() {
    users_are_isolated(&[]).await;
}

#[tokio::test]
async fn users_are_isolated_on_postgresql() {
    let Some(url) = postgres_database().await else {
        return;
    };
    users_are_isolated(&[("ANTLER_DATABASE_URL", url.as_str())]).await;
}

async fn users_are_isolated(vars: &[(&str, &str)]) {
    let env = Env::new();
    let model = crate::common::mock_llm(
        "scenarios:\n  - match: \"\"\n    turns:\n      - tool_calls: [{name: write_file, arguments: {path: /mnt/user-data/outputs/a.txt, content: \"A's\"}}]\n      - content: \"done\"\n",
    )
    .await;
    let mut vars = vars.to_vec();
    vars.push(("ANTLER_AGENT_GENERATE_TITLES", "false"));
    let server = env.start_agent(&model, &vars);
    server.create_thread("mine").await;
    let form = reqwest::multipart::Form::new().part(
        "files",
        reqwest::multipart::Part::bytes(b"x".to_vec()).file_name("up.txt"),
    );
    let r = server
        .http
        .post(server.url("/api/threads/mine/uploads"))
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let (status, run) = server
        .post_json(
            "/api/threads/mine/runs/wait",
            crate::common::run_body("write", &["values"]),
        )
        .await;
    assert_eq!(status, 200, "{run}");
    let (_, runs) = server.get_json("/api/threads/mine/runs").await;
    let run_id = runs[0]["run_id"].as_str().unwrap().to_string();

    let other = client_with(Some(&user(&server, "b@antler.test").await));
    let get = |path: String| {
        let r = other.get(server.url(&path));
        async move { send(r).await }
    };
    for path in [
        "/api/threads/mine".to_string(),
        "/api/threads/mine/state".to_string(),
        "/api/threads/mine/runs".to_string(),
        format!("/api/threads/mine/runs/{run_id}"),
        format!("/api/threads/mine/runs/{run_id}/join"),
        format!("/api/threads/mine/runs/{run_id}/stream"),
        "/api/threads/mine/uploads".to_string(),
        "/api/threads/mine/artifacts/mnt/user-data/uploads/up.txt".to_string(),
        "/api/threads/mine/artifacts".to_string(),
        "/api/threads/mine/artifacts/mnt/user-data/outputs/a.txt".to_string(),
    ] {
        let (status, body) = get(path.clone()).await;
        assert_eq!(status, 404, "{path}: {body}");
    }
    for (method, path, body) in [
        (
            reqwest::Method::PATCH,
            "/api/threads/mine".to_string(),
            json!({"metadata": {"x": 1}}),
        ),
        (
            reqwest::Method::POST,
            "/api/threads/mine/history".to_string(),
            json!({}),
        ),
        (
            reqwest::Method::POST,
            format!("/api/threads/mine/runs/{run_id}/cancel"),
            json!({}),
        ),
        (
            reqwest::Method::POST,
            "/api/threads/mine/runs".to_string(),
            crate::common::run_body("hi", &["values"]),
        ),
        (
            reqwest::Method::DELETE,
            "/api/threads/mine/uploads/up.txt".to_string(),
            json!({}),
        ),
        (
            reqwest::Method::DELETE,
            "/api/threads/mine".to_string(),
            json!({}),
        ),
    ] {
        let (status, answer) =
            send(other.request(method.clone(), server.url(&path)).json(&body)).await;
        assert_eq!(status, 404, "{method} {path}: {answer}");
    }
    let (status, found) = send(
        other
            .post(server.url("/api/threads/search"))
            .json(&json!({})),
    )
    .await;
    assert_eq!((status, found), (200, json!([])));
    // The owner still has everything.
    assert_eq!(server.get_json("/api/threads/mine").await.0, 200);
    let owner_reads = server
        .get("/api/threads/mine/artifacts/mnt/user-data/outputs/a.txt")
        .await;
    assert_eq!(owner_reads.status().as_u16(), 200);
    assert_eq!(owner_reads.text().await.unwrap(), "A's");
    let (status, files) = server.get_json("/api/threads/mine/artifacts").await;
    assert_eq!(status, 200);
    assert!(files.to_string().contains("a.txt"), "{files}");
}

#[tokio::test]
async fn only_admins_manage_the_shared_catalog_and_the_accounts() {
    let env = Env::new();
    env.write_skill("public", "shared", "shared", "A shared skill.");
    let server = env.start();
    let other = client_with(Some(&user(&server, "plain@antler.test").await));
    let (status, list) = send(other.get(server.url("/api/skills"))).await;
    assert_eq!(status, 200);
    assert_eq!(list["skills"][0]["name"], "shared");
    // Shared installs only: a user's own installs are personal skills (`personal_skills.rs`).
    let archive = reqwest::multipart::Form::new()
        .part(
            "file",
            reqwest::multipart::Part::bytes(b"PK".to_vec()).file_name("x.skill"),
        )
        .text("category", "custom");
    let refused = [
        other
            .put(server.url("/api/skills/shared"))
            .json(&json!({"enabled": false})),
        other.delete(server.url("/api/skills/shared")),
        other.post(server.url("/api/skills/reload")),
        other
            .post(server.url("/api/skills/install"))
            .json(&json!({"thread_id": "t", "path": "/mnt/user-data/outputs/x.skill", "category": "custom"})),
        other
            .post(server.url("/api/skills/upload"))
            .multipart(archive),
        other.get(server.url("/api/users")),
        other
            .post(server.url("/api/users"))
            .json(&json!({"email": "c@antler.test", "password": "password-123"})),
    ];
    for request in refused {
        let (status, body) = send(request).await;
        assert_eq!(
            (status, error_code(&body)),
            (403, "admin_required"),
            "{body}"
        );
    }
    let (_, skill) = server.get_json("/api/skills/shared").await;
    assert_eq!(skill["enabled"], true, "nothing changed");

    // Admins: list, create, disable (which ends sessions and tokens), and cannot lock
    // themselves out.
    let (_, users) = server.get_json("/api/users").await;
    let users = users.as_array().unwrap().clone();
    assert_eq!(users.len(), 2);
    let plain = users
        .iter()
        .find(|u| u["email"] == "plain@antler.test")
        .unwrap();
    let me = users.iter().find(|u| u["email"] == ADMIN_EMAIL).unwrap();
    let (status, body) = server
        .post_json(
            "/api/users",
            json!({"email": "PLAIN@antler.test", "password": "password-123"}),
        )
        .await;
    assert_eq!((status, error_code(&body)), (409, "email_taken"));
    let patch = |id: &Value, body: Value| {
        server
            .http
            .patch(server.url(&format!("/api/users/{}", id.as_str().unwrap())))
            .json(&body)
    };
    let (status, body) = send(patch(&me["id"], json!({"disabled": true}))).await;
    assert_eq!(status, 409, "{body}");
    let (status, body) = send(patch(&plain["id"], json!({"disabled": true}))).await;
    assert_eq!((status, body["disabled"].as_bool()), (200, Some(true)));
    assert_eq!(send(other.get(server.url("/api/auth/me"))).await.0, 401);
    assert!(
        sign_in(&server.base, "plain@antler.test", "user-password-1")
            .await
            .is_err()
    );
    let (status, _) = send(patch(
        &plain["id"],
        json!({"disabled": false, "password": "reset-password-1"}),
    ))
    .await;
    assert_eq!(status, 200);
    sign_in(&server.base, "plain@antler.test", "reset-password-1")
        .await
        .unwrap();
}

#[tokio::test]
async fn single_user_data_is_adopted_by_the_first_admin() {
    let env = Env::new();
    let mut cmd = env.command(&["serve", "--bind", "127.0.0.1:0"]);
    cmd.env("ANTLER_AUTH_MODE", "none")
        .env("ANTLER_SKILLS_WATCH", "false");
    let before = Server::spawn(cmd);
    let plain = reqwest::Client::new();
    let (status, _) = send(
        plain
            .post(before.url("/api/threads"))
            .json(&json!({"thread_id": "old"})),
    )
    .await;
    assert_eq!(status, 200);
    let (_, health) = send(plain.get(before.url("/health"))).await;
    assert!(
        health["warnings"]
            .to_string()
            .contains("authentication is off"),
        "{health}"
    );
    std::fs::write(env.files_of("old").join("outputs/kept.txt"), "kept").unwrap();
    // A personal skill of the single user, disabled.
    let zip = antler_skills::archive::testing::ZipBuilder::new()
        .file(
            "mine/SKILL.md",
            b"---\nname: mine\ndescription: The single user's own.\n---\n# Mine\n",
        )
        .finish()
        .unwrap();
    let form = reqwest::multipart::Form::new()
        .part(
            "file",
            reqwest::multipart::Part::bytes(zip).file_name("mine.skill"),
        )
        .text("category", "user")
        .text("enable", "false");
    let (status, body) = send(plain.post(before.url("/api/skills/upload")).multipart(form)).await;
    assert_eq!(
        (status, &body["skill"]["category"]),
        (200, &json!("user")),
        "{body}"
    );
    before.stop();

    let after = env.start();
    let (status, thread) = after.get_json("/api/threads/old").await;
    assert_eq!(status, 200, "{thread}");
    let (status, files) = after.get_json("/api/threads/old/artifacts").await;
    assert_eq!(status, 200);
    assert!(files.to_string().contains("kept.txt"), "{files}");
    let (_, skill) = after.get_json("/api/skills/mine?category=user").await;
    assert_eq!(
        (&skill["category"], &skill["enabled"]),
        (&json!("user"), &json!(false)),
        "the personal skill and its state belong to the admin now: {skill}"
    );
}

#[test]
fn the_command_line_creates_users_resets_passwords_and_makes_tokens() {
    let env = Env::new();
    let run = |args: &[&str], stdin: &str| {
        use std::io::Write;
        let mut child = env
            .command(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, err) = run(
        &[
            "user",
            "create",
            "--admin",
            "ops@antler.test",
            "--password-stdin",
        ],
        "from-stdin-1\n",
    );
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("created admin ops@antler.test"), "{out}");
    let (code, _, err) = run(
        &["user", "create", "ops@antler.test", "--password-stdin"],
        "x-password-2\n",
    );
    assert_eq!(code, Some(1));
    assert!(err.contains("already exists"), "{err}");
    let (code, _, err) = run(
        &["user", "create", "short@antler.test", "--password-stdin"],
        "short\n",
    );
    assert_eq!(code, Some(1));
    assert!(err.contains("at least 8"), "{err}");

    let file = env.root.path().join("new-password");
    let (code, out, err) = run(
        &[
            "user",
            "reset-password",
            "ops@antler.test",
            "--password-file",
            file.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(code, Some(0), "{err}");
    let password = std::fs::read_to_string(&file).unwrap().trim().to_string();
    assert!(!out.contains(&password) && !err.contains(&password));
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let (code, token, _) = run(
        &[
            "token",
            "create",
            "--user",
            "ops@antler.test",
            "--name",
            "ci",
        ],
        "",
    );
    assert_eq!(code, Some(0));
    let token = token.trim().to_string();
    assert!(token.starts_with("antler_pat_"), "{token}");
    let (code, out, _) = run(&["user", "list"], "");
    assert_eq!(code, Some(0));
    assert!(
        out.contains("ops@antler.test") && out.contains("admin"),
        "{out}"
    );

    let server = env.start();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        sign_in(&server.base, "ops@antler.test", &password)
            .await
            .unwrap();
        let (status, me) = send(client_with(Some(&token)).get(server.url("/api/auth/me"))).await;
        assert_eq!(
            (status, me["email"].as_str()),
            (200, Some("ops@antler.test"))
        );
    });
}
