//! Controlled network egress (`sandbox.network: allowlist`).
//!
//! Such a sandbox has no network interface but loopback, so no direct connection leaves it.
//! A relay in the container (socat, from the image) listens on `127.0.0.1:3128` and hands
//! each connection to a unix socket bound in from the host: that socket is the sandbox's own
//! [`Endpoint`] in the server, an HTTP proxy that checks every request against the rules,
//! connects to the checked address, and logs host, port, verdict and bytes. One socket per
//! container means every connection is known to come from that sandbox, with no shared
//! network, no host gateway to reach, and nothing to configure in the host's firewall.

pub mod address;
mod log;
pub mod policy;
mod proxy;

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use antler_protocol::egress::{NetworkConnection, NetworkMode};
use tokio::net::UnixListener;

use log::ConnLog;
pub use policy::Rules;

/// Where the endpoint's directory is mounted in the container.
pub const CONTAINER_DIR: &str = "/run/antler-egress";
/// The socket's name in that directory.
pub const SOCKET: &str = "proxy.sock";
/// The relay's port on the container's loopback (`HTTP_PROXY=http://127.0.0.1:3128`).
pub const RELAY_PORT: u16 = 3128;
/// Longest path a unix socket may have (`sun_path` is 108 bytes with its NUL).
const MAX_SOCKET_PATH: usize = 107;
/// Most connections one sandbox has open through its endpoint; more are refused with a 503
/// (the server's descriptors are shared by every sandbox).
pub const MAX_CONNECTIONS: usize = 256;
/// How long a finished command waits for its connections to close before reporting them.
const SETTLE: Duration = Duration::from_millis(500);

/// The command a proxied container runs: the relay in the background, then `sleep` as the
/// container's life. Without socat the container still runs; its requests then fail.
pub fn relay_command() -> Vec<String> {
    vec![
        "/bin/sh".into(),
        "-c".into(),
        format!(
            "socat -b 131072 TCP-LISTEN:{RELAY_PORT},bind=127.0.0.1,reuseaddr,fork UNIX-CONNECT:{CONTAINER_DIR}/{SOCKET} & exec sleep infinity"
        ),
    ]
}

/// The environment that points HTTP clients, pip and npm at the relay.
pub fn proxy_env() -> Vec<String> {
    let url = format!("http://127.0.0.1:{RELAY_PORT}");
    let mut env: Vec<String> = [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "http_proxy",
        "https_proxy",
        "ALL_PROXY",
        "npm_config_proxy",
        "npm_config_https_proxy",
        "PIP_PROXY",
    ]
    .iter()
    .map(|k| format!("{k}={url}"))
    .collect();
    env.push("NO_PROXY=localhost,127.0.0.1,::1".into());
    env.push("no_proxy=localhost,127.0.0.1,::1".into());
    env
}

struct Shared {
    rules: RwLock<Arc<Rules>>,
    log: ConnLog,
}

/// One sandbox's proxy: its socket, its rules (changeable while it runs) and its log.
pub struct Endpoint {
    dir: PathBuf,
    shared: Arc<Shared>,
    accept: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl Endpoint {
    /// Creates `dir` with the socket in it (connectable by the sandbox's user) and serves it.
    pub fn bind(dir: PathBuf, rules: Rules) -> std::io::Result<Arc<Endpoint>> {
        use std::os::unix::fs::PermissionsExt;
        let socket = dir.join(SOCKET);
        if socket.as_os_str().len() > MAX_SOCKET_PATH {
            return Err(std::io::Error::other(format!(
                "{} is too long for a unix socket; use a shorter data dir",
                socket.display()
            )));
        }
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755))?;
        let listener = UnixListener::bind(&socket)?;
        // The sandbox's user is not the server's: it needs write permission to connect.
        std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o666))?;
        let shared = Arc::new(Shared {
            rules: RwLock::new(Arc::new(only_allowlist(rules))),
            log: ConnLog::default(),
        });
        let serving = shared.clone();
        let open = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
        let accept = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    // Out of descriptors, say: back off rather than spin.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                let Ok(slot) = open.clone().try_acquire_owned() else {
                    tokio::spawn(proxy::refuse_busy(stream));
                    continue;
                };
                let shared = serving.clone();
                tokio::spawn(async move {
                    let rules = shared.rules();
                    proxy::serve(stream, rules, &shared.log).await;
                    drop(slot);
                });
            }
        });
        Ok(Arc::new(Endpoint {
            dir,
            shared,
            accept,
        }))
    }

    /// The host directory to mount at [`CONTAINER_DIR`].
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Replaces the rules (connections already open keep theirs); see [`only_allowlist`].
    pub fn set_rules(&self, rules: Rules) {
        if let Ok(mut r) = self.shared.rules.write() {
            *r = Arc::new(only_allowlist(rules));
        }
    }

    /// Marks where a command starts, for [`Endpoint::connections_since`].
    pub fn mark(&self) -> u64 {
        self.shared.log.mark()
    }

    /// The connections made since `mark`, once they closed (or after a short wait).
    pub async fn connections_since(&self, mark: u64) -> Vec<NetworkConnection> {
        self.shared.log.since(mark, SETTLE).await
    }
}

impl Shared {
    fn rules(&self) -> Arc<Rules> {
        self.rules
            .read()
            .map(|r| r.clone())
            .unwrap_or_else(|e| e.into_inner().clone())
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        self.accept.abort();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `rules` when they are `allowlist` ones, else rules that refuse everything: an endpoint
/// never lets everything through.
fn only_allowlist(rules: Rules) -> Rules {
    if rules.mode() == NetworkMode::Allowlist {
        rules
    } else {
        Rules::default()
    }
}

/// Where the endpoints of `instance` live under the data dir (removed whole at start).
pub fn root(data_dir: &Path, instance: &str) -> PathBuf {
    data_dir.join("egress").join(instance)
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    #[tokio::test]
    async fn a_sandbox_cannot_hold_more_than_its_share_of_connections() {
        let tmp = tempfile::tempdir().unwrap();
        let endpoint = Endpoint::bind(tmp.path().join("e"), Rules::default()).unwrap();
        let socket = endpoint.dir().join(SOCKET);
        // Connections that never send a request hold their places.
        let mut held = Vec::new();
        for _ in 0..MAX_CONNECTIONS {
            held.push(tokio::net::UnixStream::connect(&socket).await.unwrap());
        }
        // Once the endpoint has taken them all, one more is told so.
        let mut reply = String::new();
        for _ in 0..100 {
            let mut extra = tokio::net::UnixStream::connect(&socket).await.unwrap();
            reply.clear();
            extra.read_to_string(&mut reply).await.unwrap();
            if reply.starts_with("HTTP/1.1 503") {
                break;
            }
        }
        assert!(reply.contains("too many connections"), "{reply}");
        // A place freed is a place to use.
        drop(held.pop());
        let mut refused = String::new();
        for _ in 0..100 {
            let mut next = tokio::net::UnixStream::connect(&socket).await.unwrap();
            next.write_all(b"CONNECT a.test:443 HTTP/1.1\r\n\r\n")
                .await
                .unwrap();
            refused.clear();
            next.read_to_string(&mut refused).await.unwrap();
            if refused.starts_with("HTTP/1.1 403") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
    }
}
