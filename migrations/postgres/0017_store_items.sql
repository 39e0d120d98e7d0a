-- LangGraph's long-term store: each person's JSON documents under hierarchical namespaces.
-- `namespace` holds the labels joined by '.' with a trailing '.' ("a.b." for ["a", "b"];
-- labels never hold a '.'), in byte order (COLLATE "C") so a prefix is a range of the
-- primary key. `search_text` is what full-text search sees (NULL: stored but not
-- searchable); `expires_at` is NULL for items without a time to live.
CREATE TABLE store_items (
    owner       TEXT             NOT NULL,
    namespace   TEXT COLLATE "C" NOT NULL,
    key         TEXT COLLATE "C" NOT NULL,
    value       JSONB            NOT NULL,
    search_text TEXT,
    ttl_minutes DOUBLE PRECISION,
    expires_at  TIMESTAMPTZ,
    created_at  TIMESTAMPTZ      NOT NULL,
    updated_at  TIMESTAMPTZ      NOT NULL,
    tsv         TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple', COALESCE(search_text, ''))) STORED,
    PRIMARY KEY (owner, namespace, key)
);
CREATE INDEX store_items_recent ON store_items (owner, updated_at DESC);
CREATE INDEX store_items_expiry ON store_items (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX store_items_tsv ON store_items USING GIN (tsv);
