//! A small HTTP/1.1 server for the tests: routes answer by path, every request is counted.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What a route answers.
#[derive(Clone)]
pub(crate) enum Reply {
    /// Status, headers, body.
    Full(u16, Vec<(String, String)>, Vec<u8>),
    /// Never answers.
    Hang,
}

impl Reply {
    pub(crate) fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
        Reply::Full(
            200,
            vec![("Content-Type".into(), content_type.into())],
            body.into(),
        )
    }

    pub(crate) fn redirect(to: &str) -> Reply {
        Reply::Full(302, vec![("Location".into(), to.into())], Vec::new())
    }

    pub(crate) fn status(code: u16) -> Reply {
        Reply::Full(
            code,
            vec![("Content-Type".into(), "text/plain".into())],
            b"no".to_vec(),
        )
    }
}

/// One request as received.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub(crate) method: String,
    pub(crate) target: String,
    pub(crate) headers: HashMap<String, String>,
    pub(crate) body: String,
}

pub(crate) struct Server {
    pub(crate) port: u16,
    pub(crate) connections: Arc<AtomicUsize>,
    pub(crate) seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    /// Serves `routes` (path without query → reply) on 127.0.0.1.
    pub(crate) async fn start(routes: Vec<(&str, Reply)>) -> Server {
        let routes: Arc<HashMap<String, Reply>> = Arc::new(
            routes
                .into_iter()
                .map(|(p, r)| (p.to_string(), r))
                .collect(),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let connections = Arc::new(AtomicUsize::new(0));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (count, log) = (connections.clone(), seen.clone());
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                count.fetch_add(1, Ordering::SeqCst);
                let (routes, log) = (routes.clone(), log.clone());
                tokio::spawn(async move {
                    let mut data = Vec::new();
                    let mut buf = [0u8; 4096];
                    let head_end = loop {
                        if let Some(at) = data.windows(4).position(|w| w == b"\r\n\r\n") {
                            break at + 4;
                        }
                        match stream.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => data.extend_from_slice(&buf[..n]),
                        }
                    };
                    let head = String::from_utf8_lossy(&data[..head_end]).to_string();
                    let mut lines = head.lines();
                    let mut first = lines.next().unwrap_or_default().split(' ');
                    let method = first.next().unwrap_or_default().to_string();
                    let target = first.next().unwrap_or_default().to_string();
                    let headers: HashMap<String, String> = lines
                        .filter_map(|l| l.split_once(':'))
                        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
                        .collect();
                    let length: usize = headers
                        .get("content-length")
                        .and_then(|l| l.parse().ok())
                        .unwrap_or(0);
                    while data.len() < head_end + length {
                        match stream.read(&mut buf).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => data.extend_from_slice(&buf[..n]),
                        }
                    }
                    let body = String::from_utf8_lossy(&data[head_end..]).to_string();
                    let path = target.split('?').next().unwrap_or_default().to_string();
                    log.lock().unwrap().push(Seen {
                        method,
                        target,
                        headers,
                        body,
                    });
                    let reply = routes.get(&path).cloned().unwrap_or(Reply::status(404));
                    let Reply::Full(code, headers, body) = reply else {
                        tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
                        return;
                    };
                    let mut out = format!(
                        "HTTP/1.1 {code} X\r\nContent-Length: {}\r\nConnection: close\r\n",
                        body.len()
                    );
                    for (k, v) in headers {
                        out.push_str(&format!("{k}: {v}\r\n"));
                    }
                    out.push_str("\r\n");
                    let _ = stream.write_all(out.as_bytes()).await;
                    let _ = stream.write_all(&body).await;
                });
            }
        });
        Server {
            port,
            connections,
            seen,
        }
    }

    pub(crate) fn url(&self, host: &str, path: &str) -> String {
        format!("http://{host}:{}{path}", self.port)
    }

    pub(crate) fn hits(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    pub(crate) fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}
