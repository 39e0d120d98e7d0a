//! `make bench` helper for runs. Two measurements, printed as JSON lines:
//! - `floor` / `through`: one answer of many chunks streamed by the model directly vs the same
//!   answer through `POST /api/threads/{id}/runs/stream`;
//! - `concurrent`: many streaming runs at once, checking every event id arrives once;
//! - `subtask_floor` / `subtask_through` (with `subtasks`): three answers of many chunks
//!   streamed by the model at once directly vs by three subagents of one run, through the
//!   parent's stream as `task_event`s; `paced_*` the same at a chunk a millisecond;
//! - `latency_direct` / `latency_through` (with `latency`): a short streamed answer, one after
//!   another over one reused connection, from the model directly vs through
//!   `POST /api/threads/{id}/runs/stream` (the median of 20, after one that opens it).
//!
//! Usage: `runs_bench <antler base> <model base /v1> <concurrent runs> [concurrent-only|subtasks|latency|throughput]`.

use std::time::Instant;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use serde_json::{Value, json};

async fn sse(response: reqwest::Response) -> anyhow::Result<Vec<eventsource_stream::Event>> {
    let mut events = response.bytes_stream().eventsource();
    let mut out = Vec::new();
    while let Some(e) = events.next().await {
        out.push(e?);
    }
    Ok(out)
}

async fn thread(http: &reqwest::Client, base: &str) -> anyhow::Result<String> {
    let t: Value = http
        .post(format!("{base}/api/threads"))
        .json(&json!({}))
        .send()
        .await?
        .json()
        .await?;
    Ok(t["thread_id"].as_str().unwrap_or_default().to_string())
}

async fn run(
    http: &reqwest::Client,
    base: &str,
    text: &str,
) -> anyhow::Result<Vec<eventsource_stream::Event>> {
    let id = thread(http, base).await?;
    let body = json!({
        "assistant_id": "lead_agent",
        "input": {"messages": [{"role": "user", "content": text}]},
        "stream_mode": ["messages-tuple"],
    });
    sse(http
        .post(format!("{base}/api/threads/{id}/runs/stream"))
        .json(&body)
        .send()
        .await?)
    .await
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    anyhow::ensure!(
        args.len() == 4 || args.len() == 5,
        "usage: runs_bench <antler base> <model base> <concurrent runs> [concurrent-only|subtasks|latency|throughput]"
    );
    let (base, model, n): (&str, &str, usize) = (&args[1], &args[2], args[3].parse()?);
    // The server's token (scripts/bench sets it): every API call carries it.
    let mut headers = reqwest::header::HeaderMap::new();
    if let Ok(token) = std::env::var("ANTLER_TOKEN") {
        headers.insert(
            reqwest::header::AUTHORIZATION,
            format!("Bearer {token}").parse()?,
        );
    }
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(1024)
        .default_headers(headers)
        .build()?;
    match args.get(4).map(String::as_str) {
        Some("subtasks") => return subtasks(&http, base, model).await,
        Some("latency") => return latency(base, model).await,
        Some("throughput") => return throughput(&http, base, model, n).await,
        Some(_) => return concurrent(&http, base, n).await,
        None => {}
    }

    // Warm up both paths once.
    run(&http, base, "long answer").await?;
    let direct_body = json!({"model": "mock", "stream": true, "messages": [{"role": "user", "content": "long answer"}]});
    for (name, through) in [
        ("floor", false),
        ("through", true),
        ("floor", false),
        ("through", true),
    ] {
        let started = Instant::now();
        let chunks = if through {
            run(&http, base, "long answer")
                .await?
                .iter()
                .filter(|e| e.event == "messages")
                .count()
        } else {
            let r = http
                .post(format!("{model}/chat/completions"))
                .json(&direct_body)
                .send()
                .await?;
            sse(r).await?.iter().filter(|e| e.data != "[DONE]").count()
        };
        println!(
            "{{\"name\":\"{name}\",\"chunks\":{chunks},\"ms\":{:.2}}}",
            started.elapsed().as_secs_f64() * 1000.0
        );
    }

    concurrent(&http, base, n).await
}

/// A short streamed answer, again and again over one reused connection (a fresh client:
/// its pool holds one), directly from the model and through a run; prints the medians.
async fn latency(base: &str, model: &str) -> anyhow::Result<()> {
    let mut headers = reqwest::header::HeaderMap::new();
    if let Ok(token) = std::env::var("ANTLER_TOKEN") {
        headers.insert(
            reqwest::header::AUTHORIZATION,
            format!("Bearer {token}").parse()?,
        );
    }
    let http = reqwest::Client::builder()
        .http1_only()
        .default_headers(headers)
        .build()?;
    let direct_body = json!({"model": "mock", "stream": true, "messages": [{"role": "user", "content": "short answer"}]});
    let thread_id = thread(&http, base).await?;
    let run_body = json!({
        "assistant_id": "lead_agent",
        "input": {"messages": [{"role": "user", "content": "short answer"}]},
        "stream_mode": ["messages-tuple"],
    });
    for through in [false, true] {
        let mut times = Vec::new();
        for i in 0..21 {
            let started = Instant::now();
            let events = if through {
                sse(http
                    .post(format!("{base}/api/threads/{thread_id}/runs/stream"))
                    .json(&run_body)
                    .send()
                    .await?)
                .await?
            } else {
                sse(http
                    .post(format!("{model}/chat/completions"))
                    .json(&direct_body)
                    .send()
                    .await?)
                .await?
            };
            anyhow::ensure!(
                events.len() > 2,
                "a short answer streamed {} events",
                events.len()
            );
            // The first opens the connection (and warms the path up).
            if i > 0 {
                times.push(started.elapsed().as_secs_f64() * 1000.0);
            }
        }
        times.sort_by(f64::total_cmp);
        let name = if through {
            "latency_through"
        } else {
            "latency_direct"
        };
        println!(
            "{{\"name\":\"{name}\",\"median_ms\":{:.2},\"max_ms\":{:.2}}}",
            times[times.len() / 2],
            times[times.len() - 1]
        );
    }
    Ok(())
}

/// Three subagents streaming at once through their parent's stream vs the same three answers
/// streamed by the model directly; prints the chunks each path delivered and its time.
async fn subtasks(http: &reqwest::Client, base: &str, model: &str) -> anyhow::Result<()> {
    // As fast as the mock streams (the overhead per chunk), and paced at a millisecond a
    // chunk (still faster than real models: the overhead as a person would see it).
    for (kind, answer, ask) in [
        ("subtask", "long answer please", "three subtasks"),
        ("paced", "paced answer please", "three paced subtasks"),
    ] {
        subtask_rounds(http, base, model, kind, answer, ask).await?;
    }
    Ok(())
}

async fn subtask_rounds(
    http: &reqwest::Client,
    base: &str,
    model: &str,
    kind: &str,
    answer: &str,
    ask: &str,
) -> anyhow::Result<()> {
    let direct_body = json!({"model": "mock", "stream": true, "messages": [
        {"role": "system", "content": "<subagent>"},
        {"role": "user", "content": answer},
    ]});
    for round in 0..3 {
        let started = Instant::now();
        let answers = futures::future::try_join_all((0..3).map(|_| async {
            let r = http
                .post(format!("{model}/chat/completions"))
                .json(&direct_body)
                .send()
                .await?;
            sse(r).await
        }))
        .await?;
        let floor_ms = started.elapsed().as_secs_f64() * 1000.0;
        let floor_chunks: usize = answers
            .iter()
            .map(|a| a.iter().filter(|e| e.data != "[DONE]").count())
            .sum();
        let id = thread(http, base).await?;
        let body = json!({
            "assistant_id": "lead_agent",
            "input": {"messages": [{"role": "user", "content": ask}]},
            "stream_mode": ["messages-tuple", "custom"],
        });
        let started = Instant::now();
        let events = sse(http
            .post(format!("{base}/api/threads/{id}/runs/stream"))
            .json(&body)
            .send()
            .await?)
        .await?;
        let through_ms = started.elapsed().as_secs_f64() * 1000.0;
        let chunks = events
            .iter()
            .filter(|e| {
                e.event == "custom"
                    && e.data.contains("\"task_event\"")
                    && e.data.contains("AIMessageChunk")
            })
            .count();
        let completed = events
            .iter()
            .filter(|e| e.data.contains("\"task_completed\""))
            .count();
        // The first round warms both paths up.
        if round > 0 {
            println!(
                "{{\"name\":\"{kind}_floor\",\"chunks\":{floor_chunks},\"ms\":{floor_ms:.2}}}"
            );
            println!(
                "{{\"name\":\"{kind}_through\",\"chunks\":{chunks},\"completed\":{completed},\"ms\":{through_ms:.2}}}"
            );
        }
    }
    Ok(())
}

/// One streaming run of `text` on each of `threads`, all started at once; each one's events.
async fn runs_at_once(
    http: &reqwest::Client,
    base: &str,
    threads: &[String],
    text: &str,
) -> Vec<anyhow::Result<Vec<eventsource_stream::Event>>> {
    let body = json!({
        "assistant_id": "lead_agent",
        "input": {"messages": [{"role": "user", "content": text}]},
        "stream_mode": ["values", "messages-tuple"],
    });
    let body = &body;
    futures::future::join_all(threads.iter().map(|id| async move {
        let r = http
            .post(format!("{base}/api/threads/{id}/runs/stream"))
            .json(body)
            .send()
            .await?;
        sse(r).await
    }))
    .await
}

/// `n` streaming runs at once; every stream must deliver ids 1..=last once and end.
async fn concurrent(http: &reqwest::Client, base: &str, n: usize) -> anyhow::Result<()> {
    let threads: Vec<String> =
        futures::future::try_join_all((0..n).map(|_| thread(http, base))).await?;
    let started = Instant::now();
    let results = runs_at_once(http, base, &threads, "burst").await;
    let elapsed = started.elapsed().as_secs_f64() * 1000.0;
    let (mut events, mut lost, mut failed) = (0usize, 0usize, 0usize);
    for r in results {
        match r {
            Ok(list) => {
                events += list.len();
                let ids: Vec<u64> = list.iter().filter_map(|e| e.id.parse().ok()).collect();
                let contiguous = ids.iter().enumerate().all(|(i, id)| *id == i as u64 + 1);
                let ended = list.last().is_some_and(|e| e.event == "end");
                let errored = list.iter().any(|e| e.event == "error");
                if !contiguous || !ended {
                    lost += 1;
                }
                if errored {
                    failed += 1;
                }
            }
            Err(_) => failed += 1,
        }
    }
    println!(
        "{{\"name\":\"concurrent\",\"runs\":{n},\"ms\":{elapsed:.1},\"events\":{events},\"runs_with_lost_events\":{lost},\"failed\":{failed}}}"
    );
    Ok(())
}

/// Run throughput: `n` runs of a 20-chunk answer at once on `n` fresh threads, against the
/// same `n` answers streamed by the model directly (the floor), in alternating rounds after a
/// warm-up; prints each round's wall time and whether every run ended well.
async fn throughput(
    http: &reqwest::Client,
    base: &str,
    model: &str,
    n: usize,
) -> anyhow::Result<()> {
    const ROUNDS: usize = 5;
    let direct = json!({"model": "mock", "stream": true, "messages": [{"role": "user", "content": "twenty chunks"}]});
    for round in 0..=ROUNDS {
        let threads: Vec<String> =
            futures::future::try_join_all((0..n).map(|_| thread(http, base))).await?;
        let started = Instant::now();
        let floor = futures::future::join_all((0..n).map(|_| async {
            let r = http
                .post(format!("{model}/chat/completions"))
                .json(&direct)
                .send()
                .await?;
            sse(r).await
        }))
        .await;
        let floor_ms = started.elapsed().as_secs_f64() * 1000.0;
        let started = Instant::now();
        let runs = runs_at_once(http, base, &threads, "twenty chunks").await;
        let runs_ms = started.elapsed().as_secs_f64() * 1000.0;
        let chunks = floor
            .iter()
            .flatten()
            .map(|l| l.iter().filter(|e| e.data != "[DONE]").count())
            .min()
            .unwrap_or(0);
        let ok = runs
            .iter()
            .flatten()
            .filter(|l| {
                l.last().is_some_and(|e| e.event == "end") && !l.iter().any(|e| e.event == "error")
            })
            .count();
        // Round 0 warms both paths up.
        if round > 0 {
            println!(
                "{{\"name\":\"throughput\",\"runs\":{n},\"chunks\":{chunks},\"floor_ms\":{floor_ms:.1},\"runs_ms\":{runs_ms:.1},\"ok\":{ok}}}"
            );
        }
    }
    Ok(())
}
