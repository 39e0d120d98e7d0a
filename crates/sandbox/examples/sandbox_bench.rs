//! `make bench` helper: times the Docker provider's cold acquire, warm-pool acquire and exec
//! round trip, and a warm sandbox's first Python command, and prints one JSON object per
//! measurement (milliseconds).
//! Usage: `sandbox_bench <data-dir> [iterations] [image]` (image: antler-sandbox:slim).

use std::time::{Duration, Instant};

use antler_sandbox::api::{ExecRequest, SandboxProvider};
use antler_sandbox::config::{FALLBACK_IMAGE, SandboxConfig};
use antler_sandbox::docker::DockerProvider;
use antler_sandbox::view::SkillsView;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn report(name: &str, mut ms: Vec<f64>) {
    ms.sort_by(f64::total_cmp);
    println!(
        "{{\"name\":\"{name}\",\"n\":{},\"p50\":{:.2},\"p99\":{:.2}}}",
        ms.len(),
        percentile(&ms, 0.5),
        percentile(&ms, 0.99)
    );
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let data = std::path::PathBuf::from(
        args.next()
            .ok_or_else(|| anyhow::anyhow!("usage: sandbox_bench <data-dir> [n]"))?,
    );
    let n: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(50);
    let image = args.next().unwrap_or_else(|| FALLBACK_IMAGE.into());
    let config = || SandboxConfig {
        image: image.clone(),
        ..SandboxConfig::default()
    };
    let view = SkillsView::open(&data.join("skills-view"))?;
    let instance = format!("bench-{}", std::process::id());

    let mut cold_cfg = config();
    cold_cfg.docker.warm_pool = 0;
    let cold = DockerProvider::start(cold_cfg, &data, view.root(), &instance).await?;
    let mut times = Vec::new();
    for i in 0..n {
        let thread = format!("cold-{i}");
        let started = Instant::now();
        cold.acquire(&thread).await?;
        times.push(started.elapsed().as_secs_f64() * 1000.0);
        cold.destroy(&thread).await?;
    }
    report("cold_acquire", times);

    let sandbox = cold.acquire("exec").await?;
    let mut times = Vec::new();
    for _ in 0..n {
        let started = Instant::now();
        let out = sandbox
            .exec(ExecRequest::new("true", Duration::from_secs(30)))
            .await?;
        times.push(started.elapsed().as_secs_f64() * 1000.0);
        anyhow::ensure!(out.exit_code == Some(0), "exec failed: {out:?}");
    }
    report("exec_true", times);
    cold.shutdown().await;

    let mut warm_cfg = config();
    warm_cfg.docker.warm_pool = 1;
    let warm = DockerProvider::start(warm_cfg, &data, view.root(), &instance).await?;
    let mut times = Vec::new();
    for i in 0..n {
        while warm.warm_ready().await == 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let thread = format!("warm-{i}");
        let started = Instant::now();
        warm.acquire(&thread).await?;
        times.push(started.elapsed().as_secs_f64() * 1000.0);
        warm.destroy(&thread).await?;
    }
    report("warm_acquire", times);
    // A warm sandbox's first command that starts Python (what most skills' scripts do): the
    // image's own start-up cost, after the acquire.
    let mut times = Vec::new();
    for i in 0..n {
        while warm.warm_ready().await == 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let thread = format!("first-{i}");
        let started = Instant::now();
        let sandbox = warm.acquire(&thread).await?;
        let out = sandbox
            .exec(ExecRequest::new(
                "python3 -c 'import json, csv'",
                Duration::from_secs(30),
            ))
            .await?;
        times.push(started.elapsed().as_secs_f64() * 1000.0);
        anyhow::ensure!(out.exit_code == Some(0), "python failed: {out:?}");
        warm.destroy(&thread).await?;
    }
    report("warm_first_python", times);
    warm.shutdown().await;
    Ok(())
}
