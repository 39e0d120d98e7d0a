//! A `sandboxed` MCP server: the real mcp-server-time (PyPI) started inside each thread's
//! Docker sandbox over the exec stream, one instance per thread, stopped with a restart.

use serde_json::Value;

use crate::common::{Env, mock_llm, wait_for};
use crate::mcp::{run, servers, start, status, tool_result};
use crate::sandbox::{docker_env, sandbox_exec, uuid_like};

const SCRIPT: &str = r#"scenarios:
  - match: "what time"
    turns:
      - tool_calls: [{name: mcp__clock__get_current_time, arguments: {timezone: "Asia/Tokyo"}}]
      - content: "now"
  - match: ""
    turns:
      - content: "ok"
"#;

/// The server's Python packages, copied where the thread's sandbox sees them (the server
/// runs on the sandbox's own Python, 3.11 as on the host).
fn give_packages(env: &Env, thread: &str, python: &str) {
    let venv = std::path::Path::new(python)
        .parent()
        .and_then(|bin| bin.parent())
        .unwrap();
    let target = env.user_data(thread).join("workspace/.mcp");
    std::fs::create_dir_all(&target).unwrap();
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(venv.join("lib/python3.11/site-packages"))
        .arg(&target)
        .status()
        .unwrap();
    assert!(status.success());
}

fn processes(env: &Env, vars: &[(String, String)], thread: &str) -> String {
    let (code, out, err) = sandbox_exec(env, vars, thread, "ps -eo args");
    assert_eq!(code, 0, "{out}{err}");
    out
}

#[tokio::test]
async fn a_sandboxed_server_runs_inside_each_threads_sandbox() {
    if !crate::common::docker().await {
        return;
    }
    let Some(s) = servers() else { return };
    let env = Env::new();
    let model = mock_llm(SCRIPT).await;
    let vars = docker_env(&env, &format!("it-mcp-{}", uuid_like()));
    let extra: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let config = "clock:\n  command: python3\n  args: [-m, mcp_server_time, --local-timezone, UTC]\n  sandboxed: true\n  env: {PYTHONPATH: /mnt/user-data/workspace/.mcp/site-packages}\n";
    let server = start(&env, &model, config, &extra);
    let clock = status(&server, "clock").await;
    assert_eq!(clock["sandboxed"], true, "{clock}");
    assert_eq!(clock["state"], "idle", "{clock}");

    // Thread t has the server's packages: the call is answered from inside its sandbox.
    server.create_thread("t").await;
    give_packages(&env, "t", &s.python);
    let values = run(&server, "t", "what time").await;
    let result = tool_result(&values);
    assert_ne!(result["status"], "error", "{result}");
    let content = result["content"].as_str().unwrap_or_default();
    assert!(content.contains("Asia/Tokyo"), "{content}");
    let ps = processes(&env, &vars, "t");
    assert!(ps.contains("mcp_server_time"), "not in the sandbox: {ps}");
    let clock = status(&server, "clock").await;
    assert_eq!(clock["state"], "connected", "{clock}");
    assert_eq!(clock["running_in_threads"], 1, "{clock}");
    // Its tools are each person's (listed in their sandbox): the status shows none.
    assert_eq!(clock["tools"], serde_json::json!([]), "{clock}");

    // Thread u's sandbox has no such packages: its own instance fails there, t's is untouched.
    let values = run(&server, "u", "what time").await;
    let result: &Value = tool_result(&values);
    assert_eq!(result["status"], "error", "{result}");
    assert!(
        result["content"]
            .as_str()
            .is_some_and(|c| c.contains("clock")),
        "{result}"
    );
    assert_eq!(status(&server, "clock").await["running_in_threads"], 1);
    let again = run(&server, "t", "what time").await;
    assert_ne!(tool_result(&again)["status"], "error", "{again}");

    // A restart stops every thread's instance, inside the container.
    let (code, body) = server.post("/api/mcp/servers/clock/restart").await;
    assert!((200..300).contains(&code), "{code} {body}");
    wait_for("the server to stop in the sandbox", async || {
        !processes(&env, &vars, "t").contains("mcp_server_time")
    })
    .await;
    assert_eq!(status(&server, "clock").await["running_in_threads"], 0);
    // The next run starts it again.
    let values = run(&server, "t", "what time").await;
    assert_ne!(tool_result(&values)["status"], "error", "{values}");
    assert_eq!(status(&server, "clock").await["running_in_threads"], 1);

    // Deleting the thread removes its sandbox and the server in it.
    let (code, _) = server.delete("/api/threads/t").await;
    assert_eq!(code, 204);
    wait_for("the instance to end with its sandbox", async || {
        status(&server, "clock").await["running_in_threads"] == 0
    })
    .await;
}
