//! `make bench` helper for many viewers of one run (scripts/bench/joins.py drives it through
//! stdin and stdout, one JSON line per step, measuring the server's memory in between):
//! - `idle <base> <n>`: opens `n` keep-alive connections, each answered one `GET /health`,
//!   prints `idle_open` and holds them until stdin closes (the floor: what a connection costs);
//! - `join <base> <n> <message>`: starts a background run answering `message`, prints
//!   `started` once it is under way, waits for a line on stdin, joins its stream `n` times at
//!   once (`GET …/runs/{run_id}/stream`), prints `joined` once every stream has received its
//!   first event, then `done` once they all ended: how many got every event id from 1 to
//!   `end` exactly once and in order.

use std::io::BufRead;
use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use serde_json::{Value, json};
use tokio::sync::Semaphore;

/// Connections being opened at once (beyond it the listen backlog drops SYNs).
const OPENING: usize = 128;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    anyhow::ensure!(
        args.len() >= 4,
        "usage: joins_bench idle <base> <n> | join <base> <n> <message>"
    );
    let (base, n): (&str, usize) = (&args[2], args[3].parse()?);
    let mut headers = reqwest::header::HeaderMap::new();
    if let Ok(token) = std::env::var("ANTLER_TOKEN") {
        headers.insert(
            reqwest::header::AUTHORIZATION,
            format!("Bearer {token}").parse()?,
        );
    }
    let http = reqwest::Client::builder()
        .http1_only()
        .pool_max_idle_per_host(usize::MAX)
        .pool_idle_timeout(None)
        .default_headers(headers)
        .build()?;
    match args[1].as_str() {
        "idle" => idle(base, n).await,
        "join" => {
            join(
                &http,
                base,
                n,
                args.get(4).map_or("long join", String::as_str),
            )
            .await
        }
        other => anyhow::bail!("unknown mode {other}"),
    }
}

/// Blocks until a line arrives on stdin (or it closes).
async fn wait_for_stdin() {
    let _ = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        let _ = std::io::stdin().lock().read_line(&mut line);
    })
    .await;
}

async fn idle(base: &str, n: usize) -> anyhow::Result<()> {
    let started = Instant::now();
    let addr = base
        .strip_prefix("http://")
        .ok_or_else(|| anyhow::anyhow!("{base} is not http://"))?
        .to_string();
    let gate = Arc::new(Semaphore::new(OPENING));
    // Plain sockets: a client's pool would reuse a connection once its answer is read.
    let held: Vec<tokio::net::TcpStream> = futures::future::join_all((0..n).map(|_| {
        let (addr, gate) = (addr.clone(), gate.clone());
        async move {
            let _permit = gate.acquire().await.ok()?;
            health(&addr).await.ok()
        }
    }))
    .await
    .into_iter()
    .flatten()
    .collect();
    println!(
        "{}",
        json!({"name": "idle_open", "connections": held.len(), "ms": started.elapsed().as_millis()})
    );
    wait_for_stdin().await;
    drop(held);
    Ok(())
}

/// A connection that was answered one `GET /health` (kept open).
async fn health(addr: &str) -> anyhow::Result<tokio::net::TcpStream> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await?;
    stream
        .write_all(format!("GET /health HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
        .await?;
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = stream.read(&mut buf).await?;
        anyhow::ensure!(n > 0, "closed before the answer");
        got.extend_from_slice(&buf[..n]);
        let Some(head) = find(&got, b"\r\n\r\n") else {
            continue;
        };
        let text = String::from_utf8_lossy(&got[..head]).to_ascii_lowercase();
        let length: usize = text
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        if got.len() >= head + 4 + length {
            return Ok(stream);
        }
    }
}

/// What one stream received.
#[derive(Default)]
struct Received {
    events: u64,
    last_id: u64,
    in_order: bool,
    ended: bool,
}

/// Reads SSE frames: counts events, checks their ids run 1, 2, 3… and that `end` comes last.
#[derive(Default)]
struct Reader {
    buf: Vec<u8>,
    got: Received,
}

impl Reader {
    fn new() -> Self {
        Reader {
            got: Received {
                in_order: true,
                ..Received::default()
            },
            ..Reader::default()
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        let mut start = 0;
        while let Some(end) = find(&self.buf[start..], b"\n\n") {
            let frame = &self.buf[start..start + end];
            start += end + 2;
            let (mut id, mut name) = (None, None);
            for line in frame.split(|b| *b == b'\n') {
                if let Some(v) = line.strip_prefix(b"id: ") {
                    id = std::str::from_utf8(v)
                        .ok()
                        .and_then(|v| v.parse::<u64>().ok());
                } else if let Some(v) = line.strip_prefix(b"event: ") {
                    name = Some(v == b"end");
                }
            }
            let Some(id) = id else { continue };
            let got = &mut self.got;
            got.events += 1;
            got.in_order &= id == got.last_id + 1 && !got.ended;
            got.last_id = id;
            got.ended |= name == Some(true);
        }
        self.buf.drain(..start);
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

async fn join(http: &reqwest::Client, base: &str, n: usize, message: &str) -> anyhow::Result<()> {
    let thread: Value = http
        .post(format!("{base}/api/threads"))
        .json(&json!({}))
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    let thread = thread["thread_id"].as_str().unwrap_or_default().to_string();
    let run: Value = http
        .post(format!("{base}/api/threads/{thread}/runs"))
        .json(&json!({
            "assistant_id": "lead_agent",
            "input": {"messages": [{"role": "user", "content": message}]},
            "stream_mode": ["messages-tuple"],
        }))
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    let run = run["run_id"].as_str().unwrap_or_default().to_string();
    let url = format!("{base}/api/threads/{thread}/runs/{run}/stream");
    // Under way: one viewer has seen its first event.
    let mut probe = http.get(&url).send().await?.bytes_stream();
    let mut reader = Reader::new();
    while reader.got.events < 1 {
        let Some(chunk) = probe.next().await else {
            anyhow::bail!("the run ended before it streamed");
        };
        reader.feed(&chunk?);
    }
    drop(probe);
    println!(
        "{}",
        json!({"name": "started", "thread_id": thread, "run_id": run})
    );
    wait_for_stdin().await;

    let started = Instant::now();
    let gate = Arc::new(Semaphore::new(OPENING));
    let (opened_tx, mut opened_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let streams: Vec<_> = (0..n)
        .map(|_| {
            let (http, gate, url, opened) =
                (http.clone(), gate.clone(), url.clone(), opened_tx.clone());
            tokio::spawn(async move {
                let mut reader = Reader::new();
                let permit = gate.acquire_owned().await.ok();
                let Ok(r) = http.get(&url).send().await else {
                    return reader.got;
                };
                let mut body = r.bytes_stream();
                let mut permit = permit;
                while let Some(Ok(chunk)) = body.next().await {
                    reader.feed(&chunk);
                    if permit.is_some() && reader.got.events > 0 {
                        permit = None;
                        let _ = opened.send(());
                    }
                    if reader.got.ended {
                        break;
                    }
                }
                if permit.is_some() {
                    let _ = opened.send(());
                }
                reader.got
            })
        })
        .collect();
    drop(opened_tx);
    let mut opened = 0;
    while opened < n && opened_rx.recv().await.is_some() {
        opened += 1;
    }
    println!(
        "{}",
        json!({"name": "joined", "streams": opened, "ms": started.elapsed().as_millis()})
    );
    let mut complete = 0;
    let mut events = 0;
    let mut last_ids = std::collections::HashSet::new();
    for s in streams {
        let got = s.await?;
        events += got.events;
        last_ids.insert(got.last_id);
        if got.in_order && got.ended && got.events == got.last_id {
            complete += 1;
        }
    }
    println!(
        "{}",
        json!({"name": "done", "streams": n, "complete": complete, "events": events,
               "same_length": last_ids.len() == 1, "ms": started.elapsed().as_millis()})
    );
    Ok(())
}
