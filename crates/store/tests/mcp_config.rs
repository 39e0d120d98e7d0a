//! The MCP configuration row against a real SQLite file and a real PostgreSQL database.

mod common;

use serde_json::json;

#[tokio::test]
async fn the_first_seed_wins_and_saves_replace_it() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        assert_eq!(store.mcp.load().await.unwrap(), None, "{engine}");
        let first = json!({"a": {"command": "x"}});
        assert_eq!(store.mcp.seed(&first).await.unwrap(), first);
        assert_eq!(
            store.mcp.seed(&json!({"b": {}})).await.unwrap(),
            first,
            "{engine}: a later seed changes nothing"
        );
        let next = json!({"c": {"url": "http://h/mcp"}});
        store.mcp.save(&next).await.unwrap();
        assert_eq!(store.mcp.load().await.unwrap(), Some(next), "{engine}");
    }
}
