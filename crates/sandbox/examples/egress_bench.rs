//! `make bench` helper: the egress proxy against a direct connection. A server on the host
//! sends a large body and a tiny one; an `open` sandbox (Docker's bridge) fetches them
//! directly, an `allowlist` one through its relay and the server's proxy, and one JSON object
//! per measurement is printed: throughput in MB/s, per-request latency in ms.
//! Usage: `egress_bench <data-dir> [megabytes] [requests] [image]`.

use std::time::Duration;

use antler_protocol::egress::NetworkMode;
use antler_sandbox::api::{ExecRequest, SandboxProvider};
use antler_sandbox::config::{FALLBACK_IMAGE, SandboxConfig};
use antler_sandbox::docker::{DockerProvider, connect};
use antler_sandbox::view::SkillsView;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Serves `/big` (`mb` MB) and anything else as two bytes, one request per connection.
async fn origin(mb: usize) -> anyhow::Result<u16> {
    let listener = tokio::net::TcpListener::bind("0.0.0.0:0").await?;
    let port = listener.local_addr()?.port();
    tokio::spawn(async move {
        let chunk = vec![b'x'; 1 << 20];
        let chunk: &'static [u8] = chunk.leak();
        while let Ok((mut s, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 2048];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match s.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let big = head.windows(5).any(|w| w == b"/big ");
                let len = if big { mb * 1_000_000 } else { 2 };
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n"
                );
                if s.write_all(reply.as_bytes()).await.is_err() {
                    return;
                }
                let mut left = len;
                while left > 0 {
                    let n = left.min(chunk.len());
                    if s.write_all(&chunk[..n]).await.is_err() {
                        return;
                    }
                    left -= n;
                }
            });
        }
    });
    Ok(port)
}

/// Python in the sandbox: one big download timed, then `n` small requests on fresh
/// connections, each timed; through the relay when `proxied`.
fn client(host: &str, port: u16, n: usize, proxied: bool) -> String {
    let (connect, path) = if proxied {
        (
            "'127.0.0.1', 3128".to_string(),
            format!("http://{host}:{port}"),
        )
    } else {
        (format!("'{host}', {port}"), String::new())
    };
    format!(
        r#"python3 - <<'EOF'
import http.client, json, time
def get(path):
    c = http.client.HTTPConnection({connect}, timeout=60)
    c.request("GET", "{path}" + path)
    r = c.getresponse()
    n = 0
    while True:
        b = r.read(1 << 20)
        if not b: break
        n += len(b)
    c.close()
    return n
t = time.perf_counter(); n = get("/big"); big = time.perf_counter() - t
get("/small")
small = []
for _ in range({n}):
    t = time.perf_counter(); get("/small"); small.append((time.perf_counter() - t) * 1000)
small.sort()
print(json.dumps({{"mb_s": n / big / 1e6, "p50": small[len(small) // 2], "p99": small[min(len(small) - 1, round((len(small) - 1) * 0.99))]}}))
EOF"#
    )
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let data = std::path::PathBuf::from(
        args.next()
            .ok_or_else(|| anyhow::anyhow!("usage: egress_bench <data-dir> [mb] [n] [image]"))?,
    );
    let mb: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(500);
    let n: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(200);
    let image = args.next().unwrap_or_else(|| FALLBACK_IMAGE.into());
    let port = origin(mb).await?;
    // The host as the default bridge's containers reach it.
    let docker = connect(&SandboxConfig::default())?;
    let bridge = docker
        .inspect_network(
            "bridge",
            None::<bollard::query_parameters::InspectNetworkOptions>,
        )
        .await?;
    let gateway = bridge
        .ipam
        .and_then(|i| i.config)
        .and_then(|c| c.into_iter().find_map(|c| c.gateway))
        .ok_or_else(|| anyhow::anyhow!("the bridge network has no gateway"))?;
    let view = SkillsView::open(&data.join("skills-view"))?;
    for (name, mode) in [
        ("direct", NetworkMode::Open),
        ("proxy", NetworkMode::Allowlist),
    ] {
        let cfg = SandboxConfig {
            image: image.clone(),
            network: mode,
            egress: antler_sandbox::config::EgressConfig {
                allowed_domains: vec![format!("{gateway}:{port}")],
            },
            docker: antler_sandbox::config::DockerConfig {
                warm_pool: 0,
                network: "bridge".into(),
                ..Default::default()
            },
            ..SandboxConfig::default()
        };
        let instance = format!("bench-egress-{name}-{}", std::process::id());
        let provider = DockerProvider::start(cfg, &data, view.root(), &instance).await?;
        let sandbox = provider.acquire(name).await?;
        let out = sandbox
            .exec(ExecRequest::new(
                client(&gateway, port, n, mode == NetworkMode::Allowlist),
                Duration::from_secs(600),
            ))
            .await?;
        provider.shutdown().await;
        let line = out.stdout.trim();
        anyhow::ensure!(
            line.starts_with('{'),
            "{name}: {} {}",
            out.stdout,
            out.stderr
        );
        println!("{{\"name\":\"{name}\",\"mb\":{mb},\"n\":{n},\"result\":{line}}}");
    }
    Ok(())
}
