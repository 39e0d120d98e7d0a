-- LangGraph's long-term store: each person's JSON documents under hierarchical namespaces.
-- `namespace` holds the labels joined by '.' with a trailing '.' ("a.b." for ["a", "b"];
-- labels never hold a '.'), so a prefix is a range of the primary key. `search_text` is
-- what full-text search sees (NULL: stored but not searchable); `expires_at` is NULL for
-- items without a time to live.
CREATE TABLE store_items (
    owner       TEXT NOT NULL,
    namespace   TEXT NOT NULL,
    key         TEXT NOT NULL,
    value       TEXT NOT NULL,
    search_text TEXT,
    ttl_minutes REAL,
    expires_at  TEXT,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    PRIMARY KEY (owner, namespace, key)
);
CREATE INDEX store_items_recent ON store_items (owner, updated_at DESC);
CREATE INDEX store_items_expiry ON store_items (expires_at) WHERE expires_at IS NOT NULL;

CREATE VIRTUAL TABLE store_items_fts USING fts5(
    search_text, content = 'store_items', content_rowid = 'rowid', tokenize = 'unicode61'
);
CREATE TRIGGER store_items_ai AFTER INSERT ON store_items BEGIN
    INSERT INTO store_items_fts (rowid, search_text) VALUES (new.rowid, new.search_text);
END;
CREATE TRIGGER store_items_ad AFTER DELETE ON store_items BEGIN
    INSERT INTO store_items_fts (store_items_fts, rowid, search_text)
    VALUES ('delete', old.rowid, old.search_text);
END;
CREATE TRIGGER store_items_au AFTER UPDATE OF search_text ON store_items BEGIN
    INSERT INTO store_items_fts (store_items_fts, rowid, search_text)
    VALUES ('delete', old.rowid, old.search_text);
    INSERT INTO store_items_fts (rowid, search_text) VALUES (new.rowid, new.search_text);
END;
