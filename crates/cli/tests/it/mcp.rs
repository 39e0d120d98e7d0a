//! MCP servers nobody here wrote, installed from the registries by scripts/mcp-servers.sh:
//! the reference server-everything (npm) over stdio and streamable HTTP, and mcp-server-time
//! (PyPI, the Python SDK). Calls go through scripted runs, as the model makes them.

use serde_json::{Value, json};

use crate::common::{Env, Server, mock_llm, model_requests};

/// The installed servers (`ANTLER_TEST_MCP_*`); `None` skips, unless `make test` requires them.
pub(crate) struct Servers {
    pub(crate) node: String,
    pub(crate) everything: String,
    pub(crate) python: String,
    pub(crate) time: String,
}

pub(crate) fn servers() -> Option<Servers> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    match (
        var("ANTLER_TEST_MCP_NODE"),
        var("ANTLER_TEST_MCP_EVERYTHING"),
        var("ANTLER_TEST_MCP_PYTHON"),
        var("ANTLER_TEST_MCP_TIME"),
    ) {
        (Some(node), Some(everything), Some(python), Some(time)) => Some(Servers {
            node,
            everything,
            python,
            time,
        }),
        _ => {
            assert!(
                std::env::var_os("ANTLER_REQUIRE_MCP").is_none(),
                "ANTLER_REQUIRE_MCP is set but the ANTLER_TEST_MCP_* variables are not (scripts/mcp-servers.sh)"
            );
            eprintln!("note: MCP tests need scripts/mcp-servers.sh (ANTLER_TEST_MCP_* unset)");
            None
        }
    }
}

/// A server with `mcp_servers` (YAML) and a model that can see.
pub(crate) fn start(env: &Env, model: &str, mcp_servers: &str, extra: &[(&str, &str)]) -> Server {
    let models =
        format!("- {{name: seeing, base_url: \"{model}\", model: mock, supports_vision: true}}\n");
    let mut vars = vec![
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_MODELS", models.as_str()),
        ("ANTLER_AGENT_GENERATE_TITLES", "false"),
        ("ANTLER_MCP_SERVERS", mcp_servers),
    ];
    vars.extend_from_slice(extra);
    env.start_with(&vars)
}

pub(crate) async fn run(server: &Server, thread: &str, text: &str) -> Value {
    server.run_wait(thread, "agent", text).await
}

/// The first tool message of a run's values.
pub(crate) fn tool_result(values: &Value) -> &Value {
    values["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["type"] == "tool")
        .unwrap_or_else(|| panic!("no tool message: {values}"))
}

pub(crate) async fn status(server: &Server, name: &str) -> Value {
    let (code, body) = server.get_json("/api/mcp/servers").await;
    assert_eq!(code, 200, "{body}");
    body["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("no server {name}: {body}"))
}

const EVERYTHING_SCRIPT: &str = r#"scenarios:
  - match: "echo please"
    turns:
      - tool_calls: [{name: mcp__everything__echo, arguments: {message: "hi there"}}]
      - content: "echoed"
  - match: "show the image"
    turns:
      - tool_calls: [{name: mcp__everything__get-tiny-image, arguments: {}}]
      - content: "a logo"
  - match: "bad sum"
    turns:
      - tool_calls: [{name: mcp__everything__get-sum, arguments: {a: "x"}}]
      - content: "it failed"
  - match: "your env"
    turns:
      - tool_calls: [{name: mcp__everything__get-env, arguments: {}}]
      - content: "seen"
  - match: "what time"
    turns:
      - tool_calls: [{name: mcp__time__get_current_time, arguments: {timezone: "UTC"}}]
      - content: "now"
  - match: ""
    turns:
      - content: "ok"
"#;

#[tokio::test]
async fn real_servers_answer_text_images_errors_and_keep_their_secrets() {
    let Some(s) = servers() else { return };
    let env = Env::new();
    let model = mock_llm(EVERYTHING_SCRIPT).await;
    let config = format!(
        "everything:\n  command: {}\n  args: [{}, stdio]\n  env: {{SECRET_TOKEN: \"${{ANTLER_IT_MCP_SECRET}}\"}}\n  description: The reference server\ntime:\n  command: {}\n  args: [--local-timezone, UTC]\n",
        s.node, s.everything, s.time
    );
    let secret = "s3cret-value-4711";
    let server = start(&env, &model, &config, &[("ANTLER_IT_MCP_SECRET", secret)]);

    // Nothing starts before it is needed.
    assert_eq!(status(&server, "everything").await["state"], "idle");

    let values = run(&server, "a", "echo please").await;
    let tool = tool_result(&values);
    assert_eq!(tool["content"], "Echo: hi there", "{tool}");
    assert_eq!(
        tool["artifact"]["mcp"],
        json!({"server": "everything", "tool": "echo"})
    );
    let everything = status(&server, "everything").await;
    assert_eq!(everything["state"], "connected", "{everything}");
    assert_eq!(everything["calls"], 1);
    let names: Vec<&str> = everything["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["model_name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"mcp__everything__get-tiny-image"),
        "{names:?}"
    );
    // The model was offered the tools with their schemas.
    let requests = model_requests(&model).await;
    let offered = requests[0]["tools"].to_string();
    assert!(offered.contains("mcp__everything__echo") && offered.contains("\"message\""));

    // An image reaches a model that can see, after the tool's result.
    let values = run(&server, "b", "show the image").await;
    assert!(
        tool_result(&values)["content"]
            .as_str()
            .unwrap()
            .contains("[image image/png")
    );
    let requests = model_requests(&model).await;
    let last = requests.as_array().unwrap().last().unwrap()["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "user");
    assert!(
        last["content"][1]["image_url"]["url"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png;base64,"),
        "{last}"
    );

    // A tool error is an error the model reads.
    let values = run(&server, "c", "bad sum").await;
    let tool = tool_result(&values);
    assert_eq!(tool["status"], "error", "{tool}");
    assert!(
        tool["content"].as_str().unwrap().starts_with("Error:"),
        "{tool}"
    );
    assert_eq!(status(&server, "everything").await["failed_calls"], 1);

    // The server got its configured variable, expanded, and nothing else of ours; the API
    // never shows the value.
    let values = run(&server, "d", "your env").await;
    let seen = tool_result(&values)["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(seen.contains(secret), "{seen}");
    assert!(
        !seen.contains("ANTLER_"),
        "the server's own variables stay: {seen}"
    );
    let (_, listing) = server.get_json("/api/mcp/servers").await;
    assert!(!listing.to_string().contains(secret));

    // A Python server from PyPI, built on the official SDK.
    let values = run(&server, "e", "what time").await;
    let tool = tool_result(&values);
    assert_eq!(tool["status"], "success", "{tool}");
    assert!(tool["content"].as_str().unwrap().contains("UTC"), "{tool}");
}

#[tokio::test]
async fn streamable_http_servers_are_reached_with_their_headers() {
    http_server("streamableHttp", "streamable_http", "/mcp").await;
}

#[tokio::test]
async fn older_sse_servers_are_reached_too() {
    http_server("sse", "sse", "/sse").await;
}

/// server-everything in `mode` on a free port, configured as `transport` at `path`.
async fn http_server(mode: &str, transport: &str, path: &str) {
    let Some(s) = servers() else { return };
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut http = std::process::Command::new(&s.node)
        .args([s.everything.as_str(), mode])
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let up = async {
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("server-everything did not listen on {port}");
    };
    up.await;
    let env = Env::new();
    let model = mock_llm(EVERYTHING_SCRIPT).await;
    let config = format!(
        "everything:\n  transport: {transport}\n  url: http://127.0.0.1:{port}{path}\n  headers: {{X-Api-Key: \"${{ANTLER_IT_MCP_SECRET}}\"}}\n"
    );
    let server = start(&env, &model, &config, &[("ANTLER_IT_MCP_SECRET", "k")]);
    let values = run(&server, "h", "echo please").await;
    assert_eq!(
        tool_result(&values)["content"],
        "Echo: hi there",
        "{values}"
    );
    assert_eq!(status(&server, "everything").await["transport"], transport);
    let _ = http.kill();
    let _ = http.wait();
}

#[tokio::test]
async fn the_stored_configuration_hides_values_keeps_them_and_outlives_the_yaml() {
    let Some(s) = servers() else { return };
    let env = Env::new();
    let model = mock_llm(EVERYTHING_SCRIPT).await;
    let yaml = format!(
        "everything:\n  command: {}\n  args: [{}, stdio]\n  env: {{SECRET_TOKEN: \"${{ANTLER_IT_MCP_SECRET}}\", LITERAL: \"sk-literal-123\"}}\n",
        s.node, s.everything
    );
    let server = start(&env, &model, &yaml, &[("ANTLER_IT_MCP_SECRET", "v4lue")]);
    let (code, config) = server.get_json("/api/mcp/config").await;
    assert_eq!(code, 200, "{config}");
    let env_view = &config["servers"]["everything"]["env"];
    assert_eq!(
        env_view["SECRET_TOKEN"],
        json!({"variables": ["ANTLER_IT_MCP_SECRET"], "literal": false})
    );
    assert_eq!(
        env_view["LITERAL"],
        json!({"variables": [], "literal": true})
    );
    assert!(!config.to_string().contains("sk-literal-123"));

    // A user may see the servers but not their configuration.
    let other =
        crate::common::client_with(Some(&crate::auth::user(&server, "u@antler.test").await));
    let (code, _) = crate::auth::send(other.get(server.url("/api/mcp/config"))).await;
    assert_eq!(code, 403);

    // Replace: keep the hidden values (null), add the time server.
    let servers_json = json!({
        "everything": {"command": s.node, "args": [s.everything, "stdio"],
            "env": {"SECRET_TOKEN": null, "LITERAL": null}},
        "time": {"command": s.time, "args": ["--local-timezone", "UTC"]},
    });
    let (code, updated) = server
        .put_json("/api/mcp/config", json!({"servers": servers_json.clone()}))
        .await;
    assert_eq!(code, 200, "{updated}");
    assert!(updated["servers"]["time"].is_object());
    assert_eq!(status(&server, "time").await["state"], "idle");
    let values = run(&server, "k", "your env").await;
    let seen = tool_result(&values)["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        seen.contains("v4lue") && seen.contains("sk-literal-123"),
        "{seen}"
    );

    // Invalid changes are refused whole.
    for bad in [
        json!({"x": {"transport": "stdio"}}),
        json!({"x": {"command": "a", "surprise": 1}}),
        json!({"bad name!": {"command": "a"}}),
        json!({"x": {"command": "a", "env": {"NEW": null}}}),
        json!({"x": {"transport": "streamable_http", "url": "ftp://nope"}}),
    ] {
        let (code, answer) = server
            .put_json("/api/mcp/config", json!({"servers": bad}))
            .await;
        assert_eq!(code, 422, "{answer}");
    }
    let (_, config) = server.get_json("/api/mcp/config").await;
    assert_eq!(config["servers"].as_object().unwrap().len(), 2);

    // The database, not the YAML, holds the set from now on.
    drop(server);
    let server = start(&env, &model, "{}", &[]);
    let (_, config) = server.get_json("/api/mcp/config").await;
    assert_eq!(config["servers"].as_object().unwrap().len(), 2, "{config}");
}

#[tokio::test]
async fn a_hidden_value_is_not_kept_for_another_program_or_host() {
    let env = Env::new();
    let server = env.start_with(&[
        ("ANTLER_SKILLS_WATCH", "false"),
        (
            "ANTLER_MCP_SERVERS",
            "gh:\n  transport: streamable_http\n  url: http://127.0.0.1:9/mcp\n  headers: {Authorization: \"Bearer s3cret\"}\n",
        ),
    ]);
    // The same host: the hidden header is kept.
    let (code, _) = server
        .put_json(
            "/api/mcp/config",
            json!({"servers": {"gh": {"transport": "streamable_http", "url": "http://127.0.0.1:9/mcp",
                "headers": {"Authorization": null}, "description": "kept"}}}),
        )
        .await;
    assert_eq!(code, 200);
    // Another host (or a program): it must be sent again.
    for moved in [
        json!({"transport": "streamable_http", "url": "http://evil.example/mcp", "headers": {"Authorization": null}}),
        json!({"transport": "sse", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": null}}),
    ] {
        let (code, answer) = server
            .put_json("/api/mcp/config", json!({"servers": {"gh": moved}}))
            .await;
        assert_eq!(code, 422, "{answer}");
    }
    let (code, answer) = server
        .put_json(
            "/api/mcp/config",
            json!({"servers": {"a__b": {"command": "x"}}}),
        )
        .await;
    assert_eq!(code, 422, "'__' separates server and tool: {answer}");
}
