//! Traces over OTLP/HTTP to a real receiver (protobuf decoded with `opentelemetry-proto`), and
//! Prometheus metrics at `/metrics`.

use std::sync::{Arc, Mutex};

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;
use serde_json::json;

use crate::auth::{send, user};
use crate::common::{Env, client_with, mock_llm, wait_for};

const SCRIPT: &str = r#"scenarios:
  - system: "<subagent"
    match: "Look around"
    turns:
      - content: "Nothing here"
  - match: "trace me"
    turns:
      - tool_calls:
          - {name: ls, arguments: {path: /mnt/user-data}}
          - {name: task, arguments: {description: "Look", prompt: "Look around", subagent_type: general-purpose}}
      - content: "done"
  - match: ""
    turns:
      - content: "ok"
        usage: {prompt_tokens: 150, completion_tokens: 10}
"#;

/// An OTLP/HTTP collector: every span it was sent.
#[derive(Clone, Default)]
struct Receiver(Arc<Mutex<Vec<Span>>>);

impl Receiver {
    /// Listens on a free port; answers its base URL.
    async fn start(&self) -> String {
        let spans = self.0.clone();
        let app = axum::Router::new().route(
            "/v1/traces",
            axum::routing::post(move |body: axum::body::Bytes| {
                let spans = spans.clone();
                async move {
                    let request = ExportTraceServiceRequest::decode(body).unwrap();
                    let mut got = spans.lock().unwrap();
                    for resource in request.resource_spans {
                        for scope in resource.scope_spans {
                            got.extend(scope.spans);
                        }
                    }
                    (
                        [("content-type", "application/x-protobuf")],
                        Vec::<u8>::new(),
                    )
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        format!("http://{addr}")
    }

    fn spans(&self) -> Vec<Span> {
        self.0.lock().unwrap().clone()
    }
}

fn attr(span: &Span, key: &str) -> Option<String> {
    let value = span
        .attributes
        .iter()
        .find(|a| a.key == key)?
        .value
        .as_ref()?;
    match value.value.as_ref()? {
        AnyValue::StringValue(s) => Some(s.clone()),
        AnyValue::IntValue(i) => Some(i.to_string()),
        AnyValue::BoolValue(b) => Some(b.to_string()),
        AnyValue::DoubleValue(d) => Some(d.to_string()),
        other => Some(format!("{other:?}")),
    }
}

fn children<'s>(spans: &'s [Span], parent: &Span) -> Vec<&'s Span> {
    spans
        .iter()
        .filter(|s| s.parent_span_id == parent.span_id && s.trace_id == parent.trace_id)
        .collect()
}

fn named<'s>(spans: &[&'s Span], name: &str) -> Vec<&'s Span> {
    spans.iter().copied().filter(|s| s.name == name).collect()
}

// Multi-threaded: the receiver must answer the server's last export while the test's
// thread waits, in the server's drop, for it to exit.
#[tokio::test(flavor = "multi_thread")]
async fn a_run_is_one_trace_with_model_tool_and_subagent_spans_under_the_callers_traceparent() {
    let model = mock_llm(SCRIPT).await;
    let receiver = Receiver::default();
    let collector = receiver.start().await;
    let env = Env::new();
    let server = env.start_agent(
        &model,
        &[
            ("ANTLER_TELEMETRY_OTLP_ENDPOINT", collector.as_str()),
            ("OTEL_BSP_SCHEDULE_DELAY", "50"),
            ("ANTLER_AGENT_GENERATE_TITLES", "false"),
        ],
    );
    let trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
    let caller_span = "00f067aa0ba902b7";
    let response = server
        .http
        .post(server.url("/api/threads/traced/runs/wait"))
        .header("traceparent", format!("00-{trace_id}-{caller_span}-01"))
        .json(&json!({"assistant_id": "agent", "if_not_exists": "create",
            "input": {"messages": [{"role": "user", "content": "trace me"}]}}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let run_id = response
        .headers()
        .get("content-location")
        .unwrap()
        .to_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_string();

    let is_run = |s: &Span| attr(s, "antler.run.id").as_deref() == Some(run_id.as_str());
    // The request's span ends after the run's, so it may come in a later batch: wait for both.
    let arrived = |spans: &[Span]| {
        spans
            .iter()
            .find(|s| s.name == "invoke_agent agent" && is_run(s))
            .is_some_and(|run| spans.iter().any(|s| s.span_id == run.parent_span_id))
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !arrived(&receiver.spans()) {
        let names: Vec<_> = receiver
            .spans()
            .iter()
            .map(|s| (s.name.clone(), attr(s, "antler.run.id")))
            .collect();
        assert!(std::time::Instant::now() < deadline, "{run_id}: {names:?}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let spans = receiver.spans();
    let run = spans
        .iter()
        .find(|s| s.name == "invoke_agent agent" && is_run(s))
        .unwrap();
    // The caller's trace, through the request's span.
    assert_eq!(hex::encode(&run.trace_id), trace_id);
    let request = spans
        .iter()
        .find(|s| s.span_id == run.parent_span_id)
        .unwrap();
    assert_eq!(hex::encode(&request.parent_span_id), caller_span);
    assert_eq!(
        attr(request, "http.request.method").as_deref(),
        Some("POST")
    );
    assert_eq!(attr(run, "antler.thread.id").as_deref(), Some("traced"));
    assert_eq!(
        attr(run, "gen_ai.operation.name").as_deref(),
        Some("invoke_agent")
    );
    assert_eq!(attr(run, "antler.run.status").as_deref(), Some("success"));

    // Two model calls of the lead agent, with the GenAI attributes and no contents.
    let under_run = children(&spans, run);
    let chats = named(&under_run, "chat mock");
    assert_eq!(
        chats.len(),
        2,
        "{:?}",
        under_run.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    for chat in &chats {
        assert_eq!(attr(chat, "gen_ai.operation.name").as_deref(), Some("chat"));
        assert_eq!(attr(chat, "gen_ai.request.model").as_deref(), Some("mock"));
        assert!(attr(chat, "gen_ai.usage.input_tokens").is_some());
        assert!(attr(chat, "gen_ai.usage.output_tokens").is_some());
        assert!(
            attr(chat, "gen_ai.input.messages").is_none(),
            "content is off by default"
        );
    }
    let finishes: Vec<_> = chats
        .iter()
        .filter_map(|c| attr(c, "gen_ai.response.finish_reasons"))
        .collect();
    assert!(finishes.contains(&"tool_calls".to_string()), "{finishes:?}");

    // The tool call, and the subagent's whole run inside its `task` call.
    let ls = named(&under_run, "execute_tool ls");
    assert_eq!(ls.len(), 1);
    assert_eq!(attr(ls[0], "gen_ai.tool.name").as_deref(), Some("ls"));
    assert!(attr(ls[0], "gen_ai.tool.call.id").is_some());
    let task = named(&under_run, "execute_tool task");
    assert_eq!(task.len(), 1);
    let sub = children(&spans, task[0]);
    let sub_run = named(&sub, "invoke_agent general-purpose");
    assert_eq!(
        sub_run.len(),
        1,
        "{:?}",
        sub.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    let child_id = attr(sub_run[0], "antler.run.id").unwrap();
    assert_ne!(child_id, run_id);
    assert_eq!(attr(task[0], "antler.child_run.id"), Some(child_id));
    let sub_calls = children(&spans, sub_run[0]);
    assert_eq!(named(&sub_calls, "chat mock").len(), 1);

    // Without a traceparent the run is a trace of its own, rooted at the run.
    let (status, _) = server
        .post_json(
            "/api/threads/untraced/runs/wait",
            json!({"assistant_id": "agent", "if_not_exists": "create",
                "input": {"messages": [{"role": "user", "content": "hello"}]}}),
        )
        .await;
    assert_eq!(status, 200);
    wait_for("the second run's span", async || {
        receiver.spans().iter().any(|s| {
            s.name == "invoke_agent agent"
                && attr(s, "antler.thread.id").as_deref() == Some("untraced")
        })
    })
    .await;
    let spans = receiver.spans();
    let second = spans
        .iter()
        .find(|s| {
            attr(s, "antler.thread.id").as_deref() == Some("untraced")
                && s.name == "invoke_agent agent"
        })
        .unwrap();
    assert!(second.parent_span_id.is_empty(), "a root span");
    assert_ne!(second.trace_id, run.trace_id);
}

#[tokio::test(flavor = "multi_thread")]
async fn message_contents_go_on_spans_only_when_record_content_is_on() {
    let model = mock_llm(SCRIPT).await;
    let receiver = Receiver::default();
    let collector = receiver.start().await;
    let env = Env::new();
    let server = env.start_agent(
        &model,
        &[
            ("ANTLER_TELEMETRY_OTLP_ENDPOINT", collector.as_str()),
            ("ANTLER_TELEMETRY_RECORD_CONTENT", "true"),
            ("OTEL_BSP_SCHEDULE_DELAY", "50"),
            ("ANTLER_AGENT_GENERATE_TITLES", "false"),
        ],
    );
    server.run_wait("c", "agent", "trace me").await;
    wait_for("a tool span", async || {
        receiver.spans().iter().any(|s| s.name == "execute_tool ls")
    })
    .await;
    let spans = receiver.spans();
    let chat = spans.iter().find(|s| s.name == "chat mock").unwrap();
    assert!(
        attr(chat, "gen_ai.input.messages")
            .unwrap()
            .contains("trace me")
    );
    let ls = spans.iter().find(|s| s.name == "execute_tool ls").unwrap();
    assert!(
        attr(ls, "gen_ai.tool.call.arguments")
            .unwrap()
            .contains("/mnt/user-data")
    );
}

/// The value of the sample `name{labels}` (labels as Prometheus writes them), 0 when absent.
fn sample(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|l| {
            l.strip_prefix(series)?
                .strip_prefix(' ')?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or(0.0)
}

#[tokio::test]
async fn metrics_count_runs_model_and_tool_calls_and_are_for_admins_or_the_metrics_address() {
    let model = mock_llm(SCRIPT).await;
    let env = Env::new();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let bind = format!("127.0.0.1:{port}");
    let server = env.start_agent(
        &model,
        &[
            ("ANTLER_TELEMETRY_METRICS_BIND", bind.as_str()),
            ("ANTLER_AGENT_GENERATE_TITLES", "false"),
        ],
    );
    let scrape = async || {
        let r = server.get("/metrics").await;
        assert_eq!(r.status(), 200);
        assert!(
            r.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/plain")
        );
        r.text().await.unwrap()
    };
    let before = scrape().await;
    server.run_wait("m", "agent", "trace me").await;
    server.run_wait("m", "agent", "hello").await;
    let after = scrape().await;
    let moved = |series: &str| sample(&after, series) - sample(&before, series);
    assert_eq!(moved("antler_runs_started_total"), 2.0, "{after}");
    assert_eq!(
        moved(r#"antler_runs_finished_total{status="success"}"#),
        2.0
    );
    assert_eq!(
        moved("antler_run_duration_seconds_count{status=\"success\"}"),
        2.0
    );
    assert_eq!(moved("antler_run_time_to_first_token_seconds_count"), 2.0);
    // "trace me": the lead's two calls and its subagent's one; "hello": one.
    assert_eq!(
        moved(r#"antler_model_calls_total{model="default",status="ok"}"#),
        4.0,
        "{after}"
    );
    // "hello" reported its tokens (the other calls none).
    assert_eq!(
        moved(r#"antler_model_tokens_total{model="default",type="input"}"#),
        150.0
    );
    assert_eq!(
        moved(r#"antler_model_tokens_total{model="default",type="output"}"#),
        10.0
    );
    assert_eq!(
        moved(r#"antler_tool_calls_total{tool="ls",status="ok"}"#),
        1.0
    );
    assert_eq!(
        moved(r#"antler_tool_calls_total{tool="task",status="ok"}"#),
        1.0
    );
    for gauge in [
        "antler_sse_streams_active",
        r#"antler_sandboxes{state="warm"}"#,
        r#"antler_queue_length{queue="runs"}"#,
        r#"antler_queue_length{queue="memory_extraction"}"#,
        r#"antler_db_pool_max_connections"#,
    ] {
        assert!(
            after.lines().any(|l| l.starts_with(gauge)),
            "{gauge} missing:\n{after}"
        );
    }

    // Not for people who are not admins, nor for anonymous callers, on the main address.
    let bob = client_with(Some(&user(&server, "bob@antler.test").await));
    let (status, body) = send(bob.get(server.url("/metrics"))).await;
    assert_eq!(status, 403, "{body}");
    let anonymous = reqwest::get(server.url("/metrics")).await.unwrap();
    assert_eq!(anonymous.status(), 401);
    // The metrics address serves them without sign-in, and nothing else.
    let open = reqwest::get(format!("http://{bind}/metrics"))
        .await
        .unwrap();
    assert_eq!(open.status(), 200);
    assert!(
        open.text()
            .await
            .unwrap()
            .contains("antler_runs_started_total")
    );
    let other = reqwest::get(format!("http://{bind}/api/threads"))
        .await
        .unwrap();
    assert_eq!(other.status(), 404);
}
