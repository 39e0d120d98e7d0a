//! Times the cron scheduler's claim query: `claim_due` with nothing due, first on an empty
//! table (the floor), then with `N` enabled crons whose due times are spread over a year.
//! Prints one JSON line. Usage: `cron_claim_bench <sqlite-file|postgres-url> [N] [ROUNDS]`.

use std::time::Instant;

use antler_store::{CronPlan, CronRecord, Location, Store};
use chrono::{TimeDelta, Utc};
use serde_json::{Map, json};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let target = args
        .next()
        .ok_or("usage: cron_claim_bench <sqlite-file|postgres-url> [N] [ROUNDS]")?;
    let n: usize = args.next().map_or(Ok(10_000), |a| a.parse())?;
    let rounds: usize = args.next().map_or(Ok(2_000), |a| a.parse())?;
    let location = if target.starts_with("postgres") {
        Location::Postgres(target.clone())
    } else {
        Location::Sqlite(target.clone().into())
    };
    let store = Store::open(&location, 4).await?;
    let floor = time_claims(&store, rounds).await?;
    let now = Utc::now();
    let year = 365 * 24 * 3600;
    let step = i64::try_from(year / n.max(1)).unwrap_or(1);
    for i in 0..n {
        let offset = 3600 + step * i64::try_from(i).unwrap_or(0);
        store
            .crons
            .create(&CronRecord {
                cron_id: format!("bench-{i:06}-{}", now.timestamp_micros()),
                owner: "bench".into(),
                assistant_id: "agent".into(),
                thread_id: None,
                schedule: format!("{} {} * * *", i % 60, (i / 60) % 24),
                timezone: None,
                end_time: None,
                on_run_completed: None,
                payload: json!({"input": {"messages": [{"role": "user", "content": "report"}]}}),
                metadata: Map::new(),
                enabled: true,
                next_run_date: Some(now + TimeDelta::seconds(offset)),
                last_run: None,
                created_at: now,
                updated_at: now,
            })
            .await?;
    }
    let loaded = time_claims(&store, rounds).await?;
    println!(
        "{}",
        json!({"crons": n, "rounds": rounds,
            "empty": {"p50_us": floor.0, "p99_us": floor.1},
            "loaded": {"p50_us": loaded.0, "p99_us": loaded.1}})
    );
    Ok(())
}

/// p50 and p99 (µs) of `rounds` claims with nothing due.
async fn time_claims(
    store: &Store,
    rounds: usize,
) -> Result<(u128, u128), Box<dyn std::error::Error>> {
    let never = |_: &CronRecord, _| CronPlan {
        run: false,
        next: None,
    };
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let start = Instant::now();
        let claimed = store
            .crons
            .claim_due("bench", Utc::now(), 100, &never)
            .await?;
        times.push(start.elapsed().as_micros());
        if !claimed.is_empty() {
            return Err("a cron was due".into());
        }
    }
    times.sort_unstable();
    let at = |q: usize| times[(times.len() - 1) * q / 100];
    Ok((at(50), at(99)))
}
