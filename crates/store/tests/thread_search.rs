//! Conversation search against a real SQLite file and a real PostgreSQL database: what is
//! found, what is not, and that the index follows every write of a thread.

#![expect(
    clippy::unwrap_used,
    reason = "tests: a failed step aborts with its message"
)]

mod common;

use antler_protocol::threads::ThreadStatus;
use antler_store::{Location, NewCheckpoint, Store, ThreadQuery};
use serde_json::{Map, Value, json};

async fn stores() -> (tempfile::TempDir, Vec<(&'static str, Store)>) {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    let stores = engines.open().await.unwrap();
    (tmp, stores)
}

fn map(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

fn page() -> ThreadQuery {
    ThreadQuery {
        limit: 50,
        ..ThreadQuery::default()
    }
}

/// A thread of `owner` holding `messages` as its values (saved as a run saves them).
async fn thread(store: &Store, owner: &str, id: &str, title: Option<&str>, messages: Value) {
    let metadata = title.map_or_else(Map::new, |t| map(json!({"title": t})));
    store.threads.create(owner, id, metadata).await.unwrap();
    save(store, id, messages, ThreadStatus::Idle).await;
}

async fn ids(store: &Store, owner: &str, words: &[&str], query: &ThreadQuery) -> Vec<String> {
    let terms: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    store
        .thread_search
        .search_text(owner, &terms, query)
        .await
        .unwrap()
        .into_iter()
        .map(|h| h.thread.thread_id)
        .collect()
}

fn human(text: &str) -> Value {
    json!({"type": "human", "id": format!("h-{}", text.len()), "content": text})
}

fn ai(text: &str) -> Value {
    json!({"type": "ai", "id": format!("a-{}", text.len()),
           "content": [{"type": "text", "text": text}], "tool_calls": []})
}

#[tokio::test]
async fn search_finds_words_of_titles_and_messages_of_the_owner_only() {
    let (_tmp, stores) = stores().await;
    for (engine, store) in stores {
        thread(
            &store,
            "ann",
            "zebra",
            Some("Savanna trip"),
            json!([human("Tell me about Zebras"), ai("Zebras have stripes.")]),
        )
        .await;
        thread(
            &store,
            "ann",
            "title",
            Some("Zebra crossings"),
            json!([human("road rules")]),
        )
        .await;
        thread(
            &store,
            "ann",
            "other",
            None,
            json!([human("nothing to see")]),
        )
        .await;
        thread(
            &store,
            "bob",
            "bobs",
            Some("zebra"),
            json!([human("zebra zebra")]),
        )
        .await;

        let found = ids(&store, "ann", &["zebra"], &page()).await;
        assert_eq!(found.len(), 2, "{engine}: {found:?}");
        assert!(
            found.contains(&"zebra".into()) && found.contains(&"title".into()),
            "{engine}"
        );
        assert_eq!(
            ids(&store, "ann", &["STRIPES"], &page()).await,
            ["zebra"],
            "{engine}: any case"
        );
        assert_eq!(
            ids(&store, "ann", &["zebra", "road"], &page()).await,
            ["title"],
            "{engine}: every word"
        );
        assert!(
            ids(&store, "ann", &["zebra", "absent"], &page())
                .await
                .is_empty(),
            "{engine}"
        );
        assert_eq!(
            ids(&store, "bob", &["zebra"], &page()).await,
            ["bobs"],
            "{engine}"
        );

        let hits = store
            .thread_search
            .search_text("ann", &["stripes".into()], &page())
            .await
            .unwrap();
        assert_eq!(hits[0].title, "Savanna trip", "{engine}");
        assert!(
            hits[0].excerpt.contains("Zebras have stripes."),
            "{engine}: {:?}",
            hits[0].excerpt
        );
        assert!(!hits[0].cut_before && !hits[0].cut_after, "{engine}");
    }
}

#[tokio::test]
async fn search_finds_chinese_substrings_and_short_words() {
    let (_tmp, stores) = stores().await;
    for (engine, store) in stores {
        thread(
            &store,
            "ann",
            "zh",
            Some("中文对话"),
            json!([human("我想学习全文搜索引擎"), ai("好的")]),
        )
        .await;
        thread(&store, "ann", "en", None, json!([human("an ox and a yak")])).await;
        assert_eq!(
            ids(&store, "ann", &["搜索引擎"], &page()).await,
            ["zh"],
            "{engine}"
        );
        assert_eq!(
            ids(&store, "ann", &["搜索"], &page()).await,
            ["zh"],
            "{engine}: two characters"
        );
        assert_eq!(
            ids(&store, "ann", &["对"], &page()).await,
            ["zh"],
            "{engine}: one character, in the title"
        );
        assert_eq!(
            ids(&store, "ann", &["ox"], &page()).await,
            ["en"],
            "{engine}"
        );
        assert_eq!(
            ids(&store, "ann", &["yak", "ox"], &page()).await,
            ["en"],
            "{engine}"
        );
        assert_eq!(
            ids(&store, "ann", &["earc"], &page()).await,
            Vec::<String>::new(),
            "{engine}"
        );
    }
}

#[tokio::test]
async fn hostile_words_are_taken_literally() {
    let (_tmp, stores) = stores().await;
    for (engine, store) in stores {
        thread(
            &store,
            "ann",
            "plain",
            None,
            json!([human("plain text only")]),
        )
        .await;
        thread(
            &store,
            "ann",
            "odd",
            None,
            json!([human("100% sure: a_b \"quoted\" NEAR(x) OR *star*")]),
        )
        .await;
        for word in [
            "\"",
            "*",
            "NEAR(",
            "OR",
            "%",
            "_",
            "\\",
            "'",
            "a_b",
            "\"quoted\"",
            "*star*",
            "-",
            "^",
            "a:b",
            "(",
            ")",
        ] {
            let found = ids(&store, "ann", &[word], &page()).await;
            assert!(
                !found.contains(&"plain".to_string()),
                "{engine}: {word:?} matched {found:?}"
            );
        }
        assert_eq!(
            ids(&store, "ann", &["NEAR(x)"], &page()).await,
            ["odd"],
            "{engine}"
        );
        assert_eq!(
            ids(&store, "ann", &["100%"], &page()).await,
            ["odd"],
            "{engine}"
        );
        let long = "z".repeat(200);
        assert!(
            ids(&store, "ann", &[long.as_str()], &page())
                .await
                .is_empty(),
            "{engine}"
        );
    }
}

#[tokio::test]
async fn the_index_follows_titles_states_copies_and_deletes() {
    let (_tmp, stores) = stores().await;
    for (engine, store) in stores {
        thread(&store, "ann", "t", None, json!([human("first words")])).await;
        assert!(ids(&store, "ann", &["renamed"], &page()).await.is_empty());
        store
            .threads
            .merge_metadata("ann", "t", map(json!({"title": "Renamed chat"})))
            .await
            .unwrap();
        assert_eq!(
            ids(&store, "ann", &["renamed"], &page()).await,
            ["t"],
            "{engine}: title change"
        );

        let values = json!({"messages": [human("first words"), ai("a later answer about kiwis")]});
        store
            .state
            .save(NewCheckpoint {
                thread_id: "t",
                values: &values,
                status: ThreadStatus::Idle,
                run_id: None,
                parent_id: None,
                metadata: &Map::new(),
            })
            .await
            .unwrap();
        assert_eq!(
            ids(&store, "ann", &["kiwis"], &page()).await,
            ["t"],
            "{engine}: new state"
        );

        store
            .threads
            .copy("ann", "t", "t-copy", &[])
            .await
            .unwrap()
            .unwrap();
        let mut found = ids(&store, "ann", &["kiwis"], &page()).await;
        found.sort();
        assert_eq!(found, ["t", "t-copy"], "{engine}: copy");

        assert!(store.threads.delete("ann", "t").await.unwrap());
        assert_eq!(
            ids(&store, "ann", &["kiwis"], &page()).await,
            ["t-copy"],
            "{engine}: delete"
        );
        // A new thread after a delete is found by its own words only.
        thread(&store, "ann", "t2", None, json!([human("fresh")])).await;
        assert_eq!(
            ids(&store, "ann", &["fresh"], &page()).await,
            ["t2"],
            "{engine}"
        );
        assert!(
            !ids(&store, "ann", &["first words"], &page())
                .await
                .contains(&"t2".to_string())
        );
    }
}

#[tokio::test]
async fn search_combines_with_filters_ranks_and_pages() {
    let (_tmp, stores) = stores().await;
    for (engine, store) in stores {
        thread(&store, "ann", "body", None, json!([human("I like otters")])).await;
        thread(
            &store,
            "ann",
            "both",
            Some("Otters"),
            json!([human("otters otters otters")]),
        )
        .await;
        store
            .threads
            .merge_metadata("ann", "body", map(json!({"project": "p"})))
            .await
            .unwrap();
        assert_eq!(
            ids(&store, "ann", &["otters"], &page()).await,
            ["both", "body"],
            "{engine}: title first"
        );
        let filtered = ThreadQuery {
            metadata: map(json!({"project": "p"})),
            ..page()
        };
        assert_eq!(
            ids(&store, "ann", &["otters"], &filtered).await,
            ["body"],
            "{engine}"
        );
        let second = ThreadQuery {
            limit: 1,
            offset: 1,
            ..page()
        };
        assert_eq!(
            ids(&store, "ann", &["otters"], &second).await,
            ["body"],
            "{engine}"
        );
        let status = ThreadQuery {
            status: Some(ThreadStatus::Busy),
            ..page()
        };
        assert!(
            ids(&store, "ann", &["otters"], &status).await.is_empty(),
            "{engine}"
        );
    }
}

#[tokio::test]
async fn excerpts_start_near_the_first_match_and_tool_output_is_capped() {
    let (_tmp, stores) = stores().await;
    for (engine, store) in stores {
        let long = format!("{} needle {}", "hay ".repeat(200), "straw ".repeat(200));
        let tool = json!({"type": "tool", "id": "tl", "tool_call_id": "c", "content": format!("{} deepword", "x".repeat(600))});
        thread(&store, "ann", "t", None, json!([human(&long), tool])).await;
        let hits = store
            .thread_search
            .search_text("ann", &["NEEDLE".into()], &page())
            .await
            .unwrap();
        let hit = &hits[0];
        assert!(
            hit.excerpt.contains("needle"),
            "{engine}: {:?}",
            hit.excerpt
        );
        assert!(hit.cut_before && hit.cut_after, "{engine}");
        assert!(hit.excerpt.chars().count() <= antler_store::thread_search::EXCERPT_CHARS);
        assert!(
            ids(&store, "ann", &["deepword"], &page()).await.is_empty(),
            "{engine}: past the cap"
        );
    }
}

/// A database of the schema before search (migrations 1-21) with a conversation in it.
const OLD_THREAD: &str = "INSERT INTO threads (thread_id, owner, created_at, updated_at, metadata, status, state) \
     VALUES ('old', 'ann', NOW, NOW, '{\"title\": \"Before\"}', 'idle', \
     '{\"messages\": [{\"type\": \"human\", \"id\": \"h\", \"content\": \"pelicans nest\"}, 1, \"x\"]}')";

/// The migrations before conversation search (0022), as a database from before the upgrade has.
fn before_search(mut all: sqlx::migrate::Migrator) -> sqlx::migrate::Migrator {
    all.migrations = all
        .migrations
        .iter()
        .filter(|m| m.version < 22)
        .cloned()
        .collect();
    all
}

#[tokio::test]
async fn conversations_from_before_the_upgrade_are_found() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("antler.db");
    {
        let options = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(&path)
            .create_if_missing(true);
        let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
        before_search(sqlx::migrate!("../../migrations/sqlite"))
            .run(&pool)
            .await
            .unwrap();
        sqlx::query(&OLD_THREAD.replace("NOW", "'2026-11-01T10:00:00.000000Z'"))
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    }
    let store = Store::open(&Location::Sqlite(path), 2).await.unwrap();
    assert_eq!(ids(&store, "ann", &["pelican"], &page()).await, ["old"]);
    assert_eq!(ids(&store, "ann", &["before"], &page()).await, ["old"]);

    let Ok(admin) = std::env::var("ANTLER_TEST_POSTGRES_URL") else {
        return;
    };
    let url = common::fresh_database(&admin).await.unwrap();
    {
        let pool = sqlx::PgPool::connect(&url).await.unwrap();
        before_search(sqlx::migrate!("../../migrations/postgres"))
            .run(&pool)
            .await
            .unwrap();
        sqlx::query(&OLD_THREAD.replace("NOW", "NOW()"))
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    }
    let store = Store::open(&Location::Postgres(url), 2).await.unwrap();
    assert_eq!(
        ids(&store, "ann", &["pelican"], &page()).await,
        ["old"],
        "postgres"
    );
}

/// Saves `messages` as the thread's values with `status` (as each step of a run does).
async fn save(store: &Store, id: &str, messages: Value, status: ThreadStatus) {
    let values = json!({"messages": messages});
    store
        .state
        .save(NewCheckpoint {
            thread_id: id,
            values: &values,
            status,
            run_id: None,
            parent_id: None,
            metadata: &Map::new(),
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn a_running_thread_is_indexed_when_its_run_ends_and_adopted_threads_move_with_their_owner() {
    let (_tmp, stores) = stores().await;
    for (engine, store) in stores {
        store
            .threads
            .create("local", "t-run", Map::new())
            .await
            .unwrap();
        let asked = json!([{"type": "human", "content": "tell me about zebrafish", "id": "h1"}]);
        // A run's steps do not re-index the conversation each time...
        save(&store, "t-run", asked.clone(), ThreadStatus::Busy).await;
        assert!(
            ids(&store, "local", &["zebrafish"], &page())
                .await
                .is_empty(),
            "{engine}: indexed mid-run"
        );
        // ... its end does, with everything it wrote.
        let answered = json!([
            {"type": "human", "content": "tell me about zebrafish", "id": "h1"},
            {"type": "ai", "content": "Zebrafish regrow fins.", "id": "a1"},
        ]);
        save(&store, "t-run", answered, ThreadStatus::Idle).await;
        assert_eq!(
            ids(&store, "local", &["regrow"], &page()).await,
            ["t-run"],
            "{engine}"
        );
        // When the first admin adopts the local person's conversations, search follows them.
        store.accounts.adopt("local", "admin-1").await.unwrap();
        assert_eq!(
            ids(&store, "admin-1", &["zebrafish"], &page()).await,
            ["t-run"],
            "{engine}"
        );
        assert!(
            ids(&store, "local", &["zebrafish"], &page())
                .await
                .is_empty(),
            "{engine}"
        );
    }
}
