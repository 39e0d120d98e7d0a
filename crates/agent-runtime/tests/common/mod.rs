//! A run manager over a SQLite store in a temporary directory, its model the scripted mock.

use std::sync::Arc;

use antler_agent_runtime::config::{AgentConfig, ModelConfig};
use antler_agent_runtime::model::ModelClient;
use antler_agent_runtime::profile::AgentProfile;
use antler_agent_runtime::runs::log::RunEvent;
use antler_agent_runtime::runs::{ActiveRun, RunDeps, RunManager};
use antler_sandbox::local::LocalProvider;
use antler_skills::catalog::States;
use antler_skills::{Catalog, ScanLimits};
use antler_store::{Location, Store};
use futures::StreamExt;
use serde_json::json;

/// A run manager and what it works on.
pub(crate) struct Harness {
    pub(crate) manager: Arc<RunManager>,
    pub(crate) store: Store,
    _dir: tempfile::TempDir,
}

/// Serves `script` with the mock model; its base URL.
async fn mock(script: &str) -> String {
    let script = antler_mock_llm::Script::parse(script).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(antler_mock_llm::serve(script, listener));
    format!("http://{addr}/v1")
}

/// A run manager whose model follows `script`, its event logs holding `max_bytes` each.
pub(crate) async fn harness(script: &str, max_bytes: usize) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&Location::resolve(None, dir.path()).unwrap(), 4)
        .await
        .unwrap();
    let skills = dir.path().join("skills");
    std::fs::create_dir_all(skills.join("public")).unwrap();
    let catalog = Catalog::load(&skills, ScanLimits::default(), States::new());
    let model = ModelClient::new(ModelConfig {
        base_url: mock(script).await,
        model: "mock".into(),
        api_key_env: None,
        ..ModelConfig::default()
    })
    .unwrap();
    let cfg = AgentConfig {
        event_log_max_bytes: max_bytes,
        generate_titles: false,
        ..AgentConfig::default()
    };
    let manager = RunManager::new(RunDeps {
        store: store.clone(),
        skills: Arc::new(catalog),
        sandbox: Arc::new(LocalProvider::new(
            &dir.path().join("sandboxes"),
            &skills,
            true,
            100_000,
        )),
        cfg,
        models: vec![model],
        prompt_budget: 10_000,
        instance: "test".into(),
        mcp: None,
        mcp_search: Default::default(),
        memory: None,
        memory_tools: false,
        secrets: None,
        web: None,
    });
    Harness {
        manager,
        store,
        _dir: dir,
    }
}

impl Harness {
    /// Starts a run in `thread` answering `text`, streaming `modes`.
    pub(crate) async fn start(&self, thread: &str, text: &str, modes: &[&str]) -> Arc<ActiveRun> {
        let req = serde_json::from_value(json!({
            "assistant_id": "lead_agent",
            "if_not_exists": "create",
            "input": {"messages": [{"role": "user", "content": text}]},
            "stream_mode": modes,
        }))
        .unwrap();
        let (run, _) = self
            .manager
            .create("local", thread, req, AgentProfile::built_in("lead_agent"))
            .await
            .unwrap();
        run
    }

    /// Every event of `run_id` after `after`, read to the end.
    pub(crate) async fn read(&self, thread: &str, run_id: &str, after: u64) -> Vec<Arc<RunEvent>> {
        antler_agent_runtime::runs::stream::follow(
            self.manager.clone(),
            thread.into(),
            run_id.into(),
            after,
            Default::default(),
        )
        .collect()
        .await
    }
}

/// The ids of `events`.
pub(crate) fn ids(events: &[Arc<RunEvent>]) -> Vec<u64> {
    events.iter().map(|e| e.seq).collect()
}
