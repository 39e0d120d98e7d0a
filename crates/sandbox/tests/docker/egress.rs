//! `sandbox.network: allowlist` against the real engine: the only "outside" is a server
//! this test starts on 127.0.0.2, reached through the sandbox's egress proxy.

use std::sync::Arc;
use std::time::Duration;

use antler_protocol::egress::{AgentNetwork, NetworkConnection, NetworkMode};
use antler_sandbox::api::{ExecRequest, SandboxProvider};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{Env, sh};

const BODY: &str = "hello from outside";

/// A plain HTTP server answering every request with [`BODY`].
async fn outside() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.2:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&head).to_string();
                // `/host` answers with the Host header that arrived.
                let body = if head.starts_with("GET /host ") {
                    head.lines()
                        .find_map(|l| l.strip_prefix("Host: "))
                        .unwrap_or("none")
                        .to_string()
                } else {
                    BODY.to_string()
                };
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(reply.as_bytes()).await;
            });
        }
    });
    port
}

/// An HTTPS server on 127.0.0.2 (Python's, with a certificate openssl makes for the test);
/// killed when dropped.
struct TlsOutside {
    child: std::process::Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Drop for TlsOutside {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn tls_outside() -> TlsOutside {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let (key, cert) = (dir.path().join("key.pem"), dir.path().join("cert.pem"));
    let made = std::process::Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=outside.test",
        ])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let server = r#"
import http.server, ssl, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"hello over tls"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.2", 0), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[1], sys.argv[2])
s.socket = ctx.wrap_socket(s.socket, server_side=True)
print(s.server_address[1], flush=True)
s.serve_forever()
"#;
    let mut child = std::process::Command::new("python3")
        .arg("-c")
        .arg(server)
        .arg(&cert)
        .arg(&key)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    TlsOutside {
        port: line.trim().parse().unwrap(),
        child,
        _dir: dir,
    }
}

/// Python run in the sandbox; prints one line per attempt.
fn client(port: u16, tls_port: u16) -> String {
    format!(
        r#"python3 - <<'EOF'
import http.client, socket, ssl, urllib.request, urllib.error
def show(label, f):
    try:
        print(label, "ok", f())
    except urllib.error.HTTPError as e:
        print(label, "http", e.code, e.read().decode().strip())
    except Exception as e:
        print(label, "error", type(e).__name__, e)
# Through HTTP_PROXY from the environment, as any client would go.
show("plain", lambda: urllib.request.urlopen("http://127.0.0.2:{port}/a", timeout=10).read().decode())
# A CONNECT tunnel (what HTTPS uses), then HTTP inside it.
def tunnel():
    c = http.client.HTTPConnection("127.0.0.1", 3128, timeout=10)
    c.set_tunnel("127.0.0.2", {port})
    c.request("GET", "/b")
    return c.getresponse().read().decode()
show("tunnel", tunnel)
# HTTPS through HTTPS_PROXY: a CONNECT tunnel with TLS end to end (the proxy never sees inside).
show("https", lambda: urllib.request.urlopen("https://127.0.0.2:{tls_port}/", timeout=10, context=ssl._create_unverified_context()).read().decode())
def spoofed_host():
    c = http.client.HTTPConnection("127.0.0.1", 3128, timeout=10)
    c.putrequest("GET", "http://127.0.0.2:{port}/host", skip_host=True)
    c.putheader("Host", "evil.example")
    c.endheaders()
    return c.getresponse().read().decode()
show("host", spoofed_host)
show("blocked", lambda: urllib.request.urlopen("http://blocked.example/", timeout=10).read().decode())
def private_name():
    c = http.client.HTTPConnection("127.0.0.1", 3128, timeout=10)
    c.request("GET", "http://localhost:{port}/c")
    r = c.getresponse()
    return (r.status, r.read().decode().strip())
show("private", private_name)
def direct(host, port):
    s = socket.create_connection((host, port), timeout=5)
    s.close()
    return "connected"
show("direct-ip", lambda: direct("1.1.1.1", 80))
show("direct-gateway", lambda: direct("172.17.0.1", 22))
show("dns", lambda: socket.getaddrinfo("example.com", 443))
EOF"#
    )
}

fn line<'a>(stdout: &'a str, label: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| l.starts_with(&format!("{label} ")))
        .ok_or_else(|| format!("no {label} line in {stdout}"))
        .unwrap()
}

fn find<'a>(log: &'a [NetworkConnection], host: &str) -> &'a NetworkConnection {
    log.iter()
        .find(|c| c.host == host)
        .ok_or_else(|| format!("no record of {host} in {log:?}"))
        .unwrap()
}

#[tokio::test]
async fn allowlist_egress_goes_through_the_proxy_and_nothing_else_leaves() {
    let Some(env) = Env::ready().await else {
        return;
    };
    let port = outside().await;
    let tls = tls_outside();
    let provider = env
        .provider(|c| {
            c.network = NetworkMode::Allowlist;
            c.egress.allowed_domains = vec![
                format!("127.0.0.2:{port}"),
                format!("127.0.0.2:{}", tls.port),
                format!("localhost:{port}"),
            ];
        })
        .await;
    let sb = provider.acquire("egress").await.unwrap();
    let out = sh(&sb, &client(port, tls.port)).await;
    let stdout = out.stdout.as_str();
    assert_eq!(line(stdout, "plain"), format!("plain ok {BODY}"), "{out:?}");
    assert_eq!(
        line(stdout, "tunnel"),
        format!("tunnel ok {BODY}"),
        "{out:?}"
    );
    assert_eq!(line(stdout, "https"), "https ok hello over tls", "{out:?}");
    assert_eq!(
        line(stdout, "host"),
        format!("host ok 127.0.0.2:{port}"),
        "the checked host is the one the upstream sees"
    );
    let blocked = line(stdout, "blocked");
    assert!(
        blocked.starts_with("blocked http 403") && blocked.contains("not in the egress allow-list"),
        "{blocked}"
    );
    let private = line(stdout, "private");
    assert!(
        private.contains("403") && private.contains("resolves to"),
        "{private}"
    );
    for label in ["direct-ip", "direct-gateway", "dns"] {
        assert!(line(stdout, label).contains(" error "), "{stdout}");
    }

    // The log names every attempt, with its verdict and bytes.
    let log = out.network.clone().unwrap();
    let plain = log
        .iter()
        .find(|c| c.host == "127.0.0.2" && c.method == "get")
        .unwrap();
    assert!(plain.allowed && plain.error.is_none(), "{plain:?}");
    assert!(plain.bytes_received > BODY.len() as u64, "{plain:?}");
    assert!(plain.bytes_sent > 0, "{plain:?}");
    let tunnel = log
        .iter()
        .find(|c| c.host == "127.0.0.2" && c.method == "connect")
        .unwrap();
    assert!(
        tunnel.allowed && tunnel.bytes_received > BODY.len() as u64,
        "{tunnel:?}"
    );
    assert_eq!(
        tunnel.address.as_deref(),
        Some(format!("127.0.0.2:{port}").as_str())
    );
    let blocked = find(&log, "blocked.example");
    assert!(
        !blocked.allowed && blocked.bytes_received == 0,
        "{blocked:?}"
    );
    let private = find(&log, "localhost");
    assert!(!private.allowed, "{private:?}");
    assert_eq!(
        log.len(),
        6,
        "direct attempts never reach the proxy: {log:?}"
    );
    let https = log
        .iter()
        .find(|c| c.port == tls.port)
        .ok_or("no record of the HTTPS connection")
        .unwrap();
    assert!(
        https.allowed && https.method == "connect" && https.bytes_received > 500,
        "a TLS handshake and a response went through: {https:?}"
    );

    // A later command sees only its own connections.
    let again = sh(
        &sb,
        "python3 -c \"import urllib.request as u; u.urlopen('http://127.0.0.2:PORT/')\""
            .replace("PORT", &port.to_string())
            .as_str(),
    )
    .await;
    assert_eq!(again.network.unwrap().len(), 1);

    // An agent's policy replaces the server's on the running sandbox: the same host is
    // refused at once.
    let network = AgentNetwork {
        mode: Some(NetworkMode::Allowlist),
        allowed_domains: Some(vec!["other.example".into()]),
    };
    // Held by a run, the sandbox is not handed to one with another mode.
    let open = AgentNetwork {
        mode: Some(NetworkMode::Open),
        allowed_domains: None,
    };
    let refused = provider
        .acquire_for(
            "egress",
            antler_sandbox::Acquire {
                network: Some(&open),
                ..antler_sandbox::Acquire::default()
            },
        )
        .await;
    let message = match refused {
        Err(antler_sandbox::SandboxError::Unavailable(m)) => m,
        Err(other) => format!("not Unavailable: {other}"),
        Ok(_) => "handed over".to_string(),
    };
    assert!(message.contains("another network policy"), "{message}");
    drop(sb);
    let sb = provider
        .acquire_for(
            "egress",
            antler_sandbox::Acquire {
                owner: None,
                image: None,
                network: Some(&network),
                keep: false,
            },
        )
        .await
        .unwrap();
    let out = sb
        .exec(ExecRequest::new(
            client(port, tls.port),
            Duration::from_secs(60),
        ))
        .await
        .unwrap();
    assert!(line(&out.stdout, "plain").contains("403"), "{}", out.stdout);
    // A server job takes the container as it is: the agent's rules stay.
    let job = provider
        .acquire_for(
            "egress",
            antler_sandbox::Acquire {
                keep: true,
                ..antler_sandbox::Acquire::default()
            },
        )
        .await
        .unwrap();
    assert!(Arc::ptr_eq(&sb, &job));
    let out = sh(&sb, &client(port, tls.port)).await;
    assert!(line(&out.stdout, "plain").contains("403"), "{}", out.stdout);
    provider.shutdown().await;
}

#[tokio::test]
async fn no_network_has_no_proxy_and_open_has_docker_s_network() {
    let Some(env) = Env::ready().await else {
        return;
    };
    let provider = env.provider(|_| {}).await;
    let sb = provider.acquire("none").await.unwrap();
    let out = sh(&sb, "echo $HTTPS_PROXY; ls /run/antler-egress 2>&1; python3 -c \"import socket; socket.create_connection(('1.1.1.1', 80), timeout=3)\" 2>&1 | tail -1").await;
    assert!(out.network.is_none());
    assert!(!out.stdout.contains("3128"), "{out:?}");
    assert!(out.stdout.contains("No such file"), "{out:?}");
    assert!(out.stdout.contains("unreachable"), "{out:?}");
    drop(sb);
    // An agent set to `open` gets a fresh container on Docker's bridge network.
    let network = AgentNetwork {
        mode: Some(NetworkMode::Open),
        allowed_domains: None,
    };
    let sb = provider
        .acquire_for(
            "none",
            antler_sandbox::Acquire {
                owner: None,
                image: None,
                network: Some(&network),
                keep: false,
            },
        )
        .await
        .unwrap();
    let out = sh(&sb, "cat /sys/class/net/eth0/address 2>&1").await;
    assert!(
        out.exit_code == Some(0),
        "an open sandbox has an interface: {out:?}"
    );
    provider.shutdown().await;
}
