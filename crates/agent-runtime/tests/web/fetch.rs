//! `Fetcher` under the web policy: pages are read, internal addresses refused (also after
//! a redirect, or behind a name), and the connection goes where the one lookup said.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use antler_agent_runtime::tools::web::{
    FetchConfig, Fetcher, Lookup, WebPolicy, WebToolsConfig, extract,
};
use async_trait::async_trait;

use crate::server::{Reply, Server};

/// A resolver answering from a table: each name's answers in turn (the last one repeats),
/// every question counted.
#[derive(Default)]
struct Table {
    answers: Mutex<HashMap<String, Vec<Vec<IpAddr>>>>,
    asked: AtomicUsize,
}

impl Table {
    fn with(entries: &[(&str, &[&[&str]])]) -> Arc<Table> {
        let table = Table::default();
        for (name, answers) in entries {
            let answers = answers
                .iter()
                .map(|a| a.iter().map(|ip| ip.parse().unwrap()).collect())
                .collect();
            table
                .answers
                .lock()
                .unwrap()
                .insert(name.to_string(), answers);
        }
        Arc::new(table)
    }

    fn asked(&self) -> usize {
        self.asked.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl Lookup for Table {
    async fn lookup(&self, host: &str) -> std::io::Result<Vec<IpAddr>> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let mut answers = self.answers.lock().unwrap();
        let list = answers
            .get_mut(host)
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such name"))?;
        Ok(if list.len() > 1 {
            list.remove(0)
        } else {
            list[0].clone()
        })
    }
}

fn fetcher(lookup: Arc<dyn Lookup>, cfg: FetchConfig) -> Fetcher {
    Fetcher::new(cfg, lookup)
}

fn policy(cfg: WebToolsConfig) -> WebPolicy {
    WebPolicy::new(&cfg).unwrap()
}

/// Private networks open (the only way to reach this test's own server by its address).
fn open(port: u16) -> WebPolicy {
    policy(WebToolsConfig {
        allow_private_networks: true,
        allowed_ports: vec![80, 443, port],
        ..Default::default()
    })
}

/// Private networks closed; only 127.0.0.1 (the test's server) is listed, and names under
/// `.test` (which the table resolves).
fn closed(port: u16) -> WebPolicy {
    policy(WebToolsConfig {
        allowed_domains: vec!["127.0.0.1/32".into(), "*.test".into()],
        allowed_ports: vec![80, 443, port],
        ..Default::default()
    })
}

const ARTICLE: &str = r#"<!doctype html><html><head><title>Ferris facts</title><script>track()</script></head>
<body><nav><a href="/">Home</a></nav><main><article><h1>Ferris the crab</h1>
<p>Ferris is the unofficial mascot of the Rust programming language, drawn as a friendly orange crab, and
appears on stickers, shirts and slides at conferences around the world.</p>
<p>The name comes from ferrous, meaning of or pertaining to iron, which fits a language named after a fungus
and a kind of corrosion, as the community likes to point out in talks.</p>
<p>Read <a href="/more">more about Ferris</a> on the next page, which has pictures, history and a long list
of places where the crab shows up.</p></article></main></body></html>"#;

#[tokio::test]
async fn a_page_is_read_after_redirects_as_markdown_with_absolute_links() {
    let server = Server::start(vec![
        ("/start", Reply::redirect("/middle")),
        ("/middle", Reply::redirect("/article")),
        ("/article", Reply::ok("text/html; charset=utf-8", ARTICLE)),
    ])
    .await;
    let f = fetcher(Table::with(&[]), FetchConfig::default());
    let got = f
        .fetch(&server.url("127.0.0.1", "/start"), &open(server.port))
        .await
        .unwrap();
    assert_eq!(got.url.as_str(), server.url("127.0.0.1", "/article"));
    assert_eq!(got.media_type, "text/html");
    let page = extract::html_to_markdown(
        &extract::decode(&got.body, got.charset.as_deref(), true),
        got.url.as_str(),
    );
    assert!(page.text.contains("unofficial mascot"), "{}", page.text);
    assert!(
        page.text
            .contains(&format!("({})", server.url("127.0.0.1", "/more"))),
        "{}",
        page.text
    );
    assert!(!page.text.contains("track()"), "{}", page.text);
    let ua = &server.requests()[0].headers["user-agent"];
    assert!(ua.starts_with("Antler/"), "{ua}");
}

#[tokio::test]
async fn redirects_are_limited_and_errors_name_the_status() {
    let mut routes = vec![("/404", Reply::status(404))];
    let hops: Vec<String> = (0..7).map(|i| format!("/r{i}")).collect();
    for i in 0..6 {
        routes.push((hops[i].as_str(), Reply::redirect(&hops[i + 1])));
    }
    let server = Server::start(routes).await;
    let f = fetcher(Table::with(&[]), FetchConfig::default());
    let e = f
        .fetch(&server.url("127.0.0.1", "/r0"), &open(server.port))
        .await
        .unwrap_err();
    assert!(e.contains("more than 5 redirects"), "{e}");
    let e = f
        .fetch(&server.url("127.0.0.1", "/404"), &open(server.port))
        .await
        .unwrap_err();
    assert!(e.contains("HTTP 404"), "{e}");
    let e = f.fetch("not a url", &open(server.port)).await.unwrap_err();
    assert!(e.contains("not a valid URL"), "{e}");
}

#[tokio::test]
async fn with_private_networks_off_the_server_itself_is_never_contacted() {
    let server = Server::start(vec![("/", Reply::ok("text/plain", "secret"))]).await;
    let strict = policy(WebToolsConfig {
        allowed_ports: vec![80, 443, server.port],
        ..Default::default()
    });
    let f = fetcher(
        Table::with(&[("localhost.test", &[&["127.0.0.1"]])]),
        FetchConfig::default(),
    );
    for url in [
        server.url("127.0.0.1", "/"),
        server.url("[::ffff:127.0.0.1]", "/"),
        server.url("localhost.test", "/"),
        server.url("0.0.0.0", "/"),
    ] {
        let e = f.fetch(&url, &strict).await.unwrap_err();
        assert!(e.contains("allow_private_networks is off"), "{url}: {e}");
    }
    assert_eq!(server.hits(), 0);
}

#[tokio::test]
async fn a_redirect_to_an_internal_address_is_refused() {
    let server = Server::start(vec![
        ("/to-name", Reply::redirect("/unused")),
        (
            "/to-metadata",
            Reply::redirect("http://169.254.169.254/latest/meta-data/"),
        ),
        ("/to-private", Reply::redirect("http://10.0.0.7/admin")),
        ("/to-file", Reply::redirect("file:///etc/passwd")),
    ])
    .await;
    let inside = server.url("inside.test", "/admin");
    let to_name = Server::start(vec![("/go", Reply::redirect(&inside))]).await;
    let table = Table::with(&[("inside.test", &[&["10.1.2.3"]])]);
    let f = fetcher(table, FetchConfig::default());
    let p = closed(server.port);
    for (path, says) in [
        ("/to-metadata", "169.254.169.254"),
        ("/to-private", "10.0.0.7"),
        ("/to-file", "only http and https"),
    ] {
        let e = f
            .fetch(&server.url("127.0.0.1", path), &p)
            .await
            .unwrap_err();
        assert!(e.contains(says), "{path}: {e}");
    }
    // A redirect to a name that resolves inside: refused by the address it resolves to.
    let p = policy(WebToolsConfig {
        allowed_domains: vec!["127.0.0.1/32".into(), "*.test".into()],
        allowed_ports: vec![80, 443, server.port, to_name.port],
        ..Default::default()
    });
    let e = f
        .fetch(&to_name.url("127.0.0.1", "/go"), &p)
        .await
        .unwrap_err();
    assert!(
        e.contains("inside.test resolves to 10.1.2.3, a private (RFC 1918) address"),
        "{e}"
    );
}

#[tokio::test]
async fn a_name_resolving_to_an_internal_address_is_refused() {
    let table = Table::with(&[
        ("metadata.test", &[&["169.254.169.254"]]),
        ("mixed.test", &[&["93.184.215.14", "192.168.0.10"]]),
        ("v6.test", &[&["::1"]]),
    ]);
    let f = fetcher(table, FetchConfig::default());
    let p = policy(WebToolsConfig::default());
    for (url, says) in [
        ("http://metadata.test/", "the cloud metadata address"),
        ("http://mixed.test/", "192.168.0.10, a private"),
        ("https://v6.test/", "::1, a loopback address"),
    ] {
        let e = f.fetch(url, &p).await.unwrap_err();
        assert!(e.contains(says), "{url}: {e}");
    }
}

#[tokio::test]
async fn a_rebinding_resolver_cannot_move_the_connection() {
    let server = Server::start(vec![("/", Reply::ok("text/plain", "the checked host"))]).await;
    // First answer: the listed test server; every later one: the metadata address. The
    // fetcher asks once and connects to what it checked.
    let table = Table::with(&[("rebind.test", &[&["127.0.0.1"], &["169.254.169.254"]])]);
    let f = fetcher(table.clone(), FetchConfig::default());
    let got = f
        .fetch(&server.url("rebind.test", "/"), &closed(server.port))
        .await
        .unwrap();
    assert_eq!(got.body, b"the checked host");
    assert_eq!(table.asked(), 1, "one lookup per hop");
    assert_eq!(server.hits(), 1);
    // The other order: an internal first answer is refused, and nothing is asked again.
    let table = Table::with(&[("rebind.test", &[&["10.9.9.9"], &["127.0.0.1"]])]);
    let f = fetcher(table.clone(), FetchConfig::default());
    let e = f
        .fetch(&server.url("rebind.test", "/"), &closed(server.port))
        .await
        .unwrap_err();
    assert!(e.contains("10.9.9.9"), "{e}");
    assert_eq!(table.asked(), 1);
    assert_eq!(server.hits(), 1, "no second connection");
}

fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn gzipped(content_type: &str, data: &[u8]) -> Reply {
    Reply::Full(
        200,
        vec![
            ("Content-Type".into(), content_type.into()),
            ("Content-Encoding".into(), "gzip".into()),
        ],
        gzip(data),
    )
}

#[tokio::test]
async fn size_and_time_limits_hold() {
    let big = "x".repeat(300_000);
    let server = Server::start(vec![
        ("/big", Reply::ok("text/plain", big)),
        ("/hang", Reply::Hang),
        ("/small.gz", gzipped("text/plain", b"unpacked text")),
        // 50 MB of zeros in about 50 KB: unpacked only up to the limit.
        (
            "/bomb.gz",
            gzipped("text/plain", &vec![0u8; 50 * 1024 * 1024]),
        ),
        (
            "/br",
            Reply::Full(
                200,
                vec![("Content-Encoding".into(), "br".into())],
                b"??".to_vec(),
            ),
        ),
    ])
    .await;
    let f = fetcher(
        Table::with(&[]),
        FetchConfig {
            max_bytes: 100_000,
            timeout_secs: 1,
            ..Default::default()
        },
    );
    let got = f
        .fetch(&server.url("127.0.0.1", "/big"), &open(server.port))
        .await
        .unwrap();
    assert_eq!((got.body.len(), got.truncated), (100_000, true));
    let got = f
        .fetch(&server.url("127.0.0.1", "/small.gz"), &open(server.port))
        .await
        .unwrap();
    assert_eq!(
        (got.body.as_slice(), got.truncated),
        (&b"unpacked text"[..], false)
    );
    assert_eq!(server.requests()[1].headers["accept-encoding"], "gzip");
    let got = f
        .fetch(&server.url("127.0.0.1", "/bomb.gz"), &open(server.port))
        .await
        .unwrap();
    assert_eq!((got.body.len(), got.truncated), (100_000, true));
    let e = f
        .fetch(&server.url("127.0.0.1", "/br"), &open(server.port))
        .await
        .unwrap_err();
    assert!(e.contains("content encoding br"), "{e}");
    let e = f
        .fetch(&server.url("127.0.0.1", "/hang"), &open(server.port))
        .await
        .unwrap_err();
    assert!(e.contains("within 1s"), "{e}");
}
