//! Web research through the server: a scripted run searches (a SearXNG-shaped provider this
//! test serves), reads two pages and writes a cited report; its sources stream as `custom`
//! events and stay in the run's metadata. With private networks closed (the default) the
//! server refuses its own host and the metadata address; only admins set an agent's web.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common::{Env, Server, error_code, mock_llm, model_requests, read_sse};

/// A page server on 127.0.0.1: `/search` answers SearXNG's JSON, `/a` and `/b` are
/// articles; the paths asked for are recorded.
async fn site() -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = asked.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let log = log.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 2048];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&head).to_string();
                let target = head.split(' ').nth(1).unwrap_or("/").to_string();
                log.lock().unwrap().push(target.clone());
                let path = target.split('?').next().unwrap_or("/");
                let (kind, body) = match path {
                    "/search" => ("application/json", search_answer(port).into_bytes()),
                    "/a" => (
                        "text/html",
                        article("Ferris the crab", "Ferris is the unofficial mascot of Rust")
                            .into_bytes(),
                    ),
                    "/b" => (
                        "text/html",
                        article("Corro the urchin", "Corro is the mascot of unsafe Rust")
                            .into_bytes(),
                    ),
                    "/report.pdf" => (
                        "application/pdf",
                        crate::conversions::pdf("Quarterly numbers grew"),
                    ),
                    _ => ("text/plain", b"not here".to_vec()),
                };
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes()).await;
                let _ = stream.write_all(&body).await;
            });
        }
    });
    (port, asked)
}

fn search_answer(port: u16) -> String {
    json!({"query": "rust mascots", "number_of_results": 2, "results": [
        {"url": format!("http://127.0.0.1:{port}/a"), "title": "Ferris", "content": "Rust's crab", "publishedDate": "2026-02-01T00:00:00"},
        {"url": format!("http://127.0.0.1:{port}/b"), "title": "Corro", "content": "The unsafe urchin"},
    ]})
    .to_string()
}

fn article(title: &str, lead: &str) -> String {
    format!(
        "<!doctype html><html><head><title>{title}</title><script>beacon('{title}')</script></head><body>\
         <nav><a href=\"/\">Home</a> <a href=\"/about\">About</a></nav><article><h1>{title}</h1>\
         <p>{lead}, and it appears on stickers, shirts and slides at conferences, meetups and in talks \
         all around the world, year after year.</p><p>Its story is told in many blog posts, with drawings, \
         history and jokes, and a list of <a href=\"/places\">places it shows up</a>, from books to games.</p>\
         <p>Fans keep making new art of it, plush toys, and pins, which is why it is so well known, today.</p>\
         </article><footer>Footer text</footer></body></html>"
    )
}

/// The scripted model of `scenarios` (YAML list items), answering "ok" to anything else.
async fn scripted(scenarios: &str) -> String {
    mock_llm(&format!(
        "scenarios:{scenarios}  - match: \"\"\n    turns: [{{content: \"ok\"}}]\n"
    ))
    .await
}

/// A server whose web tools may reach this test's site on `port` (private networks open,
/// as only tests that serve their own pages do).
fn with_site(env: &Env, model: &str, port: u16, extra: &[(&str, &str)]) -> Server {
    let ports = format!("80,443,{port}");
    let mut vars = vec![
        ("ANTLER_WEB_ALLOW_PRIVATE_NETWORKS", "true"),
        ("ANTLER_WEB_ALLOWED_PORTS", ports.as_str()),
        ("ANTLER_AGENT_GENERATE_TITLES", "false"),
    ];
    vars.extend_from_slice(extra);
    env.start_agent(model, &vars)
}

fn tool_messages(values: &Value) -> Vec<&Value> {
    values["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["type"] == "tool")
        .collect()
}

#[tokio::test]
async fn a_scripted_research_run_searches_reads_two_pages_and_cites_them() {
    let (port, asked) = site().await;
    let base = format!("http://127.0.0.1:{port}");
    let script = format!(
        r##"

  - match: "research"
    turns:
      - tool_calls:
          - {{name: web_search, arguments: {{query: "rust mascots", time_range: year}}}}
      - tool_calls:
          - {{name: web_fetch, arguments: {{url: "{base}/a"}}}}
          - {{name: web_fetch, arguments: {{url: "{base}/b"}}}}
      - tool_calls:
          - {{name: write_file, arguments: {{path: /mnt/user-data/outputs/mascots.md, content: "# Rust mascots\n\nFerris is the crab [1]; Corro the urchin [2].\n\n## Sources\n[1] Ferris\n[2] Corro\n"}}}}
          - {{name: present_files, arguments: {{filepaths: [/mnt/user-data/outputs/mascots.md]}}}}
      - content: "Ferris is Rust's crab [1] and Corro its unsafe urchin [2]. The report is mascots.md."
"##
    );
    let model = scripted(&script).await;
    let env = Env::new();
    let server = with_site(
        &env,
        &model,
        port,
        &[
            ("ANTLER_WEB_SEARCH_PROVIDER", "searxng"),
            ("ANTLER_WEB_SEARCH_BASE_URL", &base),
        ],
    );
    let response = server
        .stream_run(
            "research",
            json!({"assistant_id": "lead_agent", "if_not_exists": "create",
                "input": {"messages": [{"role": "user", "content": "research rust mascots"}]},
                "stream_mode": ["values", "custom"]}),
        )
        .await;
    // Read to the end of the stream: the connection goes back to the pool whole.
    let events = read_sse(response, |_| false).await;
    let sources: Vec<&Value> = events
        .iter()
        .filter(|e| e.event == "custom" && e.data["type"] == "sources")
        .map(|e| &e.data)
        .collect();
    assert_eq!(sources.len(), 3, "one per call: {sources:?}");
    let indexes: Vec<Vec<u64>> = sources
        .iter()
        .map(|s| {
            s["sources"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["index"].as_u64().unwrap())
                .collect()
        })
        .collect();
    assert!(
        indexes.contains(&vec![1, 2]) && indexes.contains(&vec![1]) && indexes.contains(&vec![2]),
        "{indexes:?}"
    );

    let values = &events
        .iter()
        .rev()
        .find(|e| e.event == "values")
        .unwrap()
        .data;
    let tools = tool_messages(values);
    let search = tools.iter().find(|m| m["name"] == "web_search").unwrap();
    let text = search["content"].as_str().unwrap();
    assert!(
        text.contains(&format!("[1] Ferris\n    {base}/a")) && text.contains("[2] Corro"),
        "{text}"
    );
    assert!(text.contains("Published: 2026-02-01"), "{text}");
    let reads: Vec<&str> = tools
        .iter()
        .filter(|m| m["name"] == "web_fetch")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(reads.len(), 2);
    assert!(
        reads[0].contains("Source: [1]") && reads[0].contains("unofficial mascot of Rust"),
        "{}",
        reads[0]
    );
    assert!(
        reads[0].contains("Title: Ferris the crab") && reads[0].contains("Content-Type: text/html"),
        "{}",
        reads[0]
    );
    assert!(
        reads[0].contains(&format!("({base}/places)")),
        "links are kept, made absolute: {}",
        reads[0]
    );
    assert!(
        !reads[0].contains("beacon"),
        "scripts are dropped: {}",
        reads[0]
    );
    assert!(
        reads[1].contains("Source: [2]") && reads[1].contains("unsafe Rust"),
        "{}",
        reads[1]
    );
    let answer = values["messages"].as_array().unwrap().last().unwrap();
    assert!(answer["content"].as_str().unwrap().contains("[1]"));
    let report =
        std::fs::read_to_string(env.user_data("research").join("outputs/mascots.md")).unwrap();
    assert!(report.contains("[1]") && report.contains("[2]"), "{report}");

    // The run's metadata keeps every source for API clients.
    let (_, runs) = server.get_json("/api/threads/research/runs").await;
    let run = &runs[0];
    let kept = run["metadata"]["sources"].as_array().unwrap();
    assert_eq!(kept.len(), 2, "{run}");
    assert_eq!(kept[0]["url"], format!("{base}/a"));
    assert_eq!(
        (kept[0]["kind"].as_str(), kept[0]["domain"].as_str()),
        (Some("fetch"), Some("127.0.0.1"))
    );
    assert_eq!(kept[1]["title"], "Corro");

    // The model was told how to cite, and offered both tools.
    let requests = model_requests(&model).await;
    let first = &requests[0];
    let system = first["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("<web>") && system.contains("as [n]"),
        "{system}"
    );
    let offered: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        offered.contains(&"web_search") && offered.contains(&"web_fetch"),
        "{offered:?}"
    );
    let asked = asked.lock().unwrap().clone();
    assert!(
        asked[0].starts_with("/search?") && asked[0].contains("time_range=year"),
        "{asked:?}"
    );
    assert!(
        asked.contains(&"/a".to_string()) && asked.contains(&"/b".to_string()),
        "{asked:?}"
    );
}

#[tokio::test]
async fn with_private_networks_closed_the_server_refuses_internal_targets_by_rule() {
    let (port, asked) = site().await;
    let script = format!(
        r#"

  - match: "internal"
    turns:
      - tool_calls:
          - {{name: web_fetch, arguments: {{url: "http://127.0.0.1:{port}/a"}}}}
          - {{name: web_fetch, arguments: {{url: "http://169.254.169.254/latest/meta-data/"}}}}
          - {{name: web_fetch, arguments: {{url: "file:///etc/passwd"}}}}
          - {{name: web_search, arguments: {{query: "anything"}}}}
      - content: "refused"
"#
    );
    let model = scripted(&script).await;
    let env = Env::new();
    let ports = format!("80,443,{port}");
    let server = env.start_agent(
        &model,
        &[
            ("ANTLER_WEB_ALLOWED_PORTS", &ports),
            ("ANTLER_WEB_SEARCH_PROVIDER", "tavily"),
            ("ANTLER_AGENT_GENERATE_TITLES", "false"),
        ],
    );
    // No key: the admin sees it on /health (the test's environment has none).
    let (_, health) = server.get_json("/health").await;
    assert!(
        health["warnings"]
            .to_string()
            .contains("TAVILY_API_KEY is not set"),
        "{health}"
    );
    let values = server
        .run_wait("closed", "lead_agent", "internal targets")
        .await;
    let contents: Vec<&str> = tool_messages(&values)
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert!(
        contents[0].contains("127.0.0.1 is a loopback address")
            && contents[0].contains("allow_private_networks is off"),
        "{}",
        contents[0]
    );
    assert!(
        contents[1].contains("the cloud metadata address"),
        "{}",
        contents[1]
    );
    assert!(
        contents[2].contains("only http and https"),
        "{}",
        contents[2]
    );
    assert!(
        contents[3].contains("TAVILY_API_KEY is not set"),
        "{}",
        contents[3]
    );
    assert!(
        contents.iter().all(|c| c.starts_with("Error:")),
        "{contents:?}"
    );
    assert!(
        asked.lock().unwrap().is_empty(),
        "the server's own host was never contacted"
    );
    let (_, runs) = server.get_json("/api/threads/closed/runs").await;
    assert!(runs[0]["metadata"].get("sources").is_none(), "{runs}");
}

#[tokio::test]
async fn an_agents_web_is_an_admins_to_set_and_can_turn_the_tools_off() {
    let model = scripted("\n").await;
    let env = Env::new();
    let server = env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")]);
    let alice =
        crate::common::client_with(Some(&crate::auth::user(&server, "alice@antler.test").await));
    let refused = alice
        .post(server.url("/api/assistants"))
        .json(
            &json!({"graph_id": "agent", "name": "webby", "context": {"web": {"enabled": false}}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 403);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(error_code(&body), "admin_required", "{body}");
    for bad in [
        json!({"allowed_domains": ["not a host"]}),
        json!({"blocked_domains": ["@packages"]}),
        json!({"enabled": "yes"}),
        json!({"unknown": true}),
    ] {
        let (status, body) = server
            .post_json(
                "/api/assistants",
                json!({"graph_id": "agent", "name": "bad", "context": {"web": bad}}),
            )
            .await;
        assert_eq!(status, 422, "{bad}: {body}");
        error_code(&body);
    }
    let (status, agent) = server
        .post_json(
            "/api/assistants",
            json!({"graph_id": "agent", "name": "offline", "context": {"web": {"enabled": false}}}),
        )
        .await;
    assert_eq!(status, 200, "{agent}");
    server
        .run_wait("off", agent["assistant_id"].as_str().unwrap(), "hello")
        .await;
    server.run_wait("on", "lead_agent", "hello again").await;
    let requests = model_requests(&model).await;
    let names = |r: &Value| -> Vec<String> {
        r["tools"]
            .as_array()
            .map(|t| {
                t.iter()
                    .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let requests = requests.as_array().unwrap();
    assert!(
        !names(&requests[0]).contains(&"web_fetch".to_string()),
        "off for the agent"
    );
    let system = requests[0]["messages"][0]["content"].as_str().unwrap();
    assert!(!system.contains("<web>"), "{system}");
    let last = requests.last().unwrap();
    assert!(
        names(last).contains(&"web_fetch".to_string()),
        "on by default"
    );
    assert!(
        !names(last).contains(&"web_search".to_string()),
        "no provider, no search"
    );
}

#[tokio::test]
async fn a_pdf_is_read_in_the_sandbox_or_refused_with_the_reason() {
    if !crate::common::docker().await || !crate::conversions::full_image().await {
        return;
    }
    let (port, _) = site().await;
    let script = format!(
        r#"

  - match: "pdf"
    turns:
      - tool_calls:
          - {{name: web_fetch, arguments: {{url: "http://127.0.0.1:{port}/report.pdf"}}}}
      - content: "read"
"#
    );
    let model = scripted(&script).await;
    let env = Env::new();
    let instance = format!("web-{}", crate::sandbox::uuid_like());
    let mut vars = crate::sandbox::docker_env(&env, &instance);
    vars.push(("ANTLER_SANDBOX_IMAGE".into(), "antler-sandbox:full".into()));
    let all: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let server = with_site(&env, &model, port, &all);
    let values = server
        .run_wait("pdf-full", "lead_agent", "pdf please")
        .await;
    let read = tool_messages(&values)[0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        read.contains("Quarterly numbers grew") && read.contains("application/pdf"),
        "{read}"
    );
    // The slim image has no PDF reader: the model is told so, and where the file is.
    let (status, slim) = server
        .post_json(
            "/api/assistants",
            json!({"graph_id": "agent", "name": "slim", "context": {"sandbox_image": "antler-sandbox:slim"}}),
        )
        .await;
    assert_eq!(status, 200, "{slim}");
    let values = server
        .run_wait(
            "pdf-slim",
            slim["assistant_id"].as_str().unwrap(),
            "pdf please",
        )
        .await;
    let refused = tool_messages(&values)[0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        refused.starts_with("Error:")
            && refused.contains("no pdftotext")
            && refused.contains("/mnt/user-data/workspace/web/"),
        "{refused}"
    );
}

#[tokio::test]
async fn what_a_subagent_reads_is_numbered_for_the_whole_run() {
    let (port, _) = site().await;
    let script = format!(
        r#"

  - system: "<subagent"
    match: "Read page b"
    turns:
      - tool_calls:
          - {{name: web_fetch, arguments: {{url: "http://127.0.0.1:{port}/b"}}}}
      - content: "Corro is the unsafe mascot [2]."
  - match: "delegate"
    turns:
      - tool_calls:
          - {{name: web_fetch, arguments: {{url: "http://127.0.0.1:{port}/a"}}}}
      - tool_calls:
          - {{name: task, arguments: {{description: "Read B", prompt: "Read page b"}}}}
      - content: "Ferris [1] and Corro [2]."
"#
    );
    let model = scripted(&script).await;
    let env = Env::new();
    let server = with_site(&env, &model, port, &[]);
    let values = server
        .run_wait("delegated", "lead_agent", "delegate the reading")
        .await;
    let task = tool_messages(&values)
        .into_iter()
        .find(|m| m["name"] == "task")
        .unwrap_or_else(|| panic!("no task call: {values}"));
    let numbered = &task["artifact"]["task"]["sources"];
    assert_eq!(numbered.as_array().map(Vec::len), Some(1), "{task}");
    assert_eq!(numbered[0]["index"], 2, "after the lead's own [1]: {task}");
    assert!(numbered[0]["url"].as_str().unwrap().ends_with("/b"));
    // The subagent's run is the thread's too; the lead's keeps every source.
    let (_, runs) = server.get_json("/api/threads/delegated/runs").await;
    let with: Vec<&Value> = runs
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["metadata"]["sources"].is_array())
        .collect();
    assert_eq!(with.len(), 1, "{runs}");
    assert_eq!(
        with[0]["metadata"]["sources"].as_array().map(Vec::len),
        Some(2),
        "{runs}"
    );
}
