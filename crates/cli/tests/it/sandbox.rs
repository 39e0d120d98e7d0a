//! The sandbox through the server and the operator CLI, against the real Docker engine.

use std::process::Stdio;

use antler_sandbox::config::SandboxConfig;
use antler_sandbox::docker::{admin, connect};
use serde_json::json;

use crate::common::{Env, Server, mock_llm, run_body, wait_for};

/// Server and CLI settings for a Docker-backed installation with its own instance label.
pub(crate) fn docker_env(env: &Env, instance: &str) -> Vec<(String, String)> {
    vec![
        ("ANTLER_SANDBOX_PROVIDER".into(), "docker".into()),
        ("ANTLER_SANDBOX_INSTANCE_ID".into(), instance.into()),
        ("ANTLER_SANDBOX_DOCKER_WARM_POOL".into(), "1".into()),
        ("ANTLER_SKILLS_WATCH".into(), "false".into()),
        (
            "ANTLER_DATA_DIR".into(),
            env.data_dir().to_string_lossy().into_owned(),
        ),
    ]
}

fn start(env: &Env, vars: &[(String, String)]) -> Server {
    let mut cmd = env.command(&["serve", "--bind", "127.0.0.1:0"]);
    cmd.envs(vars.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    Server::spawn(cmd)
}

pub(crate) fn sandbox_exec(
    env: &Env,
    vars: &[(String, String)],
    thread: &str,
    command: &str,
) -> (i32, String, String) {
    let out = env
        .command(&["sandbox", "exec", "--thread", thread, "--", command])
        .envs(vars.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

async fn containers(instance: &str) -> Vec<admin::ContainerRow> {
    let docker = connect(&SandboxConfig::default()).unwrap();
    admin::list(&docker, Some(instance)).await.unwrap()
}

#[tokio::test]
async fn files_from_the_sandbox_are_artifacts_and_toggles_reach_running_sandboxes() {
    if !crate::common::docker().await {
        return;
    }
    let env = Env::new();
    env.write_skill("public", "demo", "demo", "A demo skill.");
    let instance = format!("it-{}", uuid_like());
    let vars = docker_env(&env, &instance);
    let server = start(&env, &vars);
    let (_, health) = server.get_json("/health").await;
    assert_eq!(health["sandbox"], "docker", "{health}");
    // The image in use, as the engine describes it (the tests' image is slim).
    let image = &health["sandbox_image"];
    assert_eq!(
        image["name"],
        crate::common::sandbox_image().as_str(),
        "{health}"
    );
    assert_eq!(image["variant"], "slim", "{health}");
    assert!(
        image.get("contents").is_none(),
        "slim has no contents label: {health}"
    );
    assert!(
        image["id"].as_str().unwrap().starts_with("sha256:"),
        "{health}"
    );
    assert!(
        image["size_bytes"].as_u64().unwrap() > 1_000_000,
        "{health}"
    );
    server.create_thread("t").await;

    let (code, out, err) = sandbox_exec(
        &env,
        &vars,
        "t",
        "cat /mnt/skills/public/demo/SKILL.md && echo made > /mnt/user-data/outputs/made.txt && id -u",
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("A demo skill.") && !out.contains("\n0\n"),
        "{out}"
    );
    let (_, list) = server.get_json("/api/threads/t/artifacts").await;
    assert_eq!(
        list["artifacts"][0]["virtual_path"], "/mnt/user-data/outputs/made.txt",
        "{list}"
    );

    server
        .put_json("/api/skills/demo", json!({"enabled": false}))
        .await;
    let (code, _, err) = sandbox_exec(&env, &vars, "t", "cat /mnt/skills/public/demo/SKILL.md");
    assert_ne!(code, 0);
    assert!(err.contains("No such file"), "{err}");
    server
        .put_json("/api/skills/demo", json!({"enabled": true}))
        .await;
    let (code, out, _) = sandbox_exec(&env, &vars, "t", "cat /mnt/skills/public/demo/SKILL.md");
    assert_eq!(code, 0);
    assert!(out.contains("A demo skill."));
    let (code, _, err) = sandbox_exec(&env, &vars, "t", "exit 3");
    assert_eq!(code, 3, "the command's exit code: {err}");
    // A one-shot command's stderr is the command's own, even with the server's log level;
    // `-v` brings the log lines back.
    let mut info = vars.clone();
    info.push(("ANTLER_LOG_LEVEL".into(), "info".into()));
    let (code, _, err) = sandbox_exec(&env, &info, "t", "echo to-stderr >&2");
    assert_eq!(
        (code, err.as_str()),
        (0, "to-stderr\n"),
        "only the command's stderr"
    );
    let out = env
        .command(&["-v", "sandbox", "exec", "--thread", "t", "--", "true"])
        .envs(info.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("INFO"),
        "-v logs at the configured level"
    );
    server.stop();
    assert!(
        containers(&instance).await.is_empty(),
        "a stopped server leaves no container"
    );
}

#[tokio::test]
async fn a_server_killed_with_sigkill_leaves_nothing_behind_after_a_restart() {
    if !crate::common::docker().await {
        return;
    }
    let env = Env::new();
    let instance = format!("it-{}", uuid_like());
    let vars = docker_env(&env, &instance);
    let server = start(&env, &vars);
    wait_for("the warm container", async || {
        !containers(&instance).await.is_empty()
    })
    .await;
    // An operator command dies mid-way too, leaving its temporary container.
    let mut cli = env
        .command(&["sandbox", "exec", "--thread", "crash", "--", "sleep 120"])
        .envs(vars.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for("the command's container", async || {
        containers(&instance).await.len() >= 2
    })
    .await;
    cli.kill().unwrap();
    let _ = cli.wait();
    server.crash();
    let orphans = containers(&instance).await;
    assert!(orphans.len() >= 2, "the crash left containers: {orphans:?}");
    let orphan_ids: Vec<String> = orphans.iter().map(|c| c.id.clone()).collect();

    let restarted = start(&env, &vars);
    let now = containers(&instance).await;
    assert!(
        now.iter().all(|c| !orphan_ids.contains(&c.id)),
        "reconciliation removed every orphan: {now:?}"
    );
    restarted.stop();
    assert!(containers(&instance).await.is_empty());
}

#[tokio::test]
async fn the_local_provider_gates_host_commands() {
    let env = Env::new();
    let local = vec![("ANTLER_SANDBOX_PROVIDER".to_string(), "local".to_string())];
    let (code, _, err) = sandbox_exec(&env, &local, "t", "echo hi");
    assert_eq!(code, 1);
    assert!(err.contains("command execution is disabled"), "{err}");
    let mut allowed = local;
    allowed.push(("ANTLER_SANDBOX_ALLOW_HOST_BASH".into(), "true".into()));
    let (code, out, err) = sandbox_exec(
        &env,
        &allowed,
        "t",
        "pwd; echo x > /mnt/user-data/outputs/h.txt",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), "/mnt/user-data/workspace");
    assert!(env.user_data("t").join("outputs/h.txt").is_file());
}

pub(crate) fn uuid_like() -> String {
    format!(
        "{:x}{:x}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

#[tokio::test]
async fn ls_lists_and_prune_removes_only_what_stopped_servers_left() {
    if !crate::common::docker().await {
        return;
    }
    let env = Env::new();
    let instance = format!("it-{}", uuid_like());
    let vars = docker_env(&env, &instance);
    let cli = |args: &[&str]| {
        let out = env
            .command(args)
            .envs(vars.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let server = start(&env, &vars);
    wait_for("the warm container", async || {
        !containers(&instance).await.is_empty()
    })
    .await;
    let listed = cli(&["sandbox", "ls"]);
    assert!(
        listed.contains(&instance) && listed.contains("(warm)"),
        "{listed}"
    );
    // Several arguments arrive as given, quoting included.
    let out = env
        .command(&[
            "sandbox",
            "exec",
            "--thread",
            "q",
            "--",
            "python3",
            "-c",
            "print(6 * 7)",
        ])
        .envs(vars.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "42", "{out:?}");
    let pruned = cli(&["sandbox", "prune"]);
    assert!(pruned.starts_with("removed 0 container(s)"), "{pruned}");
    assert!(
        !containers(&instance).await.is_empty(),
        "a running server keeps its own"
    );
    server.crash();
    let pruned = cli(&["sandbox", "prune"]);
    assert!(!pruned.starts_with("removed 0 container(s)"), "{pruned}");
    assert!(containers(&instance).await.is_empty(), "{pruned}");
}

#[tokio::test]
async fn auto_falls_back_to_the_local_provider_with_a_warning() {
    let env = Env::new();
    let server = env.start_with(&[
        ("ANTLER_SANDBOX_PROVIDER", "auto"),
        (
            "ANTLER_SANDBOX_DOCKER_HOST",
            "unix:///nonexistent/docker.sock",
        ),
    ]);
    let (status, health) = server.get_json("/health").await;
    assert_eq!(status, 200);
    assert_eq!(health["sandbox"], "local", "{health}");
    let warnings = health["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains("Docker is not usable")),
        "{health}"
    );
}

#[tokio::test]
async fn a_relative_data_dir_works_with_docker() {
    if !crate::common::docker().await {
        return;
    }
    let env = Env::new();
    let instance = format!("it-{}", uuid_like());
    let mut vars = docker_env(&env, &instance);
    // The default is `./data`: relative to the working directory (the installation root).
    vars.retain(|(k, _)| k != "ANTLER_DATA_DIR");
    vars.push(("ANTLER_DATA_DIR".into(), "data".into()));
    let server = start(&env, &vars);
    wait_for("the warm container", async || {
        containers(&instance)
            .await
            .iter()
            .any(|c| c.state == "running")
    })
    .await;
    let (code, out, err) = sandbox_exec(
        &env,
        &vars,
        "rel",
        "echo made > /mnt/user-data/outputs/r.txt && cat /mnt/user-data/outputs/r.txt",
    );
    assert_eq!((code, out.trim()), (0, "made"), "{err}");
    assert!(env.user_data("rel").join("outputs/r.txt").is_file());
    server.stop();
}

#[tokio::test]
async fn an_uploaded_file_is_readable_and_writable_work_lands_in_outputs_in_docker() {
    if !crate::common::docker().await {
        return;
    }
    let env = Env::new();
    let instance = format!("it-{}", uuid_like());
    let script = r#"
scenarios:
  - match: "profile"
    turns:
      - tool_calls:
          - {name: bash, arguments: {command: "id -u; cat /mnt/user-data/uploads/hello.txt && wc -l < /mnt/user-data/uploads/hello.txt > /mnt/user-data/outputs/lines.txt && cat /mnt/user-data/outputs/lines.txt"}}
      - content: "done"
  - match: ""
    turns: [{content: "ok"}]
"#;
    let model = mock_llm(script).await;
    let vars = docker_env(&env, &instance);
    let mut all: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    all.push(("ANTLER_AGENT_GENERATE_TITLES", "false"));
    let server = env.start_agent(&model, &all);
    server.create_thread("t").await;
    let form = reqwest::multipart::Form::new().part(
        "files",
        reqwest::multipart::Part::bytes(b"hello from the person\nsecond line\n".to_vec())
            .file_name("hello.txt"),
    );
    let response = server
        .http
        .post(server.url("/api/threads/t/uploads"))
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let (status, values) = server
        .post_json(
            "/api/threads/t/runs/wait",
            run_body("please profile it", &["values"]),
        )
        .await;
    assert_eq!(status, 200, "{values}");
    let tool = values["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["type"] == "tool")
        .unwrap_or_else(|| panic!("no tool result: {values}"));
    let out = tool["content"].as_str().unwrap();
    assert!(
        out.contains("hello from the person") && out.contains("[exit code: 0]"),
        "the container user reads the upload and writes outputs: {out}"
    );
    if rustix::process::getuid().is_root() {
        assert!(
            out.starts_with("1000\n"),
            "commands run as the sandbox user: {out}"
        );
    }
    let lines = std::fs::read_to_string(env.user_data("t").join("outputs/lines.txt")).unwrap();
    assert_eq!(lines.trim(), "2");
    // Nothing of the upload was staged where the agent looks.
    let hidden: Vec<_> = std::fs::read_dir(env.user_data("t").join("uploads"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(hidden.is_empty(), "{hidden:?}");
    drop(server);
    wait_for("the containers to go", async || {
        containers(&instance).await.is_empty()
    })
    .await;
}

/// `antler sandbox doctor` names the image and what it holds, found in a throwaway
/// container that it removes again; a missing image is a clear failure.
#[tokio::test]
async fn the_doctor_reports_what_the_image_holds() {
    if !crate::common::docker().await {
        return;
    }
    let env = Env::new();
    let instance = format!("it-{}", uuid_like());
    let vars = docker_env(&env, &instance);
    let before = admin::list(&connect(&SandboxConfig::default()).unwrap(), None)
        .await
        .unwrap()
        .len();
    let out = env
        .command(&["sandbox", "doctor", "--json"])
        .envs(vars.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["image"]["variant"], "slim", "{report}");
    let has = |kind: &str, name: &str| {
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["kind"] == kind && c["name"] == name)
            .unwrap_or_else(|| panic!("{kind} {name} not checked: {report}"))["present"]
            .as_bool()
            .unwrap()
    };
    // slim: the shell and Python, none of the document tools.
    assert!(has("program", "python3") && has("program", "bash"));
    assert!(!has("program", "soffice") && !has("python", "numpy") && !has("font", "cjk"));
    assert!(report["manifest"].is_null(), "slim carries no manifest");

    // The plain report says the same in words.
    let out = env
        .command(&["sandbox", "doctor"])
        .envs(vars.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("(slim, ") && text.contains("missing: ") && text.contains("soffice"),
        "{text}"
    );

    // No probe container is left behind.
    let after = admin::list(&connect(&SandboxConfig::default()).unwrap(), None)
        .await
        .unwrap();
    assert!(
        after.iter().all(|c| !c.name.starts_with("antler-doctor-")),
        "{after:?} (before: {before})"
    );

    // An image that does not exist: a failure that says so.
    let out = env
        .command(&["sandbox", "doctor", "--image", "antler-sandbox:no-such-tag"])
        .envs(vars.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("antler-sandbox:no-such-tag not found"),
        "{err}"
    );
}

/// With no image configured the server uses full; where full was never built (`make test`
/// builds only slim) it uses slim and says so in /health.
#[tokio::test]
async fn the_default_image_is_full_or_slim_with_a_warning() {
    if !crate::common::docker().await {
        return;
    }
    let env = Env::new();
    let instance = format!("it-{}", uuid_like());
    let mut vars = docker_env(&env, &instance);
    vars.push(("ANTLER_SANDBOX_IMAGE".into(), "antler-sandbox:full".into()));
    let full_exists = connect(&SandboxConfig::default())
        .unwrap()
        .inspect_image("antler-sandbox:full")
        .await
        .is_ok();
    let server = start(&env, &vars);
    let (_, health) = server.get_json("/health").await;
    let warnings = health["warnings"].to_string();
    if full_exists {
        assert_eq!(
            health["sandbox_image"]["name"], "antler-sandbox:full",
            "{health}"
        );
        assert!(!warnings.contains("antler-sandbox:slim"), "{health}");
        // What it holds, in the line its label gives.
        let contents = health["sandbox_image"]["contents"]
            .as_str()
            .unwrap_or_default();
        assert!(
            contents.contains("LibreOffice") && contents.contains("CJK"),
            "{health}"
        );
    } else {
        assert_eq!(
            health["sandbox_image"]["name"], "antler-sandbox:slim",
            "{health}"
        );
        assert!(
            warnings.contains("antler-sandbox:full not found")
                && warnings.contains("using antler-sandbox:slim"),
            "{health}"
        );
    }
}

/// A custom agent's `sandbox_image` (admins only) is what its threads' containers start
/// from; a missing image is a clear tool error; others may not set it.
#[tokio::test]
async fn an_agent_s_sandbox_image_is_used_and_only_admins_set_it() {
    if !crate::common::docker().await {
        return;
    }
    let docker = connect(&SandboxConfig::default()).unwrap();
    // A second name for the tests' image: the agent's, told apart by the container's config.
    let tag = format!("it-agent-{}", uuid_like());
    let agent_image = format!("antler-sandbox:{tag}");
    docker
        .tag_image(
            &crate::common::sandbox_image(),
            Some(
                bollard::query_parameters::TagImageOptionsBuilder::new()
                    .repo("antler-sandbox")
                    .tag(&tag)
                    .build(),
            ),
        )
        .await
        .unwrap();
    let env = Env::new();
    let instance = format!("it-{}", uuid_like());
    let script = r#"
scenarios:
  - match: "where"
    turns:
      - tool_calls:
          - {name: bash, arguments: {command: "echo inside"}}
      - content: "done"
  - match: ""
    turns: [{content: "ok"}]
"#;
    let model = mock_llm(script).await;
    let vars = docker_env(&env, &instance);
    let mut all: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    all.push(("ANTLER_AGENT_GENERATE_TITLES", "false"));
    let server = env.start_agent(&model, &all);

    // Someone who is not an admin may not choose it.
    let alice =
        crate::common::client_with(Some(&crate::auth::user(&server, "alice@antler.test").await));
    let refused = alice
        .post(server.url("/api/assistants"))
        .json(&json!({"graph_id": "agent", "name": "mine", "context": {"sandbox_image": agent_image}}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 403);
    let body: serde_json::Value = refused.json().await.unwrap();
    assert_eq!(crate::common::error_code(&body), "admin_required", "{body}");
    // Not an image reference: refused for anyone.
    let (status, body) = server
        .post_json(
            "/api/assistants",
            json!({"graph_id": "agent", "name": "bad", "context": {"sandbox_image": "--privileged x"}}),
        )
        .await;
    assert_eq!(status, 422, "{body}");

    let make = async |name: &str, image: &str| {
        let (status, agent) = server
            .post_json(
                "/api/assistants",
                json!({"graph_id": "agent", "name": name, "context": {"sandbox_image": image}}),
            )
            .await;
        assert_eq!(status, 200, "{agent}");
        agent["assistant_id"].as_str().unwrap().to_string()
    };
    let run = async |thread: &str, assistant: &str| {
        server.create_thread(thread).await;
        let (status, values) = server
            .post_json(
                &format!("/api/threads/{thread}/runs/wait"),
                json!({"assistant_id": assistant, "input": {"messages": [{"role": "user", "content": "where am I"}]}}),
            )
            .await;
        assert_eq!(status, 200, "{values}");
        values["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["type"] == "tool")
            .unwrap_or_else(|| panic!("no tool result: {values}"))["content"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let agent = make("tagged", &agent_image).await;
    let out = run("with-image", &agent).await;
    assert!(out.contains("inside"), "{out}");
    let container = admin::find_thread_container(&docker, &instance, "with-image")
        .await
        .unwrap()
        .expect("the thread's container");
    let inspected = docker
        .inspect_container(
            &container,
            None::<bollard::query_parameters::InspectContainerOptions>,
        )
        .await
        .unwrap();
    assert_eq!(
        inspected.config.unwrap().image.as_deref(),
        Some(agent_image.as_str())
    );

    // The built-in agent in another thread: the server's image (a warm container).
    let out = run("plain", "lead_agent").await;
    assert!(out.contains("inside"), "{out}");
    let plain = admin::find_thread_container(&docker, &instance, "plain")
        .await
        .unwrap()
        .expect("the thread's container");
    let inspected = docker
        .inspect_container(
            &plain,
            None::<bollard::query_parameters::InspectContainerOptions>,
        )
        .await
        .unwrap();
    assert_eq!(
        inspected.config.unwrap().image.as_deref(),
        Some(crate::common::sandbox_image().as_str())
    );

    // An image the engine does not have: the command fails saying so, the run still ends.
    let missing = make("missing", "antler-sandbox:no-such-tag").await;
    let out = run("missing-image", &missing).await;
    assert!(
        out.contains("antler-sandbox:no-such-tag is not on the Docker engine"),
        "{out}"
    );

    drop(server);
    let _ = docker
        .remove_image(
            &agent_image,
            None::<bollard::query_parameters::RemoveImageOptions>,
            None,
        )
        .await;
    wait_for("the containers to go", async || {
        containers(&instance).await.is_empty()
    })
    .await;
}
