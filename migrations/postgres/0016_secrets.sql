-- Named secrets admins give to agents and skills: the value sealed (AES-256-GCM with a key
-- from the environment, the name as associated data), never stored in the clear.
CREATE TABLE secrets (
    name        TEXT        PRIMARY KEY,
    description TEXT        NOT NULL DEFAULT '',
    agents      JSONB       NOT NULL,
    skills      JSONB       NOT NULL,
    sealed      BYTEA       NOT NULL,
    created_by  TEXT        NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);
