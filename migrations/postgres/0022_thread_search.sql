-- Kept in step with migrations/sqlite/0022_thread_search.sql: full-text search over each
-- person's conversations, a thread's title and the text of its messages (human and AI text
-- whole up to 20,000 characters a message, tool output only its first 500; the newest
-- 200,000 characters of a long conversation), kept by a trigger when a thread is written
-- while no run works on it and when a run ends (not on each of a run's checkpoints); a
-- delete takes it away.
--
-- Words are found with a `tsvector` (the `simple` configuration: no stemming, any language)
-- and its GIN index, which also ranks; any substring, Chinese and words of one or two
-- characters included, with ILIKE, made fast by `pg_trgm` trigram indexes when the
-- extension can be created here (it ships with PostgreSQL; creating it needs the CREATE
-- privilege on the database). Without it the same ILIKE reads the owner's rows: slower on
-- large databases, the same answers.

CREATE FUNCTION thread_search_title(metadata JSONB, state JSONB) RETURNS TEXT
LANGUAGE SQL IMMUTABLE AS $$
    SELECT left(COALESCE(
        CASE WHEN jsonb_typeof(metadata -> 'title') = 'string' THEN metadata ->> 'title' END,
        CASE WHEN jsonb_typeof(state -> 'title') = 'string' THEN state ->> 'title' END,
        ''), 500)
$$;

CREATE FUNCTION thread_search_body(state JSONB) RETURNS TEXT
LANGUAGE SQL IMMUTABLE AS $$
    SELECT right(COALESCE(string_agg(text, E'\n' ORDER BY n), ''), 200000) FROM (
        SELECT m.n, left(
            CASE jsonb_typeof(m.value -> 'content')
                WHEN 'string' THEN m.value ->> 'content'
                WHEN 'array' THEN (
                    SELECT string_agg(b.value ->> 'text', ' ')
                    FROM jsonb_array_elements(m.value -> 'content') AS b
                    WHERE jsonb_typeof(b.value) = 'object'
                      AND jsonb_typeof(b.value -> 'text') = 'string')
            END,
            CASE m.value ->> 'type' WHEN 'tool' THEN 500 ELSE 20000 END) AS text
        FROM jsonb_array_elements(
            CASE jsonb_typeof(state -> 'messages') WHEN 'array' THEN state -> 'messages'
                 ELSE '[]'::jsonb END) WITH ORDINALITY AS m (value, n)
        WHERE jsonb_typeof(m.value) = 'object' AND m.value ->> 'type' IN ('human', 'ai', 'tool')
    ) AS parts WHERE text IS NOT NULL AND text <> ''
$$;

CREATE TABLE thread_search (
    thread_id TEXT PRIMARY KEY REFERENCES threads (thread_id) ON DELETE CASCADE,
    owner     TEXT NOT NULL,
    title     TEXT NOT NULL,
    body      TEXT NOT NULL,
    document  TSVECTOR GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', title), 'A') || setweight(to_tsvector('simple', body), 'B')
    ) STORED
);
-- Conversations from before this migration (before the indexes, which are then built once).
INSERT INTO thread_search (thread_id, owner, title, body)
SELECT thread_id, owner, thread_search_title(metadata, state), thread_search_body(state)
FROM threads;

CREATE INDEX thread_search_owner ON thread_search (owner);
CREATE INDEX thread_search_document ON thread_search USING GIN (document);

DO $$
BEGIN
    BEGIN
        CREATE EXTENSION IF NOT EXISTS pg_trgm;
    EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE 'pg_trgm is not available (%); conversation search reads rows instead', SQLERRM;
    END;
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
        CREATE INDEX thread_search_title_trgm ON thread_search USING GIN (title gin_trgm_ops);
        CREATE INDEX thread_search_body_trgm ON thread_search USING GIN (body gin_trgm_ops);
    END IF;
END
$$;

-- Writes only when the text or the owner changed.
CREATE FUNCTION thread_search_sync() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO thread_search (thread_id, owner, title, body)
    VALUES (NEW.thread_id, NEW.owner, thread_search_title(NEW.metadata, NEW.state),
            thread_search_body(NEW.state))
    ON CONFLICT (thread_id) DO UPDATE
    SET owner = excluded.owner, title = excluded.title, body = excluded.body
    WHERE thread_search.owner IS DISTINCT FROM excluded.owner
       OR thread_search.title IS DISTINCT FROM excluded.title
       OR thread_search.body IS DISTINCT FROM excluded.body;
    RETURN NULL;
END
$$;

CREATE TRIGGER thread_search_thread_insert AFTER INSERT ON threads
    FOR EACH ROW EXECUTE FUNCTION thread_search_sync();
CREATE TRIGGER thread_search_thread_update AFTER UPDATE OF state, metadata, owner, status ON threads
    FOR EACH ROW
    WHEN (NEW.status <> 'busy' AND (OLD.status IS DISTINCT FROM NEW.status
        OR OLD.owner IS DISTINCT FROM NEW.owner OR OLD.state IS DISTINCT FROM NEW.state
        OR OLD.metadata IS DISTINCT FROM NEW.metadata))
    EXECUTE FUNCTION thread_search_sync();

