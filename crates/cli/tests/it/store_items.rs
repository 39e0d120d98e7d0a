//! LangGraph's long-term store through the API (`/api/store/…`, as the SDKs call it): items
//! put, read, searched (filters, full-text ranking), listed by namespace and deleted; each
//! person's items kept apart; times to live; bad input refused.

use serde_json::{Value, json};

use crate::auth::{send, user};
use crate::common::{Env, Server, client_with, error_code, postgres_database};

/// Another person on the same server.
struct Other {
    http: reqwest::Client,
    base: String,
}

impl Other {
    async fn new(server: &Server, email: &str) -> Other {
        Other {
            http: client_with(Some(&user(server, email).await)),
            base: server.url(""),
        }
    }

    async fn put(&self, body: Value) -> u16 {
        send(
            self.http
                .put(format!("{}/api/store/items", self.base))
                .json(&body),
        )
        .await
        .0
    }

    async fn get(&self, query: &str) -> (u16, Value) {
        send(
            self.http
                .get(format!("{}/api/store/items?{query}", self.base)),
        )
        .await
    }

    async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        send(self.http.post(format!("{}{path}", self.base)).json(&body)).await
    }

    async fn delete(&self, body: Value) -> u16 {
        send(
            self.http
                .delete(format!("{}/api/store/items", self.base))
                .json(&body),
        )
        .await
        .0
    }
}

async fn put(server: &Server, body: Value) {
    let (status, answer) = server.put_json("/api/store/items", body).await;
    assert_eq!(status, 204, "{answer}");
}

async fn search(server: &Server, body: Value) -> Vec<Value> {
    let (status, found) = server.post_json("/api/store/items/search", body).await;
    assert_eq!(status, 200, "{found}");
    found["items"].as_array().unwrap().clone()
}

fn keys(items: &[Value]) -> Vec<&str> {
    items.iter().map(|i| i["key"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn items_are_stored_read_and_deleted_and_kept_apart_per_person() {
    kept_apart(&[]).await;
}

#[tokio::test]
async fn items_are_kept_apart_per_person_on_postgresql() {
    let Some(url) = postgres_database().await else {
        return;
    };
    kept_apart(&[("ANTLER_DATABASE_URL", url.as_str())]).await;
}

async fn kept_apart(vars: &[(&str, &str)]) {
    let env = Env::new();
    let server = env.start_with(vars);
    put(
        &server,
        json!({"namespace": ["memories", "prefs"], "key": "theme", "value": {"color": "green"}}),
    )
    .await;
    let (status, item) = server
        .get_json("/api/store/items?namespace=memories.prefs&key=theme")
        .await;
    assert_eq!(status, 200, "{item}");
    assert_eq!(item["namespace"], json!(["memories", "prefs"]));
    assert_eq!(item["value"], json!({"color": "green"}));
    assert!(
        item["created_at"].as_str().unwrap().ends_with('Z'),
        "{item}"
    );
    assert_eq!(item["created_at"], item["updated_at"]);

    // Another person sees nothing of it, and their own item of the same name is theirs.
    let bob = Other::new(&server, "bob@antler.test").await;
    assert_eq!(
        bob.get("namespace=memories.prefs&key=theme").await,
        (200, Value::Null),
        "a missing item is null, as LangGraph's server answers"
    );
    let (_, found) = bob
        .post("/api/store/items/search", json!({"namespace_prefix": []}))
        .await;
    assert_eq!(found, json!({"items": []}));
    let (_, spaces) = bob.post("/api/store/namespaces", json!({})).await;
    assert_eq!(spaces, json!({"namespaces": []}));
    assert_eq!(
        bob.put(
            json!({"namespace": ["memories", "prefs"], "key": "theme", "value": {"color": "red"}})
        )
        .await,
        204
    );
    assert_eq!(
        bob.delete(json!({"namespace": ["memories", "prefs"], "key": "theme"}))
            .await,
        204
    );
    let (_, mine) = server
        .get_json("/api/store/items?namespace=memories.prefs&key=theme")
        .await;
    assert_eq!(
        mine["value"],
        json!({"color": "green"}),
        "the admin's item is untouched"
    );

    // A replacement keeps the creation time; a delete removes it; deleting again is fine.
    put(
        &server,
        json!({"namespace": ["memories", "prefs"], "key": "theme", "value": {"color": "blue"}, "index": null, "ttl": null}),
    )
    .await;
    let (_, replaced) = server
        .get_json("/api/store/items?namespace=memories.prefs&key=theme&refresh_ttl=false")
        .await;
    assert_eq!(replaced["value"], json!({"color": "blue"}));
    assert_eq!(replaced["created_at"], item["created_at"]);
    for _ in 0..2 {
        let (status, _) = send(
            server
                .http
                .delete(server.url("/api/store/items"))
                .json(&json!({"namespace": ["memories", "prefs"], "key": "theme"})),
        )
        .await;
        assert_eq!(status, 204);
    }
    let (status, gone) = server
        .get_json("/api/store/items?namespace=memories.prefs&key=theme")
        .await;
    assert_eq!((status, gone), (200, Value::Null));
}

#[tokio::test]
async fn searches_filter_with_operators_and_rank_by_relevance() {
    let env = Env::new();
    let server = env.start();
    for (key, value) in [
        (
            "a",
            json!({"kind": "note", "score": 1, "text": "rust appears once in this longer note about other things"}),
        ),
        (
            "b",
            json!({"kind": "note", "score": 5, "text": "rust rust ownership and borrowing in rust"}),
        ),
        (
            "c",
            json!({"kind": "task", "score": 9, "text": "water the plants"}),
        ),
    ] {
        put(
            &server,
            json!({"namespace": ["docs", "u1"], "key": key, "value": value}),
        )
        .await;
    }
    // Stored, not searchable by text.
    put(
        &server,
        json!({"namespace": ["docs", "u1"], "key": "d", "value": {"kind": "note", "score": 3, "text": "rust rust rust"}, "index": false}),
    )
    .await;
    // Only the title is searchable.
    put(
        &server,
        json!({"namespace": ["docs", "u2"], "key": "e", "value": {"title": "gardening", "text": "rust rust rust rust"}, "index": ["title"]}),
    )
    .await;

    let all = search(&server, json!({"namespace_prefix": ["docs"]})).await;
    assert_eq!(all.len(), 5);
    assert!(all.iter().all(|i| i["score"].is_null()), "{all:?}");
    assert_eq!(all[0]["key"], "e", "most recently updated first");

    let cases = [
        (json!({"kind": "note"}), vec!["a", "b", "d"]),
        (json!({"score": {"$gt": 3}}), vec!["b", "c"]),
        (json!({"score": {"$gte": 3, "$lt": 9}}), vec!["b", "d"]),
        (json!({"score": {"$lte": 1}}), vec!["a"]),
        (json!({"kind": {"$ne": "note"}}), vec!["c", "e"]),
        (json!({"kind": {"$eq": "task"}, "score": 9}), vec!["c"]),
    ];
    for (filter, expected) in cases {
        let found = search(
            &server,
            json!({"namespace_prefix": ["docs"], "filter": filter, "limit": 10}),
        )
        .await;
        let mut found = keys(&found);
        found.sort();
        assert_eq!(found, expected, "{filter}");
    }

    let ranked = search(
        &server,
        json!({"namespace_prefix": ["docs"], "query": "rust ownership"}),
    )
    .await;
    assert_eq!(keys(&ranked), ["b", "a"], "{ranked:?}");
    let (best, next) = (
        ranked[0]["score"].as_f64().unwrap(),
        ranked[1]["score"].as_f64().unwrap(),
    );
    assert!(best > next && next > 0.0, "{best} {next}");
    let titled = search(
        &server,
        json!({"namespace_prefix": [], "query": "gardening"}),
    )
    .await;
    assert_eq!(keys(&titled), ["e"]);
    let filtered = search(
        &server,
        json!({"namespace_prefix": ["docs"], "query": "rust", "filter": {"score": {"$gt": 2}}}),
    )
    .await;
    assert_eq!(keys(&filtered), ["b"]);
    // Pages.
    let page = search(
        &server,
        json!({"namespace_prefix": ["docs", "u1"], "limit": 2, "offset": 2}),
    )
    .await;
    assert_eq!(page.len(), 2);
}

#[tokio::test]
async fn namespaces_are_listed_by_prefix_suffix_and_depth() {
    let env = Env::new();
    let server = env.start();
    for labels in [
        ["users", "u1", "notes"],
        ["users", "u2", "notes"],
        ["users", "u2", "prefs"],
        ["teams", "t1", "notes"],
    ] {
        put(
            &server,
            json!({"namespace": labels, "key": "k", "value": {}}),
        )
        .await;
    }
    let list = |body: Value| {
        let server = &server;
        async move {
            let (status, answer) = server.post_json("/api/store/namespaces", body).await;
            assert_eq!(status, 200, "{answer}");
            answer["namespaces"].clone()
        }
    };
    assert_eq!(list(json!({})).await.as_array().unwrap().len(), 4);
    assert_eq!(
        list(json!({"prefix": ["users"], "suffix": ["notes"]})).await,
        json!([["users", "u1", "notes"], ["users", "u2", "notes"]])
    );
    assert_eq!(
        list(json!({"prefix": ["*", "u2"]})).await,
        json!([["users", "u2", "notes"], ["users", "u2", "prefs"]])
    );
    assert_eq!(
        list(json!({"max_depth": 2, "limit": 2, "offset": 1})).await,
        json!([["users", "u1"], ["users", "u2"]])
    );
    assert_eq!(
        list(json!({"prefix": null, "suffix": null, "max_depth": null, "limit": 100, "offset": 0}))
            .await
            .as_array()
            .unwrap()
            .len(),
        4
    );
}

#[tokio::test]
async fn an_item_past_its_time_to_live_is_gone_everywhere() {
    let env = Env::new();
    let server = env.start();
    // A few microseconds to live: expired by the next request.
    put(
        &server,
        json!({"namespace": ["tmp"], "key": "brief", "value": {"text": "ephemeral"}, "ttl": 0.000_001}),
    )
    .await;
    put(
        &server,
        json!({"namespace": ["tmp"], "key": "lasting", "value": {"text": "ephemeral"}, "ttl": 60}),
    )
    .await;
    let (_, brief) = server
        .get_json("/api/store/items?namespace=tmp&key=brief")
        .await;
    assert_eq!(brief, Value::Null);
    let (_, lasting) = server
        .get_json("/api/store/items?namespace=tmp&key=lasting")
        .await;
    assert_eq!(lasting["key"], "lasting");
    let found = search(
        &server,
        json!({"namespace_prefix": ["tmp"], "query": "ephemeral"}),
    )
    .await;
    assert_eq!(keys(&found), ["lasting"]);
    let (_, spaces) = server
        .post_json("/api/store/namespaces", json!({"prefix": ["tmp"]}))
        .await;
    assert_eq!(spaces["namespaces"], json!([["tmp"]]));
}

#[tokio::test]
async fn bad_store_requests_are_refused_in_the_error_envelope() {
    bad_requests(&[]).await;
}

#[tokio::test]
async fn bad_store_requests_are_refused_on_postgresql() {
    let Some(url) = postgres_database().await else {
        return;
    };
    bad_requests(&[("ANTLER_DATABASE_URL", url.as_str())]).await;
}

async fn bad_requests(vars: &[(&str, &str)]) {
    let env = Env::new();
    let server = env.start_with(vars);
    let long = "x".repeat(2000);
    let big = "y".repeat(1024 * 1024);
    for (body, why) in [
        (
            json!({"namespace": [], "key": "k", "value": {}}),
            "no namespace",
        ),
        (
            json!({"namespace": ["a.b"], "key": "k", "value": {}}),
            "a dot in a label",
        ),
        (
            json!({"namespace": [""], "key": "k", "value": {}}),
            "an empty label",
        ),
        (
            json!({"namespace": ["a\u{0}"], "key": "k", "value": {}}),
            "NUL in a label",
        ),
        (
            json!({"namespace": vec!["n"; 21], "key": "k", "value": {}}),
            "too deep",
        ),
        (
            json!({"namespace": ["a"], "key": "", "value": {}}),
            "an empty key",
        ),
        (
            json!({"namespace": ["a"], "key": long, "value": {}}),
            "a long key",
        ),
        (
            json!({"namespace": ["a"], "key": "k", "value": [1]}),
            "not an object",
        ),
        (
            json!({"namespace": ["a"], "key": "k", "value": {"big": big}}),
            "too large",
        ),
        (
            json!({"namespace": ["a"], "key": "k", "value": {}, "ttl": -1}),
            "negative ttl",
        ),
        (
            json!({"namespace": ["a"], "key": "k", "value": {}, "index": true}),
            "index true",
        ),
        (
            json!({"namespace": ["a"], "key": "k", "value": {}, "index": ["a..b"]}),
            "bad path",
        ),
    ] {
        let (status, answer) = server.put_json("/api/store/items", body).await;
        assert!(status == 422 || status == 413, "{why}: {status} {answer}");
        error_code(&answer);
    }
    for (body, why) in [
        (
            json!({"namespace_prefix": ["a"], "filter": {"n": {"$regex": "x"}}}),
            "unknown operator",
        ),
        (
            json!({"namespace_prefix": ["a"], "filter": {"n": {"$gt": [1]}}}),
            "unordered operand",
        ),
        (
            json!({"namespace_prefix": ["a"], "filter": {"n": "\u{0}"}}),
            "NUL in a filter",
        ),
        (
            json!({"namespace_prefix": ["a"], "filter": [1]}),
            "filter not an object",
        ),
        (json!({"namespace_prefix": ["a"], "limit": 0}), "limit 0"),
        (
            json!({"namespace_prefix": ["a"], "limit": 5000}),
            "limit too large",
        ),
        (
            json!({"namespace_prefix": ["a"], "offset": 1_000_000}),
            "offset too large",
        ),
        (json!({"namespace_prefix": ["a."]}), "a dot in the prefix"),
    ] {
        let (status, answer) = server.post_json("/api/store/items/search", body).await;
        assert_eq!(
            (status, error_code(&answer)),
            (422, "invalid_body"),
            "{why}: {answer}"
        );
    }
    let (status, answer) = server
        .post_json("/api/store/namespaces", json!({"max_depth": 0}))
        .await;
    assert_eq!(
        (status, error_code(&answer)),
        (422, "invalid_body"),
        "{answer}"
    );
    for query in [
        "namespace=&key=k",
        "namespace=a..b&key=k",
        "namespace=a&key=",
    ] {
        let (status, answer) = server.get_json(&format!("/api/store/items?{query}")).await;
        assert_eq!(
            (status, error_code(&answer)),
            (422, "invalid_query"),
            "{query}: {answer}"
        );
    }
    let (status, answer) = server.get_json("/api/store/items?key=k").await;
    assert_eq!(
        (status, error_code(&answer)),
        (400, "invalid_query"),
        "{answer}"
    );
    // NUL inside a value: stored where the engine can (SQLite), else refused; never a 500.
    let (status, answer) = server
        .put_json(
            "/api/store/items",
            json!({"namespace": ["a"], "key": "nul", "value": {"t": "x\u{0}y"}}),
        )
        .await;
    assert!(status == 204 || status == 422, "{status} {answer}");
    // Nothing bad was stored.
    let (_, spaces) = server.post_json("/api/store/namespaces", json!({})).await;
    let stored = spaces["namespaces"].as_array().unwrap().len();
    assert!(stored <= 1, "{spaces}");
}
