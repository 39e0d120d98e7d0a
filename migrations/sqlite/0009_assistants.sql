-- Assistants (LangGraph's, Antler's custom agents): the current version of each, and every
-- version as it was. `context` holds the agent's settings (system prompt, model, skills,
-- tools). Owned like threads: another owner's assistant does not exist for a caller.
CREATE TABLE assistants (
    assistant_id TEXT    PRIMARY KEY NOT NULL,
    owner        TEXT    NOT NULL,
    graph_id     TEXT    NOT NULL,
    name         TEXT    NOT NULL,
    description  TEXT,
    config       TEXT    NOT NULL,
    context      TEXT    NOT NULL,
    metadata     TEXT    NOT NULL,
    version      INTEGER NOT NULL,
    created_at   TEXT    NOT NULL,
    updated_at   TEXT    NOT NULL
);
CREATE INDEX assistants_owner ON assistants (owner, updated_at DESC);

CREATE TABLE assistant_versions (
    assistant_id TEXT    NOT NULL REFERENCES assistants (assistant_id) ON DELETE CASCADE,
    version      INTEGER NOT NULL,
    graph_id     TEXT    NOT NULL,
    name         TEXT    NOT NULL,
    description  TEXT,
    config       TEXT    NOT NULL,
    context      TEXT    NOT NULL,
    metadata     TEXT    NOT NULL,
    created_at   TEXT    NOT NULL,
    PRIMARY KEY (assistant_id, version)
);
