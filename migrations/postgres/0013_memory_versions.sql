-- A number per person that changes whenever their facts do (added, changed, confirmed,
-- superseded, deleted; not when they are merely used): replicas keep a ranking index of a
-- person's facts while it stays the same.
CREATE TABLE memory_versions (
    owner   TEXT   PRIMARY KEY NOT NULL,
    version BIGINT NOT NULL
);
CREATE FUNCTION memory_facts_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO memory_versions (owner, version)
        VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.owner ELSE NEW.owner END, 1)
        ON CONFLICT (owner) DO UPDATE SET version = memory_versions.version + 1;
    RETURN NULL;
END;
$$;
CREATE TRIGGER memory_facts_version
AFTER INSERT OR DELETE OR UPDATE OF content, category, confidence, confirmations, active, assistant_id
ON memory_facts FOR EACH ROW EXECUTE FUNCTION memory_facts_version();
