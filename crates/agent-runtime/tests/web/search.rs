//! Each search provider against a server answering in that provider's documented shape,
//! and what the model and the admin are told when a provider fails.

use antler_agent_runtime::tools::web::search::{SearchHit, TimeRange};
use antler_agent_runtime::tools::web::{SearchConfig, SearchProvider, Searcher};

use crate::server::{Reply, Server};

fn searcher(provider: SearchProvider, server: &Server, key: Option<&str>) -> Searcher {
    Searcher::new(
        SearchConfig {
            provider,
            base_url: Some(format!("http://127.0.0.1:{}", server.port)),
            ..Default::default()
        },
        key.map(str::to_string),
    )
    .unwrap()
}

fn urls(hits: &[SearchHit]) -> Vec<&str> {
    hits.iter().map(|h| h.url.as_str()).collect()
}

#[tokio::test]
async fn searxng_answers_its_json_api() {
    let server = Server::start(vec![(
        "/search",
        Reply::ok(
            "application/json",
            r#"{"query":"rust","number_of_results":2,"results":[
                {"url":"https://www.rust-lang.org/","title":"Rust","content":"A language empowering everyone","engine":"ddg","publishedDate":null},
                {"url":"https://doc.rust-lang.org/book/","title":"The Book","content":"Learn Rust","publishedDate":"2026-03-01T00:00:00"},
                {"url":"javascript:alert(1)","title":"bad","content":""}]}"#,
        ),
    )])
    .await;
    let s = searcher(SearchProvider::Searxng, &server, None);
    let hits = s
        .search("rust lang", 5, Some(TimeRange::Month))
        .await
        .unwrap();
    assert_eq!(
        urls(&hits),
        [
            "https://www.rust-lang.org/",
            "https://doc.rust-lang.org/book/"
        ]
    );
    assert_eq!(hits[1].published.as_deref(), Some("2026-03-01T00:00:00"));
    let target = &server.requests()[0].target;
    assert!(
        target.contains("q=rust+lang")
            && target.contains("format=json")
            && target.contains("time_range=month"),
        "{target}"
    );
}

#[tokio::test]
async fn tavily_gets_its_key_and_answers_results() {
    let server = Server::start(vec![(
        "/search",
        Reply::ok(
            "application/json",
            r#"{"query":"q","answer":null,"images":[],"results":[
                {"title":"T1","url":"https://t1.example/","content":"one","score":0.91,"raw_content":null},
                {"title":"T2","url":"https://t2.example/","content":"two","score":0.5,"published_date":"Tue, 03 Mar 2026"}],
                "response_time":0.4}"#,
        ),
    )])
    .await;
    let s = searcher(SearchProvider::Tavily, &server, Some("tvly-test"));
    let hits = s.search("q", 2, Some(TimeRange::Week)).await.unwrap();
    assert_eq!(urls(&hits), ["https://t1.example/", "https://t2.example/"]);
    assert_eq!(hits[1].published.as_deref(), Some("Tue, 03 Mar 2026"));
    let req = &server.requests()[0];
    assert_eq!(req.method, "POST");
    assert_eq!(req.headers["authorization"], "Bearer tvly-test");
    let body: serde_json::Value = serde_json::from_str(&req.body).unwrap();
    assert_eq!(
        (body["query"].as_str(), body["max_results"].as_u64()),
        (Some("q"), Some(2))
    );
    assert_eq!(body["time_range"], "week");
}

#[tokio::test]
async fn brave_gets_its_key_and_answers_web_results() {
    let server = Server::start(vec![(
        "/res/v1/web/search",
        Reply::ok(
            "application/json",
            r#"{"type":"search","query":{"original":"q"},"web":{"type":"search","results":[
                {"title":"B1","url":"https://b1.example/","description":"first <strong>bold</strong>","age":"March 2, 2026","page_age":"2026-03-02T10:00:00"}]}}"#,
        ),
    )])
    .await;
    let s = searcher(SearchProvider::Brave, &server, Some("brave-key"));
    let hits = s.search("q", 3, Some(TimeRange::Day)).await.unwrap();
    assert_eq!(hits[0].snippet, "first bold");
    assert_eq!(hits[0].published.as_deref(), Some("2026-03-02T10:00:00"));
    let req = &server.requests()[0];
    assert_eq!(req.headers["x-subscription-token"], "brave-key");
    assert!(
        req.target.contains("count=3") && req.target.contains("freshness=pd"),
        "{}",
        req.target
    );
}

#[tokio::test]
async fn duckduckgo_html_results_are_read() {
    let server = Server::start(vec![(
        "/html/",
        Reply::ok(
            "text/html",
            r#"<html><body><div class="results">
            <div class="result results_links results_links_deep web-result"><div class="links_main links_deep result__body">
            <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2Fpage%3Fa%3D1&amp;rut=abc">Example <b>page</b></a></h2>
            <a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2Fpage">An example page.</a></div></div>
            <div class="result results_links result--ad"><a class="result__a" href="https://ads.example/">Ad</a></div>
            </div></body></html>"#,
        ),
    )])
    .await;
    let s = searcher(SearchProvider::Duckduckgo, &server, None);
    let hits = s.search("example", 5, None).await.unwrap();
    assert_eq!(urls(&hits), ["https://example.org/page?a=1"]);
    assert_eq!(hits[0].title, "Example page");
    let req = &server.requests()[0];
    assert_eq!(req.method, "POST");
    assert_eq!(req.body, "q=example");
}

#[tokio::test]
async fn failures_reach_the_model_and_the_admin_clearly() {
    let server = Server::start(vec![
        ("/search", Reply::status(429)),
        ("/res/v1/web/search", Reply::status(401)),
    ])
    .await;
    let s = searcher(SearchProvider::Searxng, &server, None);
    assert!(s.warning().is_none());
    let e = s.search("q", 5, None).await.unwrap_err();
    assert!(e.contains("rate limit") && e.contains("429"), "{e}");
    let w = s.warning().unwrap();
    assert!(w.contains("searxng") && w.contains("429"), "{w}");
    let brave = searcher(SearchProvider::Brave, &server, Some("wrong"));
    let e = brave.search("q", 5, None).await.unwrap_err();
    assert!(
        e.contains("HTTP 401") && e.contains("BRAVE_SEARCH_API_KEY"),
        "{e}"
    );
    let keyless = searcher(SearchProvider::Tavily, &server, None);
    let e = keyless.search("q", 5, None).await.unwrap_err();
    assert!(e.contains("TAVILY_API_KEY is not set"), "{e}");
    assert!(keyless.warning().unwrap().contains("TAVILY_API_KEY"));
    let requests = server.requests().len();
    assert_eq!(requests, 2, "no request without a key");
    let gone = Searcher::new(
        SearchConfig {
            provider: SearchProvider::Searxng,
            base_url: Some("http://127.0.0.1:1".into()),
            ..Default::default()
        },
        None,
    )
    .unwrap();
    let e = gone.search("q", 5, None).await.unwrap_err();
    assert!(e.contains("could not be reached"), "{e}");
}
