//! Egress through the server: a run's `bash` call reaches an allowed host through the
//! sandbox's proxy, a refused one is named in the tool result, the connections stream as a
//! `network` event, and only admins give an agent its own policy.

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common::{Env, error_code, mock_llm, read_sse};
use crate::sandbox::{docker_env, uuid_like};

/// An HTTP server on 127.0.0.2 (the test's "outside") answering every request with `body`.
async fn outside(body: &'static str) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.2:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(reply.as_bytes()).await;
            });
        }
    });
    port
}

#[tokio::test]
async fn a_run_reaches_allowed_hosts_only_and_the_connections_are_reported() {
    if !crate::common::docker().await {
        return;
    }
    let port = outside("fetched through the proxy").await;
    let fetch = format!(
        "python3 -c \\\"import urllib.request as u; print(u.urlopen('http://127.0.0.2:{port}/data').read().decode())\\\"; python3 -c \\\"import urllib.request as u; u.urlopen('http://blocked.example/')\\\" 2>&1 | tail -1"
    );
    let script = format!(
        r#"
scenarios:
  - match: "fetch"
    turns:
      - tool_calls:
          - {{name: bash, arguments: {{command: "{fetch}"}}}}
      - content: "done"
  - match: ""
    turns: [{{content: "ok"}}]
"#
    );
    let model = mock_llm(&script).await;
    let env = Env::new();
    let instance = format!("it-{}", uuid_like());
    let mut vars = docker_env(&env, &instance);
    vars.push(("ANTLER_SANDBOX_NETWORK".into(), "allowlist".into()));
    vars.push((
        "ANTLER_SANDBOX_EGRESS_ALLOWED_DOMAINS".into(),
        format!("127.0.0.2:{port},@packages"),
    ));
    vars.push(("ANTLER_AGENT_GENERATE_TITLES".into(), "false".into()));
    let all: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let server = env.start_agent(&model, &all);

    let response = server
        .stream_run(
            "net",
            json!({"assistant_id": "lead_agent", "if_not_exists": "create",
                "input": {"messages": [{"role": "user", "content": "fetch it"}]},
                "stream_mode": ["values", "custom"]}),
        )
        .await;
    let events = read_sse(response, |_| false).await;
    let network: Vec<_> = events
        .iter()
        .filter(|e| e.event == "custom" && e.data["type"] == "network")
        .collect();
    assert_eq!(network.len(), 1, "{events:?}");
    let connections = network[0].data["connections"].as_array().unwrap();
    let hosts: Vec<(&str, bool)> = connections
        .iter()
        .map(|c| (c["host"].as_str().unwrap(), c["allowed"].as_bool().unwrap()))
        .collect();
    assert_eq!(hosts, [("127.0.0.2", true), ("blocked.example", false)]);
    assert!(connections[0]["bytes_received"].as_u64().unwrap() > 20);
    let values = &events
        .iter()
        .rev()
        .find(|e| e.event == "values")
        .unwrap()
        .data;
    let tool = values["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["type"] == "tool")
        .unwrap();
    let content = tool["content"].as_str().unwrap();
    assert!(content.contains("fetched through the proxy"), "{content}");
    assert!(
        content.contains("403"),
        "the command saw the refusal: {content}"
    );
    assert!(
        content.contains("[network: 2 hosts")
            && content.contains(
                "refused blocked.example:80: blocked.example is not in the egress allow-list"
            ),
        "{content}"
    );
    assert_eq!(
        tool["artifact"]["network"].as_array().map(Vec::len),
        Some(2),
        "{tool}"
    );

    // An agent's own policy is an admin's to set, and is checked.
    let alice =
        crate::common::client_with(Some(&crate::auth::user(&server, "alice@antler.test").await));
    let refused = alice
        .post(server.url("/api/assistants"))
        .json(&json!({"graph_id": "agent", "name": "open", "context": {"sandbox_network": {"mode": "open"}}}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 403);
    let body: serde_json::Value = refused.json().await.unwrap();
    assert_eq!(error_code(&body), "admin_required", "{body}");
    let (status, body) = server
        .post_json(
            "/api/assistants",
            json!({"graph_id": "agent", "name": "bad", "context": {"sandbox_network": {"allowed_domains": ["@nope"]}}}),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert!(body.to_string().contains("allowed_domains[0]"), "{body}");
    // An agent with no network: the same command is refused by the policy's mode.
    let (status, agent) = server
        .post_json(
            "/api/assistants",
            json!({"graph_id": "agent", "name": "offline", "context": {"sandbox_network": {"mode": "none"}}}),
        )
        .await;
    assert_eq!(status, 200, "{agent}");
    assert_eq!(
        agent["context"]["sandbox_network"]["mode"], "none",
        "{agent}"
    );
    let values = server
        .run_wait(
            "offline",
            agent["assistant_id"].as_str().unwrap(),
            "fetch again",
        )
        .await;
    let tool = values["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["type"] == "tool")
        .unwrap();
    let content = tool["content"].as_str().unwrap();
    assert!(!content.contains("fetched through the proxy"), "{content}");
    assert!(!content.contains("[network:"), "{content}");
}

#[tokio::test]
async fn the_local_provider_says_it_cannot_hold_a_network_policy() {
    let env = Env::new();
    let server = env.start_with(&[
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_SANDBOX_ALLOW_HOST_BASH", "true"),
        ("ANTLER_SANDBOX_NETWORK", "allowlist"),
        ("ANTLER_SANDBOX_EGRESS_ALLOWED_DOMAINS", "pypi.org"),
    ]);
    let (_, health) = server.get_json("/health").await;
    assert!(
        health["warnings"]
            .to_string()
            .contains("sandbox.network is allowlist, but the local provider"),
        "{health}"
    );
    // A bad entry stops the server with the key named.
    let out = env
        .command(&["serve", "--bind", "127.0.0.1:0"])
        .env("ANTLER_SANDBOX_EGRESS_ALLOWED_DOMAINS", "not a host")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("sandbox.egress.allowed_domains[0]"),
        "{stderr}"
    );
}
