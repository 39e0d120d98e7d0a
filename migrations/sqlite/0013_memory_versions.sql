-- A number per person that changes whenever their facts do (added, changed, confirmed,
-- superseded, deleted; not when they are merely used): replicas keep a ranking index of a
-- person's facts while it stays the same.
CREATE TABLE memory_versions (
    owner   TEXT    PRIMARY KEY NOT NULL,
    version INTEGER NOT NULL
);
CREATE TRIGGER memory_facts_version_ai AFTER INSERT ON memory_facts BEGIN
    INSERT INTO memory_versions (owner, version) VALUES (new.owner, 1)
        ON CONFLICT (owner) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER memory_facts_version_ad AFTER DELETE ON memory_facts BEGIN
    INSERT INTO memory_versions (owner, version) VALUES (old.owner, 1)
        ON CONFLICT (owner) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER memory_facts_version_au
AFTER UPDATE OF content, category, confidence, confirmations, active, assistant_id ON memory_facts
BEGIN
    INSERT INTO memory_versions (owner, version) VALUES (new.owner, 1)
        ON CONFLICT (owner) DO UPDATE SET version = version + 1;
END;
