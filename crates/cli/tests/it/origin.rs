//! Browsers on other sites cannot drive the server: a foreign `Host` (DNS rebinding) gets
//! 421, an unsafe request from another origin's page gets 403 — multipart and empty bodies
//! included, which a page can send without a preflight — while the server's own pages,
//! configured origins and programs (no `Origin`) work.

use antler_skills::archive::testing::ZipBuilder;
use reqwest::header::{HOST, ORIGIN, REFERER};
use reqwest::multipart::{Form, Part};

use crate::common::{Server, error_code};

fn upload(server: &Server, name: &str) -> reqwest::RequestBuilder {
    let zip = ZipBuilder::new()
        .file(
            &format!("{name}/SKILL.md"),
            format!("---\nname: {name}\ndescription: Installed by a page.\n---\n# {name}\n")
                .as_bytes(),
        )
        .finish()
        .unwrap();
    let form = Form::new()
        .part("file", Part::bytes(zip).file_name("x.skill"))
        .text("enable", "true");
    server
        .http
        .post(server.url("/api/skills/upload"))
        .multipart(form)
}

async fn installed(server: &Server, name: &str) -> bool {
    let (_, list) = server.get_json("/api/skills").await;
    list["skills"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["name"] == name)
}

async fn answer(request: reqwest::RequestBuilder) -> (u16, serde_json::Value) {
    let r = request.send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or_default())
}

/// A request to `path` of `server` sent with `header: value`.
async fn with_header(
    server: &Server,
    method: reqwest::Method,
    path: &str,
    header: reqwest::header::HeaderName,
    value: &str,
) -> (u16, serde_json::Value) {
    answer(
        server
            .http
            .request(method, server.url(path))
            .header(header, value),
    )
    .await
}

/// The server's own origin, as its pages send it.
fn own_origin(server: &Server) -> String {
    server.url("")
}

#[tokio::test]
async fn a_foreign_host_is_refused_and_addresses_and_localhost_are_served() {
    let env = crate::common::Env::new();
    let server = env.start();
    let port = server.url("").rsplit(':').next().unwrap().to_string();
    for host in ["evil.example", "rebind.attacker.example:80"] {
        let (status, body) =
            with_header(&server, reqwest::Method::GET, "/api/skills", HOST, host).await;
        assert_eq!((status, error_code(&body)), (421, "unknown_host"), "{host}");
    }
    for host in [format!("localhost:{port}"), format!("127.0.0.1:{port}")] {
        let (status, _) =
            with_header(&server, reqwest::Method::GET, "/api/skills", HOST, &host).await;
        assert_eq!(status, 200, "{host}");
    }
    // A configured name is served.
    let named = env.start_with(&[("ANTLER_HTTP_ALLOWED_HOSTS", "antler.example, other.example")]);
    let (status, _) = with_header(
        &named,
        reqwest::Method::GET,
        "/api/skills",
        HOST,
        "Antler.Example:8443",
    )
    .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_cross_origin_multipart_upload_is_refused_and_the_same_from_the_servers_page_works() {
    let env = crate::common::Env::new();
    let server = env.start();
    // What `fetch(url, {method: 'POST', mode: 'no-cors', body: formData})` sends from a page
    // of another site (or a sandboxed frame, `null`), and a Referer-only variant.
    for (header, value) in [
        (ORIGIN, "http://evil.example"),
        (ORIGIN, "null"),
        (ORIGIN, "http://127.0.0.1:1"),
        (REFERER, "http://evil.example/page.html"),
    ] {
        let (status, body) = answer(upload(&server, "planted").header(header.clone(), value)).await;
        assert_eq!(
            (status, error_code(&body)),
            (403, "cross_origin_refused"),
            "{header}: {value}"
        );
    }
    // Empty-bodied unsafe requests too (no preflight either).
    let (status, _) = with_header(
        &server,
        reqwest::Method::POST,
        "/api/skills/reload",
        ORIGIN,
        "http://evil.example",
    )
    .await;
    assert_eq!(status, 403);
    assert!(
        !installed(&server, "planted").await,
        "nothing was installed"
    );

    // The server's own page, and a program that sends no Origin, may.
    let (status, body) =
        answer(upload(&server, "from-ui").header(ORIGIN, own_origin(&server))).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = answer(upload(&server, "from-cli")).await;
    assert_eq!(status, 200, "{body}");
    assert!(installed(&server, "from-ui").await && installed(&server, "from-cli").await);
    // Reading is not an unsafe request.
    let (status, _) = with_header(
        &server,
        reqwest::Method::GET,
        "/api/skills",
        ORIGIN,
        "http://evil.example",
    )
    .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn configured_origins_get_cors_headers_and_may_send_unsafe_requests() {
    let env = crate::common::Env::new();
    let server = env.start_with(&[("ANTLER_HTTP_CORS_ALLOWED_ORIGINS", "http://ui.example:3000")]);
    let preflight = |origin: &str| {
        server
            .http
            .request(reqwest::Method::OPTIONS, server.url("/api/threads"))
            .header(ORIGIN, origin)
            .header("access-control-request-method", "POST")
            .header("access-control-request-headers", "content-type")
    };
    let allowed = preflight("http://ui.example:3000").send().await.unwrap();
    assert!(allowed.status().is_success(), "{}", allowed.status());
    let headers = allowed.headers();
    assert_eq!(
        headers["access-control-allow-origin"],
        "http://ui.example:3000"
    );
    assert_eq!(headers["access-control-allow-credentials"], "true");
    let other = preflight("http://evil.example").send().await.unwrap();
    assert!(other.headers().get("access-control-allow-origin").is_none());

    let create = |origin: &str| {
        server
            .http
            .post(server.url("/api/threads"))
            .header(ORIGIN, origin)
            .json(&serde_json::json!({}))
    };
    let (status, body) = answer(create("http://ui.example:3000")).await;
    assert_eq!(status, 200, "{body}");
    let (status, _) = answer(create("http://evil.example")).await;
    assert_eq!(status, 403);

    // A malformed setting stops the server with the key named.
    let out = env
        .command(&["serve", "--bind", "127.0.0.1:0"])
        .env("ANTLER_HTTP_CORS_ALLOWED_ORIGINS", "ui.example/path")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("http.cors.allowed_origins"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
