//! Conversation search over HTTP (`query` in `POST /api/threads/search`): a word of an older
//! conversation is found with its matches marked, another person's conversations are not,
//! Chinese text is, the other filters combine with it, and hostile or long queries get
//! results or a clear 422, never a 500. On SQLite and PostgreSQL.

use serde_json::{Value, json};

use crate::auth::user;
use crate::common::{Env, Server, client_with, error_code, mock_llm, postgres_database};

const SCRIPT: &str = r#"scenarios:
  - match: "pelicans"
    turns:
      - content: "Brown pelicans dive for fish along the coast."
  - match: "中文"
    turns:
      - content: "好的，我们用中文讨论全文搜索引擎。"
  - match: ""
    turns:
      - content: "An answer about something else."
"#;

async fn start(env: &Env, extra: &[(&str, &str)]) -> Server {
    let model = mock_llm(SCRIPT).await;
    let mut vars = vec![("ANTLER_AGENT_GENERATE_TITLES", "false")];
    vars.extend_from_slice(extra);
    env.start_agent(&model, &vars)
}

async fn search(server: &Server, body: Value) -> (u16, Value) {
    server.post_json("/api/threads/search", body).await
}

fn ids(found: &Value) -> Vec<&str> {
    found
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {found}"))
        .iter()
        .map(|t| t["thread_id"].as_str().unwrap())
        .collect()
}

/// The marked pieces of a list of text parts.
fn marked(parts: &Value) -> Vec<&str> {
    parts
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["match"] == true)
        .map(|p| p["text"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn search_finds_words_of_older_conversations_with_marks() {
    finds_words_of_older_conversations(&[]).await;
}

#[tokio::test]
async fn search_finds_words_of_older_conversations_on_postgresql() {
    let Some(url) = postgres_database().await else {
        return;
    };
    finds_words_of_older_conversations(&[("ANTLER_DATABASE_URL", url.as_str())]).await;
}

async fn finds_words_of_older_conversations(extra: &[(&str, &str)]) {
    let env = Env::new();
    let server = start(&env, extra).await;
    server
        .run_wait("old", "lead_agent", "Tell me about pelicans")
        .await;
    let (status, _) = server
        .patch_json(
            "/api/threads/old",
            json!({"metadata": {"title": "Coastal birds"}}),
        )
        .await;
    assert_eq!(status, 200);
    server.run_wait("zh", "lead_agent", "请用中文回答").await;
    for i in 0..3 {
        server
            .run_wait(&format!("new{i}"), "lead_agent", "Something recent")
            .await;
    }
    let other = client_with(Some(&user(&server, "other@example.com").await));
    let r = other
        .post(server.url("/api/threads/theirs/runs/wait"))
        .json(
            &json!({"assistant_id": "lead_agent", "if_not_exists": "create",
            "input": {"messages": [{"role": "user", "content": "pelicans too"}]}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);

    // A word of the answer, in another case: the older conversation, marked.
    let (status, found) = search(&server, json!({"query": "PELICANS dive"})).await;
    assert_eq!(status, 200, "{found}");
    assert_eq!(ids(&found), ["old"], "not the other person's");
    let hit = &found[0]["search"];
    assert!(marked(&hit["snippet"]).contains(&"pelicans"), "{hit}");
    assert!(marked(&hit["snippet"]).contains(&"dive"), "{hit}");
    assert_eq!(
        hit["title"],
        json!([{"text": "Coastal birds", "match": false}])
    );
    assert_eq!(
        found[0]["metadata"]["title"], "Coastal birds",
        "a LangGraph thread still"
    );

    // The title, and `select` keeps the hit.
    let (_, found) = search(
        &server,
        json!({"query": "coastal", "select": ["thread_id"]}),
    )
    .await;
    assert_eq!(ids(&found), ["old"]);
    assert_eq!(marked(&found[0]["search"]["title"]), ["Coastal"]);
    assert!(found[0].get("values").is_none());

    // Chinese, two characters and more.
    for word in ["中文", "搜索引擎"] {
        let (status, found) = search(&server, json!({"query": word})).await;
        assert_eq!(status, 200, "{found}");
        assert_eq!(ids(&found), ["zh"], "{word}");
        let marks = marked(&found[0]["search"]["snippet"]);
        assert!(
            !marks.is_empty() && marks.iter().all(|m| *m == word),
            "{marks:?}"
        );
    }

    // Combined with the other filters.
    let (_, found) = search(&server, json!({"query": "pelicans", "status": "busy"})).await;
    assert_eq!(ids(&found), Vec::<&str>::new());
    let (_, found) = search(
        &server,
        json!({"query": "pelicans", "ids": ["old", "new0"]}),
    )
    .await;
    assert_eq!(ids(&found), ["old"]);
    let (_, found) = search(&server, json!({"query": "recent", "limit": 2})).await;
    assert_eq!(ids(&found).len(), 2);

    // No query, or a blank one: the usual list, without hits.
    for body in [json!({}), json!({"query": ""}), json!({"query": "   "})] {
        let (_, found) = search(&server, body).await;
        assert_eq!(ids(&found).len(), 5);
        assert!(found[0].get("search").is_none(), "{found}");
    }

    // A deleted conversation is no longer found.
    let (status, _) = server.delete("/api/threads/old").await;
    assert_eq!(status, 204);
    let (_, found) = search(&server, json!({"query": "pelicans"})).await;
    assert_eq!(ids(&found), Vec::<&str>::new());
}

#[tokio::test]
async fn hostile_queries_answer_results_or_a_clear_error() {
    hostile_queries(&[]).await;
}

#[tokio::test]
async fn hostile_queries_answer_results_or_a_clear_error_on_postgresql() {
    let Some(url) = postgres_database().await else {
        return;
    };
    hostile_queries(&[("ANTLER_DATABASE_URL", url.as_str())]).await;
}

async fn hostile_queries(extra: &[(&str, &str)]) {
    let env = Env::new();
    let server = start(&env, extra).await;
    server
        .run_wait("t", "lead_agent", "Tell me about pelicans")
        .await;
    let long = "a".repeat(200);
    for query in [
        "\"",
        "*",
        "NEAR(",
        "OR",
        "AND",
        "NOT",
        "pelicans OR",
        "\"pelicans",
        "pel*",
        "%",
        "_",
        "\\",
        "'",
        "a:b",
        "^x",
        "(",
        ")",
        "{}",
        "-",
        "+",
        "\u{0}",
        "🦩",
        long.as_str(),
    ] {
        let (status, found) = search(&server, json!({"query": query})).await;
        assert_eq!(status, 200, "{query:?}: {found}");
        assert!(found.is_array(), "{query:?}");
    }
    let (_, found) = search(&server, json!({"query": "%"})).await;
    assert_eq!(
        ids(&found),
        Vec::<&str>::new(),
        "a LIKE wildcard is a character"
    );

    let too_long = "a".repeat(201);
    let (status, body) = search(&server, json!({"query": too_long})).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(error_code(&body), "invalid_body");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("200 characters")
    );
    let (status, body) = search(&server, json!({"query": 7})).await;
    assert_eq!(status, 422, "{body}");
}
