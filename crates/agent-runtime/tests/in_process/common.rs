//! Runs in this process: a [`RunManager`] over a temporary SQLite store, the local sandbox
//! provider (commands allowed) and the scripted model (`antler-mock-llm`) on port 0, whose
//! answers the tests build from small helpers ([`text`], [`calls`], [`call`]).

use std::sync::Arc;

use antler_agent_runtime::config::{AgentConfig, ModelConfig};
use antler_agent_runtime::model::ModelClient;
use antler_agent_runtime::profile::AgentProfile;
use antler_agent_runtime::runs::{ActiveRun, RunDeps, RunManager};
use antler_agent_runtime::tools::ToolRegistry;
use antler_mock_llm::script::{Options, Scenario, Script, ToolCall, Turn};
use antler_store::{Location, RunRecord, Store};
use futures::StreamExt;
use serde_json::{Value, json};

/// A model answer with text only.
pub(crate) fn text(content: &str) -> Turn {
    Turn {
        content: Some(content.into()),
        ..Turn::default()
    }
}

/// A model answer calling tools (all in the one answer).
pub(crate) fn calls(calls: Vec<ToolCall>) -> Turn {
    Turn {
        tool_calls: calls,
        ..Turn::default()
    }
}

/// One tool call.
pub(crate) fn call(name: &str, arguments: Value) -> ToolCall {
    ToolCall {
        name: name.into(),
        arguments: Some(arguments),
        arguments_raw: None,
    }
}

/// The model's answers after the person (or a lead agent) says something containing `says`.
pub(crate) fn when(says: &str, turns: Vec<Turn>) -> Scenario {
    Scenario {
        matches: says.into(),
        system: None,
        turns,
    }
}

/// The scripted model serving `scenarios` (then "ok" to anything else); its base URL.
pub(crate) async fn model(mut scenarios: Vec<Scenario>) -> String {
    scenarios.push(when("", vec![text("ok")]));
    let script = Script {
        options: Options {
            chunk_size: 4,
            ..Options::default()
        },
        scenarios,
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let addr = listener.local_addr().expect("bound");
    tokio::spawn(antler_mock_llm::serve(script, listener));
    format!("http://{addr}/v1")
}

/// Every request the scripted model at `url` received, in order.
pub(crate) async fn model_requests(url: &str) -> Vec<Value> {
    reqwest::get(url.replace("/v1", "/_requests"))
        .await
        .expect("the model answers")
        .json()
        .await
        .expect("a JSON list")
}

/// The names of the tools a model request offered.
pub(crate) fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// A run manager and what it works in.
pub(crate) struct Harness {
    pub(crate) manager: Arc<RunManager>,
    pub(crate) store: Store,
    pub(crate) model_url: String,
    _dir: tempfile::TempDir,
}

/// One SSE event of a run: its name and JSON data.
#[derive(Debug, Clone)]
pub(crate) struct Event {
    pub(crate) event: String,
    pub(crate) data: Value,
}

impl Harness {
    /// Runs with the built-in tools, `cfg` changed by `tweak`, against `model_url`.
    pub(crate) async fn new(model_url: &str, tweak: impl FnOnce(&mut AgentConfig)) -> Self {
        Self::with_tools(model_url, ToolRegistry::builtin(), tweak).await
    }

    /// Runs with `tools` as the server's tools.
    pub(crate) async fn with_tools(
        model_url: &str,
        tools: ToolRegistry,
        tweak: impl FnOnce(&mut AgentConfig),
    ) -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = Store::open(&Location::Sqlite(dir.path().join("antler.db")), 4)
            .await
            .expect("the store opens");
        let skills_dir = dir.path().join("skills");
        std::fs::create_dir_all(&skills_dir).expect("skills directory");
        let catalog = antler_skills::Catalog::load(
            &skills_dir,
            antler_skills::ScanLimits::default(),
            Default::default(),
        );
        let sandbox = Arc::new(antler_sandbox::local::LocalProvider::new(
            &dir.path().join("data"),
            &dir.path().join("skills-view"),
            true,
            100_000,
        ));
        let model = ModelClient::new(ModelConfig {
            name: "mock".into(),
            base_url: model_url.into(),
            model: "mock".into(),
            api_key_env: None,
            retry_base_ms: 10,
            ..ModelConfig::default()
        })
        .expect("a model client");
        // The scripted model answers the run's calls only: no title or suggestions calls.
        let mut cfg = AgentConfig {
            generate_titles: false,
            ..AgentConfig::default()
        };
        cfg.suggestions.enabled = false;
        tweak(&mut cfg);
        let deps = RunDeps {
            store: store.clone(),
            skills: Arc::new(catalog),
            sandbox,
            cfg,
            models: vec![model],
            prompt_budget: 10_000,
            instance: "in-process".into(),
            mcp: None,
            mcp_search: antler_mcp::ToolSearchConfig::default(),
            memory: None,
            memory_tools: false,
            secrets: None,
            web: None,
        };
        Harness {
            manager: RunManager::with_tools(deps, tools),
            store,
            model_url: model_url.into(),
            _dir: dir,
        }
    }

    /// Starts a run of the built-in agent in `thread` (created when new) with the person's
    /// `message`, streaming every mode; `extra` is merged into the request.
    pub(crate) async fn start(&self, thread: &str, message: &str, extra: Value) -> Arc<ActiveRun> {
        self.start_as(thread, message, extra, AgentProfile::built_in("agent"))
            .await
    }

    /// As [`Harness::start`], as the agent `profile`.
    pub(crate) async fn start_as(
        &self,
        thread: &str,
        message: &str,
        extra: Value,
        profile: AgentProfile,
    ) -> Arc<ActiveRun> {
        let mut req = json!({
            "assistant_id": "agent",
            "if_not_exists": "create",
            "input": {"messages": [{"role": "user", "content": message}]},
            "stream_mode": ["values", "updates", "messages", "custom"],
        });
        if let (Some(req), Some(extra)) = (req.as_object_mut(), extra.as_object()) {
            req.extend(extra.clone());
        }
        let req = serde_json::from_value(req).expect("a valid run request");
        let (run, _) = self
            .manager
            .create("local", thread, req, profile)
            .await
            .expect("the run starts");
        run
    }

    /// Waits for `run` to end; its stored record and every event it sent.
    pub(crate) async fn finish(&self, run: &ActiveRun) -> (RunRecord, Vec<Event>) {
        let events = events_until(&self.manager, run, |e| e.event == "end").await;
        run.finished().await;
        let record = self
            .store
            .runs
            .get(&run.thread_id, &run.run_id)
            .await
            .expect("the store answers")
            .expect("the run is stored");
        (record, events)
    }

    /// The thread's messages as stored.
    pub(crate) async fn messages(&self, thread: &str) -> Vec<Value> {
        let record = self
            .store
            .threads
            .get("local", thread)
            .await
            .expect("the store answers")
            .expect("the thread exists");
        record.values["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

/// The events of `run` (run by `manager`) from its start until (and with) the first that
/// `stop` accepts.
pub(crate) async fn events_until(
    manager: &Arc<RunManager>,
    run: &ActiveRun,
    stop: impl Fn(&Event) -> bool,
) -> Vec<Event> {
    let mut events = Vec::new();
    let mut all = antler_agent_runtime::runs::stream::follow(
        manager.clone(),
        run.thread_id.clone(),
        run.run_id.clone(),
        0,
        Default::default(),
    );
    while let Some(e) = all.next().await {
        let event = Event {
            event: e.event.clone(),
            data: serde_json::from_str(&e.data).unwrap_or(Value::Null),
        };
        let done = stop(&event);
        events.push(event);
        if done {
            break;
        }
    }
    events
}

/// The `custom` events of one `type`.
pub(crate) fn custom<'a>(events: &'a [Event], kind: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e.event == "custom" && e.data["type"] == kind)
        .map(|e| &e.data)
        .collect()
}
