-- Assistants (LangGraph's, Antler's custom agents): the current version of each, and every
-- version as it was. `context` holds the agent's settings (system prompt, model, skills,
-- tools). Owned like threads: another owner's assistant does not exist for a caller.
CREATE TABLE assistants (
    assistant_id TEXT        PRIMARY KEY,
    owner        TEXT        NOT NULL,
    graph_id     TEXT        NOT NULL,
    name         TEXT        NOT NULL,
    description  TEXT,
    config       JSONB       NOT NULL,
    context      JSONB       NOT NULL,
    metadata     JSONB       NOT NULL,
    version      BIGINT      NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX assistants_owner ON assistants (owner, updated_at DESC);

CREATE TABLE assistant_versions (
    assistant_id TEXT        NOT NULL REFERENCES assistants (assistant_id) ON DELETE CASCADE,
    version      BIGINT      NOT NULL,
    graph_id     TEXT        NOT NULL,
    name         TEXT        NOT NULL,
    description  TEXT,
    config       JSONB       NOT NULL,
    context      JSONB       NOT NULL,
    metadata     JSONB       NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (assistant_id, version)
);
