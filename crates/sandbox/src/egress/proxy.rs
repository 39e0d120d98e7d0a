//! The proxy protocol on one connection from a sandbox: `CONNECT host:port` tunnels (HTTPS,
//! no TLS interception) and plain `http://` requests in absolute form, each checked against
//! the rules, resolved once and connected to the checked address (no DNS rebinding window).

use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use antler_protocol::egress::NetworkConnection;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpStream, UnixStream};

use super::log::ConnLog;
use super::policy::{Rules, Target, normalize};

/// Longest request head accepted.
const MAX_HEAD: usize = 64 * 1024;
/// How long a sandbox may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
/// How long resolving and connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// Copy buffer per direction.
const BUFFER: usize = 64 * 1024;

/// What a sandbox asked for.
struct Ask {
    method: String,
    host: String,
    port: u16,
    /// For a plain request: the head to send upstream (origin form, `Connection: close`).
    forward: Option<Vec<u8>>,
}

/// A record in the making; whatever happens, dropping it closes the connection in the log.
struct Record<'a> {
    log: &'a ConnLog,
    seq: u64,
    started: Instant,
    conn: Option<NetworkConnection>,
    sent: Arc<AtomicU64>,
    received: Arc<AtomicU64>,
}

impl Drop for Record<'_> {
    fn drop(&mut self) {
        let record = self.conn.take().map(|mut c| {
            c.bytes_sent = self.sent.load(Ordering::Relaxed);
            c.bytes_received = self.received.load(Ordering::Relaxed);
            c.duration_ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
            c
        });
        self.log.close(self.seq, record);
    }
}

/// Serves one connection from the sandbox's relay.
pub(crate) async fn serve(mut client: UnixStream, rules: Arc<Rules>, log: &ConnLog) {
    let mut record = Record {
        log,
        seq: log.open(),
        started: Instant::now(),
        conn: None,
        sent: Arc::default(),
        received: Arc::default(),
    };
    let (ask, rest) = match tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut client)).await {
        Ok(Ok(read)) => read,
        Ok(Err(message)) => return reply(&mut client, 400, "Bad Request", &message).await,
        Err(_) => return,
    };
    let conn = record.conn.insert(NetworkConnection {
        host: ask.host.clone(),
        port: ask.port,
        method: ask.method.clone(),
        allowed: false,
        error: None,
        address: None,
        bytes_sent: 0,
        bytes_received: 0,
        duration_ms: 0,
    });
    let target = match rules.admit(&ask.host, ask.port) {
        Ok(target) => target,
        Err(reason) => {
            conn.error = Some(reason.clone());
            let message = format!("refused by Antler's egress policy: {reason}");
            return reply(&mut client, 403, "Forbidden by egress policy", &message).await;
        }
    };
    conn.allowed = true;
    let upstream = tokio::time::timeout(CONNECT_TIMEOUT, connect(&rules, &target, ask.port)).await;
    let (upstream, address) = match upstream {
        Ok(Ok(pair)) => pair,
        Ok(Err((status, reason))) => {
            conn.allowed = status != 403;
            conn.error = Some(reason.clone());
            let phrase = if status == 403 {
                "Forbidden by egress policy"
            } else {
                "Bad Gateway"
            };
            return reply(&mut client, status, phrase, &reason).await;
        }
        Err(_) => {
            let reason = format!("connecting to {}:{} timed out", ask.host, ask.port);
            conn.error = Some(reason.clone());
            return reply(&mut client, 504, "Gateway Timeout", &reason).await;
        }
    };
    conn.address = Some(address.to_string());
    let mut upstream = Counted {
        inner: upstream,
        read: record.received.clone(),
    };
    let mut client = Counted {
        inner: client,
        read: record.sent.clone(),
    };
    let first = match &ask.forward {
        Some(head) => {
            let mut first = head.clone();
            first.extend_from_slice(&rest);
            first
        }
        None => {
            if client
                .inner
                .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                .await
                .is_err()
            {
                return;
            }
            rest
        }
    };
    record.sent.fetch_add(first.len() as u64, Ordering::Relaxed);
    if !first.is_empty() && upstream.inner.write_all(&first).await.is_err() {
        return;
    }
    let _ =
        tokio::io::copy_bidirectional_with_sizes(&mut client, &mut upstream, BUFFER, BUFFER).await;
}

/// Turns away a connection over the sandbox's share ([`super::MAX_CONNECTIONS`]).
pub(crate) async fn refuse_busy(mut client: UnixStream) {
    let message = format!(
        "too many connections from this sandbox at once (at most {})",
        super::MAX_CONNECTIONS
    );
    reply(&mut client, 503, "Service Unavailable", &message).await;
}

/// Resolves (when needed), checks every address, and connects to the checked ones in turn
/// (an IPv6 address first on a host without an IPv6 route falls back to IPv4).
async fn connect(
    rules: &Rules,
    target: &Target,
    port: u16,
) -> Result<(TcpStream, SocketAddr), (u16, String)> {
    let ips = match target {
        Target::Ip(ip) => vec![*ip],
        Target::Name(name) => {
            let found: Vec<IpAddr> = tokio::net::lookup_host((name.as_str(), port))
                .await
                .map_err(|e| (502, format!("cannot resolve {name}: {e}")))?
                .map(|a| a.ip())
                .collect();
            rules.checked(name, &found, port).map_err(|m| (403, m))?
        }
    };
    let mut last = String::new();
    for ip in ips {
        let address = SocketAddr::new(ip, port);
        match TcpStream::connect(address).await {
            Ok(stream) => {
                let _ = stream.set_nodelay(true);
                return Ok((stream, address));
            }
            Err(e) => last = format!("cannot connect to {address}: {e}"),
        }
    }
    Err((502, last))
}

/// Reads and parses the request head; returns it with the bytes read past it.
async fn read_head(client: &mut UnixStream) -> Result<(Ask, Vec<u8>), String> {
    let mut buf = Vec::with_capacity(4096);
    loop {
        let mut chunk = [0u8; 4096];
        let n = client
            .read(&mut chunk)
            .await
            .map_err(|e| format!("reading the request: {e}"))?;
        if n == 0 {
            return Err("the connection closed before a request".into());
        }
        buf.extend_from_slice(&chunk[..n]);
        let mut headers = [httparse::EMPTY_HEADER; 96];
        let mut request = httparse::Request::new(&mut headers);
        match request.parse(&buf) {
            Ok(httparse::Status::Complete(len)) => {
                let ask = ask_of(&request)?;
                return Ok((ask, buf[len..].to_vec()));
            }
            Ok(httparse::Status::Partial) if buf.len() < MAX_HEAD => {}
            Ok(httparse::Status::Partial) => return Err("the request head is too long".into()),
            Err(e) => return Err(format!("not an HTTP proxy request: {e}")),
        }
    }
}

fn ask_of(request: &httparse::Request<'_, '_>) -> Result<Ask, String> {
    let method = request.method.unwrap_or_default();
    let target = request.path.unwrap_or_default();
    if method.eq_ignore_ascii_case("CONNECT") {
        let (host, port) = target
            .rsplit_once(':')
            .and_then(|(h, p)| Some((h, p.parse::<u16>().ok()?)))
            .ok_or_else(|| format!("CONNECT needs host:port, not {target}"))?;
        return Ok(Ask {
            method: "connect".into(),
            host: normalize(host),
            port,
            forward: None,
        });
    }
    let url = url::Url::parse(target).map_err(|_| {
        "this is Antler's egress proxy: send http://host/path requests or CONNECT host:port"
            .to_string()
    })?;
    if url.scheme() != "http" {
        return Err(format!(
            "{} URLs go through CONNECT, not as a plain proxy request",
            url.scheme()
        ));
    }
    let host = url
        .host_str()
        .ok_or_else(|| format!("{target} has no host"))?;
    let port = url.port_or_known_default().unwrap_or(80);
    let mut head = format!(
        "{method} {}",
        &url[url::Position::BeforePath..url::Position::AfterQuery]
    );
    head.push_str(" HTTP/1.1\r\n");
    for h in request.headers.iter() {
        let name = h.name.to_ascii_lowercase();
        // Hop-by-hop and proxy headers stay here; the upstream connection serves one request.
        // `Host` is the checked URL's: another one would reach a site behind the same address
        // that the allow-list never saw.
        if name.starts_with("proxy-")
            || name == "connection"
            || name == "keep-alive"
            || name == "host"
        {
            continue;
        }
        head.push_str(h.name);
        head.push_str(": ");
        head.push_str(&String::from_utf8_lossy(h.value));
        head.push_str("\r\n");
    }
    head.push_str(&format!(
        "Host: {}\r\n",
        &url[url::Position::BeforeHost..url::Position::AfterPort]
    ));
    head.push_str("Connection: close\r\n\r\n");
    Ok(Ask {
        method: method.to_ascii_lowercase(),
        host: normalize(host),
        port,
        forward: Some(head.into_bytes()),
    })
}

async fn reply(client: &mut UnixStream, status: u16, phrase: &str, message: &str) {
    let body = format!("{message}\n");
    let head = format!(
        "HTTP/1.1 {status} {phrase}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\nX-Antler-Egress: {}\r\n\r\n",
        body.len(),
        if status == 403 { "refused" } else { "failed" }
    );
    let _ = client.write_all(head.as_bytes()).await;
    let _ = client.write_all(body.as_bytes()).await;
    let _ = client.shutdown().await;
}

/// A stream that counts the bytes read from it, live (so a broken copy keeps its count).
struct Counted<S> {
    inner: S,
    read: Arc<AtomicU64>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Counted<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        let n = buf.filled().len() - before;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Counted<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
