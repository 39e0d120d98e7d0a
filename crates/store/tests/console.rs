//! The admin runs console's reads, on both engines: runs across owners filtered, counted and
//! paged in SQL, a run with its subagents' runs, timelines, models and owners' emails.

#![expect(
    clippy::unwrap_used,
    reason = "tests: a failed step aborts with its message"
)]

mod common;

use antler_protocol::auth::Role;
use antler_protocol::console::{RunStep, RunStepKind, RunStepStatus};
use antler_protocol::runs::{MultitaskStrategy, RunStatus, RunUsage, StopReason};
use antler_store::{
    ConsoleFilter, RunRecord, RunUpdate, Store, UsageCounts, UsageEntry, UserRecord,
};
use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde_json::{Map, json};

async fn engines(f: impl AsyncFn(&str, Store)) {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        f(engine, store).await;
    }
}

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text).unwrap().to_utc()
}

/// A run of `owner` on thread `t-<owner>` created at `created`.
fn run(id: &str, owner: &str, assistant: &str, status: RunStatus, created: &str) -> RunRecord {
    RunRecord {
        run_id: id.into(),
        thread_id: format!("t-{owner}"),
        owner: owner.into(),
        assistant_id: assistant.into(),
        status,
        stop_reason: None,
        error: None,
        multitask_strategy: MultitaskStrategy::Reject,
        metadata: Map::new(),
        kwargs: json!({}),
        instance: "i".into(),
        usage: RunUsage::default(),
        created_at: at(created),
        updated_at: at(created),
    }
}

/// `run` as a subagent's run of `parent`.
fn child_of(parent: &str, mut run: RunRecord) -> RunRecord {
    run.metadata
        .insert("parent_run_id".into(), json!(parent.to_string()));
    run
}

fn step(kind: RunStepKind, name: &str, status: RunStepStatus) -> RunStep {
    RunStep {
        kind,
        name: name.into(),
        started_at: "2025-03-01T10:00:00.000Z".into(),
        duration_ms: 12,
        status,
        error: (status == RunStepStatus::Error).then(|| "boom".to_string()),
        input_tokens: (kind == RunStepKind::ModelCall).then_some(100),
        output_tokens: (kind == RunStepKind::ModelCall).then_some(10),
        finish_reason: None,
        first_token_ms: None,
        tool_call_id: (kind != RunStepKind::ModelCall).then(|| format!("call-{name}")),
        child_run_id: (kind == RunStepKind::Subagent).then(|| "c1".to_string()),
    }
}

fn usage(owner: &str, run: &str, model: &str) -> UsageEntry {
    UsageEntry {
        owner: owner.into(),
        run_id: run.into(),
        thread_id: format!("t-{owner}"),
        model: model.into(),
        day: NaiveDate::from_ymd_opt(2025, 3, 1).unwrap(),
        counts: UsageCounts {
            model_calls: 1,
            ..UsageCounts::default()
        },
    }
}

/// Ann (an account) and the local user, with runs over three days; `r2` started the subagent
/// run `c1`.
async fn seed(store: &Store) {
    store
        .accounts
        .create_user(&UserRecord {
            user_id: "ann".into(),
            email: "ann@antler.test".into(),
            password_hash: "x".into(),
            role: Role::User,
            disabled: false,
            created_at: Utc::now(),
        })
        .await
        .unwrap();
    for owner in ["ann", "local"] {
        store
            .threads
            .create(owner, &format!("t-{owner}"), Map::new())
            .await
            .unwrap();
    }
    let runs = [
        run(
            "r1",
            "ann",
            "lead_agent",
            RunStatus::Success,
            "2025-03-01T09:00:00Z",
        ),
        run(
            "r2",
            "ann",
            "writer",
            RunStatus::Error,
            "2025-03-02T09:00:00Z",
        ),
        child_of(
            "r2",
            run(
                "c1",
                "ann",
                "lead_agent",
                RunStatus::Success,
                "2025-03-02T09:00:01Z",
            ),
        ),
        run(
            "r3",
            "local",
            "lead_agent",
            RunStatus::Running,
            "2025-03-03T09:00:00Z",
        ),
    ];
    for r in &runs {
        store.runs.create(r).await.unwrap();
    }
    store
        .usage
        .record(&[
            usage("ann", "r2", "quick"),
            usage("ann", "r2", "deep"),
            usage("ann", "c1", "quick"),
        ])
        .await
        .unwrap();
}

fn ids(page: &[antler_store::ConsoleRecord]) -> Vec<&str> {
    page.iter().map(|r| r.run.run_id.as_str()).collect()
}

#[tokio::test]
async fn console_lists_top_level_runs_of_everyone_newest_first_with_emails() {
    engines(async |engine, store: Store| {
        seed(&store).await;
        let page = store
            .console
            .list(&ConsoleFilter::default(), 50, 0)
            .await
            .unwrap();
        assert_eq!(ids(&page.runs), ["r3", "r2", "r1"], "{engine}");
        assert_eq!(page.total, 3, "{engine}");
        assert_eq!(
            page.runs[1].owner_email.as_deref(),
            Some("ann@antler.test"),
            "{engine}"
        );
        assert_eq!(
            page.runs[0].owner_email, None,
            "local has no account: {engine}"
        );
        assert_eq!(page.runs[1].models, ["deep", "quick"], "{engine}");
        assert!(page.runs[0].models.is_empty(), "{engine}");
        assert_eq!(page.runs[1].timeline, None, "{engine}");

        let all = ConsoleFilter {
            subagents: true,
            ..ConsoleFilter::default()
        };
        let page = store.console.list(&all, 50, 0).await.unwrap();
        assert_eq!(ids(&page.runs), ["r3", "c1", "r2", "r1"], "{engine}");
    })
    .await;
}

#[tokio::test]
async fn console_filters_count_and_pages_in_the_database() {
    engines(async |engine, store: Store| {
        seed(&store).await;
        let list = async |filter: ConsoleFilter, limit: u32, offset: u32| {
            let page = store.console.list(&filter, limit, offset).await.unwrap();
            let ids: Vec<String> = page.runs.iter().map(|r| r.run.run_id.clone()).collect();
            (ids, page.total)
        };
        let owner = ConsoleFilter {
            owner: Some("ann".into()),
            ..ConsoleFilter::default()
        };
        assert_eq!(
            list(owner, 50, 0).await,
            (vec!["r2".into(), "r1".into()], 2),
            "{engine}"
        );
        let status = ConsoleFilter {
            status: Some(RunStatus::Success),
            subagents: true,
            ..ConsoleFilter::default()
        };
        assert_eq!(
            list(status, 50, 0).await,
            (vec!["c1".into(), "r1".into()], 2),
            "{engine}"
        );
        let assistant = ConsoleFilter {
            assistant_id: Some("writer".into()),
            ..ConsoleFilter::default()
        };
        assert_eq!(
            list(assistant, 50, 0).await,
            (vec!["r2".into()], 1),
            "{engine}"
        );
        // `from` included, `to` left out.
        let range = ConsoleFilter {
            from: Some(at("2025-03-02T09:00:00Z")),
            to: Some(at("2025-03-03T09:00:00Z")),
            subagents: true,
            ..ConsoleFilter::default()
        };
        assert_eq!(
            list(range, 50, 0).await,
            (vec!["c1".into(), "r2".into()], 2),
            "{engine}"
        );
        let none = ConsoleFilter {
            owner: Some("nobody".into()),
            ..ConsoleFilter::default()
        };
        assert_eq!(list(none, 50, 0).await, (vec![], 0), "{engine}");

        // Pages: the total counts every match, the page only its share.
        assert_eq!(
            list(ConsoleFilter::default(), 2, 0).await,
            (vec!["r3".into(), "r2".into()], 3),
            "{engine}"
        );
        assert_eq!(
            list(ConsoleFilter::default(), 2, 2).await,
            (vec!["r1".into()], 3),
            "{engine}"
        );
        assert_eq!(
            list(ConsoleFilter::default(), 2, 9).await,
            (vec![], 3),
            "{engine}"
        );
    })
    .await;
}

#[tokio::test]
async fn console_reads_a_run_with_its_timeline_and_its_subagents_runs() {
    engines(async |engine, store: Store| {
        seed(&store).await;
        let timeline = vec![
            step(RunStepKind::ModelCall, "quick", RunStepStatus::Ok),
            step(RunStepKind::ToolCall, "bash", RunStepStatus::Error),
            step(RunStepKind::Subagent, "general-purpose", RunStepStatus::Ok),
        ];
        let ended = |timeline: Option<Vec<RunStep>>| RunUpdate {
            status: RunStatus::Error,
            stop_reason: Some(StopReason::Error),
            error: Some("failed".into()),
            usage: RunUsage::default(),
            metadata: None,
            timeline,
        };
        store
            .runs
            .update("r2", &ended(Some(timeline.clone())))
            .await
            .unwrap();
        // A later update without a timeline keeps the stored one.
        store.runs.update("r2", &ended(None)).await.unwrap();
        let child_steps = vec![step(RunStepKind::ModelCall, "quick", RunStepStatus::Ok)];
        store
            .runs
            .update("c1", &ended(Some(child_steps.clone())))
            .await
            .unwrap();

        let r2 = store.console.get("r2").await.unwrap().unwrap();
        assert_eq!(r2.timeline.as_ref(), Some(&timeline), "{engine}");
        assert_eq!(r2.run.status, RunStatus::Error, "{engine}");
        assert_eq!(r2.models, ["deep", "quick"], "{engine}");
        assert_eq!(r2.owner_email.as_deref(), Some("ann@antler.test"));
        assert!(r2.run.updated_at - r2.run.created_at > Duration::days(1));

        let children = store.console.children("r2").await.unwrap();
        assert_eq!(ids(&children), ["c1"], "{engine}");
        assert_eq!(
            children[0].timeline.as_ref(),
            Some(&child_steps),
            "{engine}"
        );
        assert_eq!(children[0].models, ["quick"], "{engine}");
        assert!(store.console.children("r1").await.unwrap().is_empty());
        assert!(store.console.get("nope").await.unwrap().is_none());
    })
    .await;
}
